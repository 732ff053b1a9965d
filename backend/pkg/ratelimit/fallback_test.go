package ratelimit

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit/redistest"
	"github.com/reclaim-sol/reclaim/backend/telemetry/telemetrytest"
)

// countingErrors counts a limiter's failures, as telemetry's wrapper does
// for reclaim_rate_limiter_errors_total.
type countingErrors struct {
	next Limiter
	n    atomic.Int64
}

func (c *countingErrors) Allow(ctx context.Context, key string) (Result, error) {
	res, err := c.next.Allow(ctx, key)
	if err != nil {
		c.n.Add(1)
	}
	return res, err
}

func (c *countingErrors) Take(ctx context.Context, buckets []Bucket) ([]Result, error) {
	res, err := c.next.Take(ctx, buckets)
	if err != nil {
		c.n.Add(1)
	}
	return res, err
}

// With Redis stopped, the limits hold per instance in memory and the
// outage is logged once however many requests meet it; once Redis is back
// the buckets are shared again, and that is logged once.
func TestFallbackRidesOutRedisOutage(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "redis.sock")
	srv := redistest.Start(t, socket)
	client := redis.NewClient(&redis.Options{Network: "unix", Addr: socket, MaxRetries: -1, DialerRetries: 1,
		DialTimeout: time.Second, ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	var logs telemetrytest.Logs
	clock := newFakeClock()
	breaker := NewBreaker(slog.New(slog.NewTextHandler(&logs, nil)), WithBreakerClock(clock.Now))
	const burst = 3
	primary := &countingErrors{next: NewRedis(client, 0.001, burst)}
	l := NewFallback(primary, NewMemory(0.001, burst, WithClock(clock.Now)), breaker)
	ctx := context.Background()
	const down, up = "Redis does not answer", "Redis answers again"

	if got := mustAllow(t, l, ctx, "key:a"); !got.Allowed || client.Exists(ctx, DefaultPrefix+"key:a").Val() != 1 {
		t.Fatalf("with Redis up: %+v, want allowed and decided in Redis", got)
	}

	srv.Stop(t)
	for i := range burst {
		if got := mustAllow(t, l, ctx, "key:b"); !got.Allowed || got.Remaining != burst-1-i {
			t.Fatalf("Redis down, request %d: %+v, want allowed from the memory bucket", i+1, got)
		}
	}
	for i := range 50 {
		if got := mustAllow(t, l, ctx, "key:b"); got.Allowed || got.RetryAfter <= 0 {
			t.Fatalf("Redis down, request %d past the burst: %+v, want refused", burst+i+1, got)
		}
	}
	if !breaker.Open() || logs.Count(down) != 1 || logs.Count(up) != 0 || primary.n.Load() != 1 {
		t.Fatalf("after 53 requests without Redis: open %v, %d outage lines, %d recovery lines, %d errors; want open, 1, 0, 1\n%s",
			breaker.Open(), logs.Count(down), logs.Count(up), primary.n.Load(), logs.String())
	}
	// Each retry interval one request tries Redis again; the failure counts
	// and logs nothing more.
	clock.Advance(DefaultRetry)
	mustAllow(t, l, ctx, "key:c")
	mustAllow(t, l, ctx, "key:c")
	if primary.n.Load() != 2 || logs.Count(down) != 1 {
		t.Fatalf("after a failed retry: %d errors, %d outage lines; want 2, 1", primary.n.Load(), logs.Count(down))
	}

	redistest.Start(t, socket)
	clock.Advance(DefaultRetry)
	if got := mustAllow(t, l, ctx, "key:d"); !got.Allowed || breaker.Open() {
		t.Fatalf("Redis back: %+v, open %v", got, breaker.Open())
	}
	if client.Exists(ctx, DefaultPrefix+"key:d").Val() != 1 || logs.Count(up) != 1 || logs.Count(down) != 1 {
		t.Fatalf("Redis back: key in Redis %v, %d recovery lines, %d outage lines; want decided in Redis, 1, 1\n%s",
			client.Exists(ctx, DefaultPrefix+"key:d").Val(), logs.Count(up), logs.Count(down), logs.String())
	}
	for range 10 {
		mustAllow(t, l, ctx, "key:e")
	}
	if logs.Count(up) != 1 || primary.n.Load() != 2 {
		t.Fatalf("after recovery: %d recovery lines, %d errors; want 1, 2", logs.Count(up), primary.n.Load())
	}
}

// A request its caller gave up on is not an outage.
func TestFallbackIgnoresCancelledCalls(t *testing.T) {
	var logs telemetrytest.Logs
	breaker := NewBreaker(slog.New(slog.NewTextHandler(&logs, nil)))
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = down.Close() })
	l := NewFallback(NewRedis(down, 1, 1), NewMemory(1, 1), breaker)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Allow(ctx, "key:a"); err != nil {
		t.Fatal(err)
	}
	if breaker.Open() || logs.Count("Redis") != 0 {
		t.Fatalf("a cancelled call opened the breaker: %s", logs.String())
	}
}
