package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit/redistest"
	"github.com/reclaim-sol/reclaim/backend/telemetry"
	"github.com/reclaim-sol/reclaim/backend/telemetry/telemetrytest"
)

// With REDIS_URL, serve's limiters share Redis; when Redis stops, both fall
// back to this instance's memory at once (one outage line in the log, at
// info level and above), and the metrics go on counting the failed Redis
// calls and the refusals.
func TestLimitersRideOutRedisOutage(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "redis.sock")
	srv := redistest.Start(t, socket)
	cfg := config.Default()
	cfg.RedisURL = "unix://" + socket
	cfg.RateLimitRPS, cfg.RateLimitBurst = 0.001, 2
	var out telemetrytest.Logs
	log, err := newLogger(&out, config.Operations{LogFormat: "json"})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	l, err := newLimiters(cfg, log, telemetry.NewMetrics(reg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.close() })
	ctx := context.Background()
	quota := ratelimit.Limits{RPS: cfg.RateLimitRPS, Burst: cfg.RateLimitBurst}
	take := func(key string) (ratelimit.Result, error) {
		res, err := l.keys.Take(ctx, []ratelimit.Bucket{{Key: key, Limits: quota}})
		if err != nil {
			return ratelimit.Result{}, err
		}
		return res[0], nil
	}
	if res, err := take("p:{k1}"); err != nil || !res.Allowed || res.Limit != 2 {
		t.Fatalf("project bucket with Redis: %+v %v", res, err)
	}
	if res, err := l.ips.Allow(ctx, "ip:192.0.2.1"); err != nil || !res.Allowed || res.Limit != 4 || l.ipLimits.Burst != 4 {
		t.Fatalf("address bucket with Redis: %+v %v, want twice the default quota's burst", res, err)
	}

	srv.Stop(t)
	refused := 0
	for range 10 {
		res, err := take("p:{k2}")
		if err != nil {
			t.Fatalf("with Redis down: %v", err)
		}
		if !res.Allowed {
			refused++
		}
		if _, err := l.ips.Allow(ctx, "ip:192.0.2.2"); err != nil {
			t.Fatalf("with Redis down: %v", err)
		}
	}
	if refused != 8 {
		t.Fatalf("with Redis down, %d of 10 refused; want 8: a burst of 2 in memory", refused)
	}
	if n := out.Count("Redis does not answer"); n != 1 {
		t.Fatalf("%d outage lines for one outage, want 1:\n%s", n, out.String())
	}
	if out.Count("\n") != 1 {
		t.Fatalf("log lines beyond the outage's:\n%s", out.String())
	}
	if m := telemetrytest.Series(t, reg, "reclaim_rate_limiter_errors_total", nil); m == nil || m.GetCounter().GetValue() < 1 {
		t.Fatalf("reclaim_rate_limiter_errors_total = %v, want the failed Redis call counted", m)
	}
	if m := telemetrytest.Series(t, reg, "reclaim_rate_limited_total", map[string]string{"bucket": "project"}); m == nil || m.GetCounter().GetValue() != 8 {
		t.Fatalf("reclaim_rate_limited_total{bucket=project} = %v, want 8", m)
	}
}
