package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/backend/config"
)

// The cluster client's errors name the endpoint by its host: RPC providers
// put API keys in the URL, and these errors are logged. The errors they
// replace are still there for errors.As.
func TestClusterErrorsKeepTheURLOut(t *testing.T) {
	ops, err := startOperations(context.Background(), config.Operations{}, func(string) string { return "" }, io.Discard, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	const secret = "k3y-0f-th3-pr0v1d3r"
	rc := ops.rpcClient(down.URL+"/rpc/"+secret+"?api-key="+secret, "api")
	_, err = rc.GetHealth(context.Background())
	var ue *url.Error
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), down.URL) || !errors.As(err, &ue) {
		t.Fatalf("error %v", err)
	}
	if err := clusterReachable(rc)(context.Background()); err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("readiness error %v", err)
	}

	behind := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"Node is behind by 42 slots"}}`))
	}))
	defer behind.Close()
	rc = ops.rpcClient(behind.URL+"/?api-key="+secret, "readyz")
	var answered *jsonrpc.RPCError
	if _, err := rc.GetHealth(context.Background()); !errors.As(err, &answered) || strings.Contains(err.Error(), secret) {
		t.Fatalf("behind: %v", err)
	}
	if err := clusterReachable(rc)(context.Background()); err != nil {
		t.Fatalf("a node that answers, even behind, is reachable: %v", err)
	}
}

// RECLAIM_PPROF adds Go's profiles to the metrics listener, and only when
// asked: the metrics answer either way.
func TestPprofOnTheMetricsListener(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("reclaim_up 1\n"))
	})
	for _, on := range []bool{false, true} {
		srv := httptest.NewServer(withPprof(metrics, on))
		for path, want := range map[string]int{"/metrics": 200, "/debug/pprof/": map[bool]int{false: 404, true: 200}[on]} {
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("pprof %v: %s answered %d, want %d", on, path, resp.StatusCode, want)
			}
		}
		srv.Close()
	}
}
