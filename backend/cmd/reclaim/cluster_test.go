package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/config"
)

// TestClusterClientResends: a call on a kept-alive connection that the
// endpoint closes without answering is sent again on a new connection,
// where solana-go's own client would fail with EOF.
func TestClusterClientResends(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 { // the second request, on the first one's connection
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"ok"}`))
	}))
	defer srv.Close()
	ops, err := startOperations(context.Background(), config.Operations{}, func(string) string { return "" }, io.Discard, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	rc := ops.rpcClient(srv.URL, "api")
	for i := range 2 {
		if _, err := rc.GetHealth(context.Background()); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if n.Load() != 3 {
		t.Errorf("%d requests reached the endpoint, want 3 (one closed, sent again)", n.Load())
	}
}

// TestClusterClientNeverResendsATransaction: a sendTransaction whose
// connection closes after the endpoint read it is not sent again by the
// transport (the node may have it: the relay decides), where a read on the
// same connection would be.
func TestClusterClientNeverResendsATransaction(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 { // the send, on the first call's connection, read whole
			_, _ = io.ReadAll(r.Body)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"ok"}`))
	}))
	defer srv.Close()
	ops, err := startOperations(context.Background(), config.Operations{}, func(string) string { return "" }, io.Discard, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	rc := ops.rpcClient(srv.URL, "api")
	if _, err := rc.GetHealth(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.SendRawTransactionWithOpts(context.Background(), []byte{1, 2, 3}, rpc.TransactionOpts{}); err == nil {
		t.Fatal("the send succeeded, want the cut connection's error")
	}
	if n.Load() != 2 {
		t.Errorf("%d requests reached the endpoint, want 2: the send was sent again", n.Load())
	}
}
