package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestServePollsForBuilds: `reclaim serve` reads the builds' blockhash in
// the background, naming itself the poller, and stops it when it stops:
// serve returns only once the poller has (stop waits for serve); with
// RECLAIM_CHAIN_POLL_MS=0 nothing polls.
func TestServePollsForBuilds(t *testing.T) {
	for _, tc := range []struct {
		pollMS string
		polls  bool
	}{{"", true}, {"0", false}} {
		t.Run("RECLAIM_CHAIN_POLL_MS="+tc.pollMS, func(t *testing.T) {
			var mu sync.Mutex
			callers := map[string]int{}
			polled := make(chan struct{})
			var once sync.Once
			cluster := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var req struct {
					Method string `json:"method"`
				}
				_ = json.Unmarshal(body, &req)
				caller := r.Header.Get("X-Reclaim-Caller")
				mu.Lock()
				callers[caller+" "+req.Method]++
				mu.Unlock()
				if caller == "poller" && req.Method == "getLatestBlockhash" {
					once.Do(func() { close(polled) })
				}
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"not here"}}`))
			}))
			defer cluster.Close()
			_, logs, stop := serveWith(t, t.TempDir(), map[string]string{"SOLANA_RPC_URL": cluster.URL, "RECLAIM_CHAIN_POLL_MS": tc.pollMS})
			if tc.polls {
				<-polled
			}
			stop() // returns once serve has, and serve once the poller has stopped
			mu.Lock()
			defer mu.Unlock()
			if got := callers["poller getLatestBlockhash"] > 0; got != tc.polls {
				t.Errorf("poller reads %v, want %v (calls %v)\n%s", got, tc.polls, callers, logs())
			}
		})
	}
}
