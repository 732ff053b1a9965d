package server_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/server"
)

// /readyz is as patient with the cluster as a request is: a provider that
// answers in 2.2 s (a build waits 3 s for a cluster call) keeps the instance
// in the balancer.
func TestReadyzWaitsForASlowCluster(t *testing.T) {
	e := newEnv(t, withDeps(func(d *server.Deps) {
		d.Cluster = func(ctx context.Context) error {
			select {
			case <-time.After(2200 * time.Millisecond): // the provider's latency
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}))
	r := e.rest("GET", "/readyz", noCred(), nil)
	if want := `{"checks":{"cluster":"ok","database":"ok"},"status":"ok"}` + "\n"; r.code != 200 || string(r.body) != want {
		t.Fatalf("readyz with a cluster 2.2 s slow: %d %s, want 200 %s", r.code, r.body, want)
	}
}

// Each check gets the bound of the requests that use its dependency: the
// database's DBTimeout, the cluster's RPCTimeout.
func TestReadyzBounds(t *testing.T) {
	var mu sync.Mutex
	bounds := map[string]time.Duration{}
	record := func(name string, next func(context.Context) error) func(context.Context) error {
		return func(ctx context.Context) error {
			deadline, _ := ctx.Deadline()
			mu.Lock()
			bounds[name] = time.Until(deadline)
			mu.Unlock()
			if next == nil {
				return nil
			}
			return next(ctx)
		}
	}
	e := newEnv(t, withDeps(func(d *server.Deps) {
		d.DBTimeout, d.RPCTimeout = 1500*time.Millisecond, 4*time.Second
		d.Ping, d.Cluster = record("database", d.Ping), record("cluster", nil)
	}))
	e.rest("GET", "/readyz", noCred(), nil).status(200)
	mu.Lock()
	defer mu.Unlock()
	for name, want := range map[string]time.Duration{"database": 1500 * time.Millisecond, "cluster": 4 * time.Second} {
		if got := bounds[name]; got > want || got <= want-time.Second { // a second for a busy machine to start the check
			t.Errorf("%s check bounded at %v, want %v", name, got, want)
		}
	}
}
