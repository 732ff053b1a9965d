package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// runTakeSuite runs the behaviour every Taker must have.
func runTakeSuite(t *testing.T, tg target) {
	t.Run("take all or nothing", func(t *testing.T) {
		t.Parallel()
		testTakeAllOrNothing(t, tg)
	})
	t.Run("take with each bucket's limits", func(t *testing.T) {
		t.Parallel()
		testTakeOwnLimits(t, tg)
	})
	t.Run("concurrent takes share the project exactly", func(t *testing.T) {
		t.Parallel()
		testTakeConcurrent(t, tg)
	})
	t.Run("take refuses bad limits", func(t *testing.T) {
		t.Parallel()
		l := tg.newLimiter(t, 1, 1)
		for _, bs := range [][]Bucket{nil, {{Key: "p:{a}", Limits: Limits{RPS: 0, Burst: 1}}}, {{Key: "p:{a}", Limits: Limits{RPS: 1, Burst: 0}}}} {
			if _, err := l.Take(context.Background(), bs); err == nil {
				t.Errorf("Take(%v) did not fail", bs)
			}
		}
	})
}

// mustTake takes from a wallet's bucket and its project's.
func mustTake(t *testing.T, l Limiter, buckets ...Bucket) []Result {
	t.Helper()
	res, err := l.Take(context.Background(), buckets)
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	if len(res) != len(buckets) {
		t.Fatalf("Take returned %d results for %d buckets", len(res), len(buckets))
	}
	return res
}

// A wallet's refusal spends nothing of the project's bucket, and a
// project's refusal nothing of the wallet's.
func testTakeAllOrNothing(t *testing.T, tg target) {
	l := tg.newLimiter(t, 1, 1)
	slow := 0.001 // nothing refills while the test runs
	project := Bucket{Key: "p:{prj}", Limits: Limits{RPS: slow, Burst: 5}}
	walletA := Bucket{Key: "w:{prj}:A", Limits: Limits{RPS: slow, Burst: 2}}
	walletB := Bucket{Key: "w:{prj}:B", Limits: Limits{RPS: slow, Burst: 10}}
	for i := range 2 {
		res := mustTake(t, l, walletA, project)
		if ok, _ := Allowed(res); !ok || res[0].Remaining != 1-i || res[1].Remaining != 4-i {
			t.Fatalf("take %d: %+v", i+1, res)
		}
	}
	for i := range 3 {
		res := mustTake(t, l, walletA, project)
		ok, which := Allowed(res)
		if ok || which != 0 || res[0].Remaining != 0 || res[0].RetryAfter <= 0 {
			t.Fatalf("refused take %d: %+v, want the wallet's refusal", i+1, res)
		}
		// The project's bucket still holds its 3 tokens: the refusal took none.
		if !res[1].Allowed || res[1].Remaining != 3 || res[1].RetryAfter != 0 {
			t.Fatalf("refused take %d: project %+v, want 3 left and untouched", i+1, res[1])
		}
	}
	for i := range 3 {
		res := mustTake(t, l, walletB, project)
		if ok, _ := Allowed(res); !ok || res[1].Remaining != 2-i {
			t.Fatalf("wallet B take %d: %+v", i+1, res)
		}
	}
	res := mustTake(t, l, walletB, project)
	if ok, which := Allowed(res); ok || which != 1 || !res[0].Allowed || res[0].Remaining != 7 {
		t.Fatalf("take past the project's quota: %+v, want the project's refusal and wallet B untouched at 7", res)
	}
}

// Each bucket keeps the limits the request gives it, whatever the
// limiter's own.
func testTakeOwnLimits(t *testing.T, tg target) {
	l := tg.newLimiter(t, 1000, 1000)
	big := Bucket{Key: "p:{big}", Limits: Limits{RPS: 0.001, Burst: 7}}
	for i := range 7 {
		if res := mustTake(t, l, big); !res[0].Allowed || res[0].Limit != 7 || res[0].Remaining != 6-i {
			t.Fatalf("take %d: %+v", i+1, res)
		}
	}
	if res := mustTake(t, l, big); res[0].Allowed {
		t.Fatalf("take past burst 7 allowed: %+v", res)
	}
	// A raised quota applies to the same bucket at once.
	big.Limits.Burst = 9
	for i := range 2 {
		if res := mustTake(t, l, big); !res[0].Allowed || res[0].Limit != 9 {
			t.Fatalf("take %d after the raise: %+v", i+1, res)
		}
	}
	if res := mustTake(t, l, big); res[0].Allowed {
		t.Fatalf("take past burst 9 allowed: %+v", res)
	}
}

