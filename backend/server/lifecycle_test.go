package server_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	"github.com/reclaim-sol/reclaim/backend/server"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// /healthz is alive while the process serves; /readyz checks the database
// and the cluster (at most once a second, however many probes arrive), and
// fails at once while draining.
func TestProbes(t *testing.T) {
	for _, down := range []bool{false, true} {
		life := server.NewLifecycle()
		var calls atomic.Int32
		e := newEnv(t, withDeps(func(d *server.Deps) {
			d.Lifecycle = life
			d.Cluster = func(context.Context) error {
				calls.Add(1)
				if down {
					return errors.New("dial tcp: connection refused")
				}
				return nil
			}
		}))
		e.rest("GET", "/healthz", noCred(), nil).status(200)
		want, code := `{"checks":{"cluster":"ok","database":"ok"},"status":"ok"}`, 200
		if down {
			want, code = `{"checks":{"cluster":"unavailable","database":"ok"},"status":"unavailable"}`, 503
		}
		for range 3 {
			r := e.rest("GET", "/readyz", noCred(), nil).status(code)
			if string(r.body) != want+"\n" || r.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("readyz %s (Cache-Control %q), want %s", r.body, r.header.Get("Cache-Control"), want)
			}
		}
		if n := calls.Load(); n != 1 {
			t.Fatalf("three probes asked the cluster %d times", n)
		}

		life.Drain()
		r := e.rest("GET", "/readyz", noCred(), nil).status(503)
		if string(r.body) != `{"status":"draining"}`+"\n" {
			t.Fatalf("readyz draining: %s", r.body)
		}
		e.rest("GET", "/healthz", noCred(), nil).status(200)
		e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200) // still serving
	}
}

// Stop ends what still runs when the drain bound passes: a WebSocket stream
// closes with 1001 going away, a Connect stream fails unavailable, and
// Wait returns once both handlers have.
func TestStopEndsStreams(t *testing.T) {
	fc := newFakeCluster(t)
	fc.add(10)
	fc.hold = make(chan struct{}) // discovery waits until the test ends
	t.Cleanup(func() { close(fc.hold) })
	life := server.NewLifecycle()
	e := newEnv(t, withRPC(fc.url), withRPCTimeout(time.Minute), withDeps(func(d *server.Deps) { d.Lifecycle = life }))
	wallet := fc.owner.String()
	tok := e.session(wallet)

	ws := e.dialStream(t, wallet, tokenQuery(tok), nil)
	waitStarted(t, fc)
	stream, err := e.connectClients().wallet.StreamWalletAssets(context.Background(), withCred(&reclaimv1.StreamWalletAssetsRequest{Address: wallet}, bearer(tok)))
	if err != nil {
		t.Fatal(err)
	}
	waitStarted(t, fc)
	// The session's request may still be leaving its handler after its
	// answer reached the client: wait until only the two streams are left.
	deadline := time.Now().Add(10 * time.Second)
	for life.Active() != 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := life.Active(); n != 2 {
		t.Fatalf("%d requests active, want the two streams", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := life.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with two streams running: %v", err)
	}

	life.Stop()
	res := readAll(t, ws)
	if res.close.Code != websocket.StatusGoingAway || res.close.Reason != "server shutting down: reconnect" {
		t.Fatalf("WebSocket close %v", res.close)
	}
	for stream.Receive() {
	}
	if code := connectCode(t, stream.Err()); code != connect.CodeUnavailable {
		t.Fatalf("Connect stream: %v", stream.Err())
	}
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := life.Wait(ctx); err != nil {
		t.Fatalf("Wait after Stop: %v (%d active)", err, life.Active())
	}
}
