package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/server/gateway"
)

// Probes: GET /healthz answers 200 while the process serves (liveness: a
// database outage must not get every instance restarted); GET /readyz
// answers 200 when the database answers and can write and the cluster
// answers, and 503 while draining or when either does not (readiness: take
// the instance out of the load balancer). The gRPC health service reports
// the same readiness.
//
// Each check is as patient as the requests that need the dependency: the
// database's as DBTimeout (a request's database work), the cluster's as
// RPCTimeout (a build's wait for one cluster call; listings and stream
// steps, several calls, get twice that). A shorter bound took every
// instance out of the balancer while requests still succeeded. A load
// balancer's check timeout must exceed the longest (deploy/haproxy).
const (
	// readyFresh is how long a readiness result is reused: however many
	// probes and health checks arrive, the database and the cluster are
	// asked at most once a second.
	readyFresh = time.Second
	// defaultDBCheck and defaultClusterCheck bound the checks when Deps
	// leave DBTimeout or RPCTimeout zero: the service's defaults.
	defaultDBCheck      = 5 * time.Second
	defaultClusterCheck = 3 * time.Second
)

// readiness checks the dependencies a request needs.
type readiness struct {
	life   *gateway.Lifecycle
	log    *slog.Logger
	checks []dependency

	mu      sync.Mutex
	at      time.Time
	results map[string]string
	ok      bool
}

// dependency is one thing /readyz checks, within timeout.
type dependency struct {
	name    string
	check   func(context.Context) error
	timeout time.Duration
}

func newReadiness(d Deps) *readiness {
	r := &readiness{life: d.Lifecycle, log: d.Log}
	or := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	if d.Ping != nil {
		r.checks = append(r.checks, dependency{"database", d.Ping, or(d.DBTimeout, defaultDBCheck)})
	}
	if d.Cluster != nil {
		r.checks = append(r.checks, dependency{"cluster", d.Cluster, or(d.RPCTimeout, defaultClusterCheck)})
	}
	return r
}

// ready reports whether the server should get requests, and each
// dependency's state: "ok", "full" or "read_only" (a database that cannot
// write), or "unavailable"; never an error's text, which may name an
// endpoint's URL. A dependency's change to a failing state is logged.
func (r *readiness) ready(ctx context.Context) (bool, map[string]string) {
	if r.life.Draining() {
		return false, map[string]string{"status": "draining"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.at) < readyFresh && r.results != nil {
		return r.ok, r.results
	}
	ctx = context.WithoutCancel(ctx)
	errs := make([]error, len(r.checks))
	var wg sync.WaitGroup
	for i, c := range r.checks {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, c.timeout)
			defer cancel()
			errs[i] = c.check(ctx)
		})
	}
	wg.Wait()
	results, ok := map[string]string{}, true
	for i, c := range r.checks {
		state := stateOf(errs[i])
		results[c.name] = state
		if state != "ok" {
			ok = false
			if r.results[c.name] != state {
				r.log.WarnContext(ctx, "readiness: dependency not ready", "dependency", c.name, "state", state, "err", errs[i])
			}
		}
	}
	r.at, r.results, r.ok = time.Now(), results, ok
	return ok, results
}

// stateOf is a check's result as /readyz names it.
func stateOf(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ledger.ErrStorageFull):
		return "full"
	case errors.Is(err, ledger.ErrReadOnly):
		return "read_only"
	}
	return "unavailable"
}

// healthz is liveness: the process serves.
func healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

// readyz is readiness: {"status": "ok", "checks": {"database": "ok",
// "cluster": "ok"}}, or 503 with "unavailable" (and the checks, the
// database's "full" or "read_only" when it cannot write) or "draining".
func (r *readiness) readyz(w http.ResponseWriter, req *http.Request) {
	ok, checks := r.ready(req.Context())
	if r.life.Draining() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "draining"})
		return
	}
	status, code := "ok", http.StatusOK
	if !ok {
		status, code = "unavailable", http.StatusServiceUnavailable
	}
	writeJSON(w, code, map[string]any{"status": status, "checks": checks})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