// Many wallets of one project taking at once get exactly the project's
// burst in all, and no wallet more than its own.
func testTakeConcurrent(t *testing.T, tg target) {
	const (
		wallets = 8
		perW    = 12
		wBurst  = 5
		pBurst  = 30
	)
	l := tg.newLimiter(t, 1, 1)
	var (
		allowed  atomic.Int64
		perWOK   [wallets]atomic.Int64
		wg       sync.WaitGroup
		project  = Bucket{Key: "p:{c}", Limits: Limits{RPS: 0.001, Burst: pBurst}}
		failures atomic.Int64
	)
	for w := range wallets {
		wallet := Bucket{Key: fmt.Sprintf("w:{c}:%d", w), Limits: Limits{RPS: 0.001, Burst: wBurst}}
		for range 2 {
			wg.Go(func() {
				for range perW / 2 {
					res, err := l.Take(context.Background(), []Bucket{wallet, project})
					if err != nil {
						failures.Add(1)
						return
					}
					if ok, _ := Allowed(res); ok {
						allowed.Add(1)
						perWOK[w].Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	if failures.Load() > 0 {
		t.Fatalf("%d takes failed", failures.Load())
	}
	if got := allowed.Load(); got != pBurst {
		t.Errorf("allowed %d takes in all, want the project's burst %d", got, pBurst)
	}
	for w := range wallets {
		if got := perWOK[w].Load(); got > wBurst {
			t.Errorf("wallet %d allowed %d takes, more than its burst %d", w, got, wBurst)
		}
	}
}

// The Results a take reports refill as the clock moves: Next is the time
// until one more token, and a refused bucket's RetryAfter is its Next.
func TestMemoryTakeNext(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := NewMemory(1, 1, WithClock(clock.Now))
	b := Bucket{Key: "p:{n}", Limits: Limits{RPS: 2, Burst: 2}} // a token each 500 ms
	res := mustTake(t, l, b)
	if res[0].Remaining != 1 || res[0].Next != 500*time.Millisecond {
		t.Fatalf("first take: %+v", res[0])
	}
	clock.Advance(200 * time.Millisecond)
	res = mustTake(t, l, b)
	if res[0].Remaining != 0 || res[0].Next != 300*time.Millisecond {
		t.Fatalf("second take: %+v", res[0])
	}
	res = mustTake(t, l, b)
	if res[0].Allowed || res[0].RetryAfter != 300*time.Millisecond || res[0].Next != res[0].RetryAfter {
		t.Fatalf("refused take: %+v", res[0])
	}
	clock.Advance(time.Second)
	if res = mustTake(t, l, b); res[0].Remaining != 1 {
		t.Fatalf("take after refill: %+v", res[0])
	}
}

// BenchmarkMemoryTake measures a session's take (its wallet's share and
// its project's quota) from parallel callers over many wallets of a few
// projects, with the real clock, as the server calls it.
func BenchmarkMemoryTake(b *testing.B) {
	benchTake(b, NewMemory(100, 20))
}

func benchTake(b *testing.B, l Limiter) {
	const nWallets = 1 << 14
	buckets := make([][]Bucket, nWallets)
	for i := range buckets {
		prj := fmt.Sprintf("prj_%d", i%16)
		buckets[i] = []Bucket{
			{Key: fmt.Sprintf("w:{%s}:%d", prj, i), Limits: Limits{RPS: 10, Burst: 20}},
			{Key: "p:{" + prj + "}", Limits: Limits{RPS: 1e5, Burst: 1e5}},
		}
	}
	var next atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := next.Add(1) * 7919
		ctx := context.Background()
		for pb.Next() {
			i++
			if _, err := l.Take(ctx, buckets[i%nWallets]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
