package ratelimit

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// target is one Limiter implementation under the behavioural suite.
type target struct {
	// newLimiter returns a limiter whose keys no other limiter in the test
	// run sees.
	newLimiter func(t *testing.T, rps float64, burst int) Limiter
	// frozen reports that time stands still while a test runs, so durations
	// are exact; otherwise they are checked against the time the test took.
	frozen bool
}

// runSuite runs the behaviour every Limiter must have; time-dependent
// behaviour beyond it is tested per implementation.
func runSuite(t *testing.T, tg target) {
	t.Run("burst then deny", func(t *testing.T) {
		t.Parallel()
		testBurstThenDeny(t, tg)
	})
	t.Run("independent keys", func(t *testing.T) {
		t.Parallel()
		testIndependentKeys(t, tg)
	})
	t.Run("concurrent callers share exactly burst", func(t *testing.T) {
		t.Parallel()
		testConcurrent(t, tg)
	})
	runTakeSuite(t, tg)
}

func testBurstThenDeny(t *testing.T, tg target) {
	// Rates are low so that a real clock refills nothing while a case runs.
	tests := []struct {
		name     string
		rps      float64
		burst    int
		interval time.Duration // one token's refill time
	}{
		{name: "burst 1", rps: 1, burst: 1, interval: time.Second},
		{name: "burst 3 at 0.5 rps", rps: 0.5, burst: 3, interval: 2 * time.Second},
		{name: "burst 10 at 0.1 rps", rps: 0.1, burst: 10, interval: 10 * time.Second},
		{name: "fractional interval", rps: 3, burst: 2, interval: 333333333 * time.Nanosecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := tg.newLimiter(t, tt.rps, tt.burst)
			ctx := context.Background()
			start := time.Now()
			for i := range tt.burst {
				got := mustAllow(t, l, ctx, "key:k1")
				want := Result{Allowed: true, Limit: tt.burst, Remaining: tt.burst - 1 - i}
				if got != want {
					t.Fatalf("request %d: got %+v, want %+v", i+1, got, want)
				}
			}
			for i := range 2 {
				got := mustAllow(t, l, ctx, "key:k1")
				elapsed := time.Since(start)
				if got.Allowed || got.Limit != tt.burst || got.Remaining != 0 {
					t.Fatalf("denial %d: got %+v, want denied with Limit %d, Remaining 0", i+1, got, tt.burst)
				}
				checkRetryAfter(t, tg, got.RetryAfter, tt.interval, elapsed)
			}
		})
	}
}

// checkRetryAfter checks a denial's RetryAfter: exactly one token's refill
// time at a frozen clock, otherwise that less the time already elapsed (the
// server's clock ticks inside the test's; a microsecond covers rounding).
func checkRetryAfter(t *testing.T, tg target, got, interval, elapsed time.Duration) {
	t.Helper()
	if tg.frozen {
		if got != interval {
			t.Fatalf("RetryAfter = %v, want %v", got, interval)
		}
		return
	}
	if lo := interval - elapsed - time.Microsecond; got < lo || got > interval {
		t.Fatalf("RetryAfter = %v, want within [%v, %v]", got, lo, interval)
	}
}

func testIndependentKeys(t *testing.T, tg target) {
	const burst = 2
	l := tg.newLimiter(t, 0.01, burst)
	ctx := context.Background()
	for range burst + 1 {
		mustAllow(t, l, ctx, "ip:192.0.2.1")
	}
	tests := []struct {
		name string
		key  string
	}{
		{name: "other address", key: "ip:192.0.2.2"},
		{name: "same id, other kind", key: "key:192.0.2.1"},
		{name: "session", key: "sess:192.0.2.1"},
		{name: "prefix of the exhausted key", key: "ip:192.0.2."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range burst {
				got := mustAllow(t, l, ctx, tt.key)
				want := Result{Allowed: true, Limit: burst, Remaining: burst - 1 - i}
				if got != want {
					t.Fatalf("request %d: got %+v, want %+v", i+1, got, want)
				}
			}
			if got := mustAllow(t, l, ctx, tt.key); got.Allowed {
				t.Fatalf("request %d: got %+v, want denied", burst+1, got)
			}
		})
	}
	if got := mustAllow(t, l, ctx, "ip:192.0.2.1"); got.Allowed {
		t.Fatalf("exhausted key: got %+v, want still denied", got)
	}
}

func testConcurrent(t *testing.T, tg target) {
	const (
		goroutines = 16
		perG       = 8
		burst      = 50
	)
	l := tg.newLimiter(t, 0.001, burst)
	var (
		mu        sync.Mutex
		remaining = make(map[int]int) // Remaining value -> times seen on an allow
		denied    int
		wg        sync.WaitGroup
	)
	for range goroutines {
		wg.Go(func() {
			for range perG {
				res, err := l.Allow(context.Background(), "sess:shared")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if res.Allowed {
					remaining[res.Remaining]++
				} else {
					denied++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if want := goroutines*perG - burst; denied != want {
		t.Errorf("denied %d requests, want %d", denied, want)
	}
	// Every token is handed out exactly once: the allows saw Remaining
	// burst-1 down to 0, each once.
	for r := range burst {
		if remaining[r] != 1 {
			t.Errorf("Remaining %d seen %d times, want once", r, remaining[r])
		}
	}
	if len(remaining) != burst {
		t.Errorf("allows saw %d distinct Remaining values, want %d: %v", len(remaining), burst, remaining)
	}
}

func mustAllow(t *testing.T, l Limiter, ctx context.Context, key string) Result {
	t.Helper()
	res, err := l.Allow(ctx, key)
	if err != nil {
		t.Fatalf("Allow: %v", err)
	}
	return res
}

// Check accepts what the limiters keep and refuses, naming the bound, what
// would make them panic.
func TestCheckBounds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rps   float64
		burst int
		ok    bool
		says  string
	}{
		{20, 40, true, ""},
		{MaxRPS, MaxBurst, true, ""},
		{0.001, 1, true, ""},
		{10_000_000, 40, false, "at most 1000000"},
		{0, 40, false, "above 0"},
		{-1, 40, false, "above 0"},
		{math.NaN(), 40, false, "above 0"},
		{20, 0, false, "from 1 to 10000000"},
		{0.0000001, 40, false, "at least 4.44e-06 requests per second for a burst of 40"},
	} {
		err := Check(c.rps, c.burst)
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), c.says)) {
			t.Errorf("Check(%g, %d) = %v, want ok %t saying %q", c.rps, c.burst, err, c.ok, c.says)
			continue
		}
		for _, unit := range []time.Duration{time.Nanosecond, time.Microsecond} {
			func() {
				defer func() {
					if r := recover(); r != nil && c.ok {
						t.Errorf("Check(%g, %d) accepts what newGCRA refuses: %v", c.rps, c.burst, r)
					}
				}()
				newGCRA(c.rps, c.burst, unit)
			}()
		}
	}
}
