package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
)

// Benchmarks of whole REST round trips through the real mux, vanguard, auth,
// the rate limiter and SQLite, over loopback. allocs/op counts both the
// client and the server side of a request. The client is a plain one: the
// tests' client checks every answer against the OpenAPI document, which
// costs more than the server's work. req/cpu-s counts requests per second
// of CPU the process used. Per core:
//
//	go test -run '^$' -bench 'REST' -benchmem -cpu 1 ./backend/server/

func benchEnv(b *testing.B) *env {
	e := newEnv(b, withLimiter(ratelimit.NewMemory(1e9, 1e9)))
	e.store.CacheStats(time.Second, time.Now) // as serve does
	return e
}

func benchDo(b *testing.B, e *env, method, path string, body []byte, h http.Header) {
	client := &http.Client{Transport: h2cTransport()}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
			req.Header = h.Clone()
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d: %s", resp.StatusCode, answer)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(float64(b.N)/(cpuTime(b)-cpu).Seconds(), "req/cpu-s")
}

// cpuTime is the CPU time the process has used (every thread: the client,
// the server, the fake cluster, the garbage collector). Requests per CPU
// second measure what a core serves on a machine other work shares, which
// requests per second (wall time) do not.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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

// BenchmarkBuildREST500 builds a 500-item selection (the most a build takes)
// of a wallet the fake cluster holds: the request body is about 60 KB of
// JSON and the answer carries every transaction with its ticket. The
// blockhash and fees come from a Poller, as `reclaim serve` runs one by
// default.
func BenchmarkBuildREST500(b *testing.B) {
	fc := newFakeCluster(b)
	fc.add(500)
	// Cluster calls may take long on a busy machine: a 503 would end the run.
	e := newEnv(b, withRPC(fc.url), withLimiter(ratelimit.NewMemory(1e9, 1e9)), withRPCTimeout(time.Minute), withPoller())
	wallet := fc.owner.String()
	token := e.session(wallet)
	listed := e.rest("GET", "/v1/wallet/"+wallet+"/assets?limit=1000", bearer(token), nil).status(200).json()["items"].([]any)
	var items []any
	for _, it := range listed {
		m := it.(map[string]any)
		items = append(items, map[string]any{"type": m["type"], "address": m["address"], "action": m["actions"].([]any)[0]})
	}
	if len(items) != 500 {
		b.Fatalf("%d items, want 500", len(items))
	}
	body, err := json.Marshal(map[string]any{"items": items, "donationPercentage": 0.1, "priorityFeeLevel": "medium"})
	if err != nil {
		b.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + token}}
	benchDo(b, e, "POST", "/v1/wallet/"+wallet+"/transactions", body, h)
}
