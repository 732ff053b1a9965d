package ratelimit

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
)

func newFakeClock() *clocktest.Clock {
	return clocktest.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

func TestMemorySuite(t *testing.T) {
	t.Parallel()
	runSuite(t, target{
		newLimiter: func(_ *testing.T, rps float64, burst int) Limiter {
			return NewMemory(rps, burst, WithClock(newFakeClock().Now))
		},
		frozen: true,
	})
}

func TestMemoryRefill(t *testing.T) {
	t.Parallel()
	type step struct {
		advance time.Duration // before the request
		want    Result
	}
	allowed := func(remaining int) Result {
		return Result{Allowed: true, Limit: 3, Remaining: remaining}
	}
	denied := func(retry time.Duration) Result {
		return Result{Limit: 3, RetryAfter: retry}
	}
	// 2 tokens per second (one every 500ms), burst 3.
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "partial refill gives one token", steps: []step{
			{0, allowed(2)}, {0, allowed(1)}, {0, allowed(0)},
			{0, denied(500 * time.Millisecond)},
			{200 * time.Millisecond, denied(300 * time.Millisecond)},
			{299 * time.Millisecond, denied(time.Millisecond)},
			{time.Millisecond, allowed(0)},
			{0, denied(500 * time.Millisecond)},
		}},
		{name: "refill accumulates between requests", steps: []step{
			{0, allowed(2)}, {0, allowed(1)}, {0, allowed(0)},
			{time.Second, allowed(1)},
			{250 * time.Millisecond, allowed(0)},
			{0, denied(250 * time.Millisecond)},
		}},
		{name: "refill stops at burst", steps: []step{
			{0, allowed(2)}, {0, allowed(1)}, {0, allowed(0)},
			{time.Hour, allowed(2)}, {0, allowed(1)}, {0, allowed(0)},
			{0, denied(500 * time.Millisecond)},
		}},
		{name: "denied requests take nothing", steps: []step{
			{0, allowed(2)}, {0, allowed(1)}, {0, allowed(0)},
			{0, denied(500 * time.Millisecond)},
			{0, denied(500 * time.Millisecond)},
			{100 * time.Millisecond, denied(400 * time.Millisecond)},
			{400 * time.Millisecond, allowed(0)},
		}},
		{name: "steady rate is always allowed", steps: []step{
			{0, allowed(2)},
			{500 * time.Millisecond, allowed(2)},
			{500 * time.Millisecond, allowed(2)},
			{400 * time.Millisecond, allowed(1)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			l := NewMemory(2, 3, WithClock(clock.Now))
			for i, s := range tt.steps {
				clock.Advance(s.advance)
				if got := mustAllow(t, l, context.Background(), "key:k1"); got != s.want {
					t.Fatalf("step %d (after +%v): got %+v, want %+v", i+1, s.advance, got, s.want)
				}
			}
		})
	}
}

func TestMemoryEviction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	// One token a second, burst 5: an empty bucket refills in 5s, so each
	// shard sweeps at most every 5s. One request leaves a bucket 1s from full.
	l := NewMemory(1, 5, WithClock(clock.Now))
	touch := func(batch, n int) {
		for i := range n {
			mustAllow(t, l, ctx, fmt.Sprintf("ip:%d.%d", batch, i))
		}
	}

	const n = 40_000 // 2n over 64 shards: each sweeps over 1,024 keys and rebuilds its map
	touch(0, n)
	if got := l.Len(); got != n {
		t.Fatalf("after first batch: Len = %d, want %d", got, n)
	}
	clock.Advance(4 * time.Second) // full, but no sweep is due yet
	// A throttled client must not be forgotten by the sweep: five requests
	// at 4s leave its bucket empty until 9s.
	for range 6 {
		mustAllow(t, l, ctx, "ip:hot")
	}
	touch(1, n)
	if got := l.Len(); got != 2*n+1 {
		t.Fatalf("before the sweep: Len = %d, want %d", got, 2*n+1)
	}
	clock.Advance(2 * time.Second) // every shard's sweep is due
	touch(2, n)
	if got := l.Len(); got != n+1 {
		t.Fatalf("after the sweep: Len = %d, want %d (third batch and ip:hot)", got, n+1)
	}
	// Two tokens have refilled since 4s: a forgotten bucket would show 4.
	want := Result{Allowed: true, Limit: 5, Remaining: 1}
	if got := mustAllow(t, l, ctx, "ip:hot"); got != want {
		t.Fatalf("ip:hot at 6s: got %+v, want %+v", got, want)
	}
}

func TestMemoryEvictionBoundsChurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	l := NewMemory(1, 5, WithClock(clock.Now))
	// 1,000 new keys a second for a minute. A key's bucket is full 1s after
	// its request, and gone by the next sweep of its shard, at most 5s later.
	const perSecond, bound = 1000, 7 * 1000
	for sec := range 60 {
		for i := range perSecond {
			mustAllow(t, l, ctx, fmt.Sprintf("ip:%d.%d", sec, i))
		}
		if got := l.Len(); got > bound {
			t.Fatalf("second %d: Len = %d, want at most %d", sec, got, bound)
		}
		clock.Advance(time.Second)
	}
}

func TestNewMemoryPanicsOnBadParameters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rps   float64
		burst int
	}{
		{name: "zero rps", rps: 0, burst: 1},
		{name: "negative rps", rps: -1, burst: 1},
		{name: "NaN rps", rps: math.NaN(), burst: 1},
		{name: "infinite rps", rps: math.Inf(1), burst: 1},
		{name: "zero burst", rps: 1, burst: 0},
		{name: "negative burst", rps: 1, burst: -3},
		{name: "bucket overflows", rps: 1e-9, burst: 1 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if recover() == nil {
					t.Errorf("NewMemory(%v, %d) did not panic", tt.rps, tt.burst)
				}
			}()
			NewMemory(tt.rps, tt.burst)
		})
	}
}

// BenchmarkMemoryAllow measures Allow from parallel callers over many client
// addresses with the real clock, as the server calls it.
func BenchmarkMemoryAllow(b *testing.B) {
	const nKeys = 1 << 16
	keys := make([]string, nKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("ip:10.%d.%d.%d", i>>16&0xff, i>>8&0xff, i&0xff)
	}
	l := NewMemory(100, 20)
	var next atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := next.Add(1) * 7919
		ctx := context.Background()
		for pb.Next() {
			i++
			if _, err := l.Allow(ctx, keys[i%nKeys]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
