package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/storage"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
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
	e := newEnv(b, withQuota(1e6, 1e7, 0))
	e.store.Rankings = storage.NewRankings(e.store.DB, storage.RankingsOptions{StatsTTL: time.Second, Now: time.Now}) // as serve builds it
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
	e := newEnv(b, withRPC(fc.url), withQuota(1e6, 1e7, 0), withRPCTimeout(time.Minute), withPoller())
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

// BenchmarkListREST10000 lists a wallet of 10,000 empty token accounts
// (half SPL Token, half Token-2022, each of its own mint) over REST, one
// request at a time, from the fake cluster over loopback. B/op counts what
// the whole process allocates per listing (the client, the server and the
// fake cluster's answers), so the server's share is less; peak-heap-B is the
// most heap in use seen while the listings ran (sampled every millisecond,
// the fake cluster's map of 20,000 accounts included), live-B the heap in
// use after them.
//
//	go test -run '^$' -bench ListREST10000 -benchmem -benchtime 5x ./backend/server/
func BenchmarkListREST10000(b *testing.B) {
	fc := newFakeCluster(b)
	fc.addEmpty(10_000)
	e := newEnv(b, withRPC(fc.url), withQuota(1e6, 1e7, 0), withRPCTimeout(time.Minute))
	wallet := fc.owner.String()
	h := http.Header{"Authorization": {"Bearer " + e.session(wallet)}}
	client := &http.Client{Transport: h2cTransport()}
	list := func() {
		req, _ := http.NewRequest("GET", e.srv.URL+"/v1/wallet/"+wallet+"/assets", nil)
		req.Header = h.Clone()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n < 10_000*200 {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
	}
	list() // warm: connections, the fake's answers
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		list()
	}
	b.StopTimer()
	close(stop)
	<-sampled
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(peak.Load()), "peak-heap-B")
	b.ReportMetric(float64(ms.HeapAlloc), "live-B")
}

// BenchmarkStreamFirst10000 is the stream's first chunk of a wallet of
// 10,000 empty token accounts (half SPL Token, half Token-2022) against the
// fake cluster over loopback: the time from the request to the first chunk
// with early items, the whole stream read after it (not timed). Its figure
// is the service's share of the first chunk (the fake cluster answers from
// memory) plus the fake cluster's.
//
//	go test -run '^$' -bench StreamFirst10000 -benchtime 20x ./backend/server/
func BenchmarkStreamFirst10000(b *testing.B) {
	fc := newFakeCluster(b)
	fc.addEmpty(10_000)
	e := newEnv(b, withRPC(fc.url), withQuota(1e6, 1e7, 0), withRPCTimeout(time.Minute))
	wallet := fc.owner.String()
	tok := e.session(wallet)
	c := e.connectClients()
	first := func() time.Duration {
		start := time.Now()
		s, err := c.wallet.StreamWalletAssets(context.Background(), withCred(&reclaimv1.StreamWalletAssetsRequest{Address: wallet}, bearer(tok)))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		var took time.Duration
		for s.Receive() {
			if took == 0 && len(s.Msg().GetEarlyItems()) > 0 {
				took = time.Since(start)
			}
		}
		if err := s.Err(); err != nil || took == 0 {
			b.Fatalf("stream: %v, first chunk after %s", err, took)
		}
		return took
	}
	first() // warm: connections, the fake's answers, the PDAs
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		total += first()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-first-chunk")
}

// BenchmarkWalletBesideALooper measures what a quiet wallet of a project
// meets while another wallet of the same project loops at ten times its
// share (20% of a 100/s quota, the looper at 200/s on the injected clock):
// each op is 100 ms of the clock, the looper's 20 requests and, every
// other op, one of the quiet wallet's. It reports the quiet wallet's
// refusals (goal: none) and the looper's.
func BenchmarkWalletBesideALooper(b *testing.B) {
	const rps, burst, share = 100, 100, 20
	clock := clocktest.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e := newEnv(b, withLimiter(ratelimit.NewMemory(rps, burst, ratelimit.WithClock(clock.Now))), withQuota(rps, burst, share))
	looper, quiet := e.session(newWallet()), e.session(newWallet())
	var quietN, quietRefused, loopRefused int
	b.ResetTimer()
	for i := range b.N {
		for range 20 {
			if e.rest("GET", "/v1/stats", bearer(looper), nil).code == 429 {
				loopRefused++
			}
		}
		if i%2 == 0 {
			quietN++
			if e.rest("GET", "/v1/stats", bearer(quiet), nil).code == 429 {
				quietRefused++
			}
		}
		clock.Advance(100 * time.Millisecond)
	}
	b.ReportMetric(float64(quietRefused), "quiet-refused")
	b.ReportMetric(float64(quietN), "quiet-requests")
	b.ReportMetric(float64(loopRefused)/float64(b.N*20), "looper-refused/req")
}
