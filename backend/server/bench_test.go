package server_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
)

// Benchmarks of whole REST round trips through the real mux, vanguard, auth,
// the rate limiter and SQLite, over loopback. allocs/op counts both the
// client and the server side of a request.
//
//	go test -run '^$' -bench 'REST' -benchmem ./backend/server/

func benchEnv(b *testing.B) *env {
	return newEnv(b, withLimiter(ratelimit.NewMemory(1e9, 1e9)))
}

func benchDo(b *testing.B, e *env, method, path string, body []byte, h http.Header) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
			req.Header = h.Clone()
			resp, err := e.http.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

func BenchmarkCreateSessionREST(b *testing.B) {
	e := benchEnv(b)
	h := http.Header{"Content-Type": {"application/json"}, "X-Api-Key": {e.apiKey}}
	benchDo(b, e, "POST", "/v1/sessions", []byte(`{"walletAddress":"`+newWallet()+`","ttlSeconds":600}`), h)
}

func BenchmarkStatsREST(b *testing.B) {
	e := benchEnv(b)
	benchDo(b, e, "GET", "/v1/stats", nil, http.Header{"X-Api-Key": {e.apiKey}})
}

func BenchmarkStatsRESTSession(b *testing.B) {
	e := benchEnv(b)
	token := e.session(newWallet())
	benchDo(b, e, "GET", "/v1/stats", nil, http.Header{"Authorization": {"Bearer " + token}})
}
