package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Probes: GET /healthz answers 200 while the process serves (liveness: a
// database outage must not get every instance restarted); GET /readyz
// answers 200 when the database and the cluster answer, and 503 while
// draining or when either does not (readiness: take the instance out of the
// load balancer). The gRPC health service reports the same readiness.
const (
	// readyTimeout bounds one readiness check (its checks run together).
	readyTimeout = 2 * time.Second
	// readyFresh is how long a readiness result is reused: however many
	// probes and health checks arrive, the database and the cluster are
	// asked at most once a second.
	readyFresh = time.Second
)

// readiness checks the dependencies a request needs.
type readiness struct {
	life   *Lifecycle
	log    *slog.Logger
	checks []dependency

	mu      sync.Mutex
	at      time.Time
	results map[string]string
	ok      bool
}

// dependency is one thing /readyz checks.
type dependency struct {
	name  string
	check func(context.Context) error
}

func newReadiness(d Deps) *readiness {
	r := &readiness{life: d.Lifecycle, log: d.Log}
	if d.Ping != nil {
		r.checks = append(r.checks, dependency{"database", d.Ping})
	}
	if d.Cluster != nil {
		r.checks = append(r.checks, dependency{"cluster", d.Cluster})
	}
	return r
}

// ready reports whether the server should get requests, and each
// dependency's state ("ok" or "unavailable": never an error's text, which
// may name an endpoint's URL). The first failure of a dependency is logged.
func (r *readiness) ready(ctx context.Context) (bool, map[string]string) {
	if r.life.Draining() {
		return false, map[string]string{"status": "draining"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.at) < readyFresh && r.results != nil {
		return r.ok, r.results
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readyTimeout)
	defer cancel()
	errs := make([]error, len(r.checks))
	var wg sync.WaitGroup
	for i, c := range r.checks {
		wg.Go(func() { errs[i] = c.check(ctx) })
	}
	wg.Wait()
	results, ok := map[string]string{}, true
	for i, c := range r.checks {
		results[c.name] = "ok"
		if errs[i] != nil {
			results[c.name], ok = "unavailable", false
			if r.results[c.name] != "unavailable" {
				r.log.WarnContext(ctx, "readiness: dependency unavailable", "dependency", c.name, "err", errs[i])
			}
		}
	}
	r.at, r.results, r.ok = time.Now(), results, ok
	return ok, results
}

// healthz is liveness: the process serves.
func healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

// readyz is readiness: {"status": "ok", "checks": {"database": "ok",
// "cluster": "ok"}}, or 503 with "unavailable" (and the failing checks) or
// "draining".
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
