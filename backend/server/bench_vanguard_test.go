package server_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkVanguard measures what vanguard costs on the REST path: the same
// operation served in-process (no network, no client: the handler's
// ServeHTTP into a recorder) as REST, which the front door routes, checks
// and decodes and vanguard transcodes to the Connect handler, and as a
// Connect unary JSON call, which the front door hands to the Connect
// handler itself. The difference per operation is vanguard's share of a
// REST request (docs/decisions.md, "vanguard on the REST path"). cpu-ns/op
// is the process's CPU time per request, which other work on a shared
// machine moves less than ns/op (wall time):
//
//	go test -run '^$' -bench Vanguard -benchmem -count 5 -cpu 1 ./backend/server/
func BenchmarkVanguard(b *testing.B) {
	e := benchEnv(b)
	h := e.srv.Config.Handler
	key := http.Header{"X-Api-Key": {e.apiKey}}
	json := http.Header{"X-Api-Key": {e.apiKey}, "Content-Type": {"application/json"}}
	session := []byte(`{"walletAddress":"` + newWallet() + `","ttlSeconds":600}`)
	for _, bc := range []struct {
		name, method, path string
		header             http.Header
		body               []byte
	}{
		{"stats/rest", "GET", "/v1/stats", key, nil},
		{"stats/connect", "POST", "/reclaim.v1.ProjectService/GetStats", json, []byte(`{}`)},
		{"session/rest", "POST", "/v1/sessions", json, session},
		{"session/connect", "POST", "/reclaim.v1.SessionService/CreateSession", json, session},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				req := httptest.NewRequest(bc.method, bc.path, bytes.NewReader(bc.body))
				req.Header = bc.header.Clone()
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%s %s: status %d: %s", bc.method, bc.path, w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
