package ratelimit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testRedisClient connects to the Redis named by RECLAIM_TEST_REDIS_URL
// (eval "$(scripts/testredis.sh)" starts one). Without it the test is
// skipped, except in CI, where a skipped Redis suite would hide a broken
// limiter, so it fails.
func testRedisClient(tb testing.TB) *redis.Client {
	tb.Helper()
	url := os.Getenv("RECLAIM_TEST_REDIS_URL")
	if url == "" {
		const msg = `RECLAIM_TEST_REDIS_URL is not set; run eval "$(scripts/testredis.sh)" first`
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg + " (CI=true: the Redis limiter tests must run)")
		}
		tb.Skip(msg)
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatalf("RECLAIM_TEST_REDIS_URL: %v", err)
	}
	client := redis.NewClient(opts)
	tb.Cleanup(func() { _ = client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		tb.Fatalf("ping Redis at RECLAIM_TEST_REDIS_URL: %v", err)
	}
	return client
}

// testPrefix returns a key prefix no other test (or test run) uses, and
// deletes its keys when the test ends.
func testPrefix(tb testing.TB, client *redis.Client) string {
	prefix := "reclaim:rl:test:" + rand.Text() + ":"
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := client.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			client.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			tb.Errorf("clean up %s*: %v", prefix, err)
		}
	})
	return prefix
}

func TestRedisSuite(t *testing.T) {
	t.Parallel()
	client := testRedisClient(t)
	runSuite(t, target{
		newLimiter: func(t *testing.T, rps float64, burst int) Limiter {
			return NewRedis(client, rps, burst, WithPrefix(testPrefix(t, client)))
		},
	})
}

func TestRedisInstancesShareBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const burst = 4
	prefix := testPrefix(t, testRedisClient(t))
	// Separate clients stand for separate server instances.
	a := NewRedis(testRedisClient(t), 0.01, burst, WithPrefix(prefix))
	b := NewRedis(testRedisClient(t), 0.01, burst, WithPrefix(prefix))
	for i, l := range []*Redis{a, b, a, b} {
		got := mustAllow(t, l, ctx, "key:shared")
		want := Result{Allowed: true, Limit: burst, Remaining: burst - 1 - i}
		if got != want {
			t.Fatalf("request %d: got %+v, want %+v", i+1, got, want)
		}
	}
	for name, l := range map[string]*Redis{"a": a, "b": b} {
		if got := mustAllow(t, l, ctx, "key:shared"); got.Allowed {
			t.Errorf("instance %s after the shared burst: got %+v, want denied", name, got)
		}
	}
	other := NewRedis(testRedisClient(t), 0.01, burst, WithPrefix(testPrefix(t, testRedisClient(t))))
	if got := mustAllow(t, other, ctx, "key:shared"); !got.Allowed {
		t.Errorf("other prefix: got %+v, want its own budget", got)
	}
}

func TestRedisRefill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testRedisClient(t)
	prefix := testPrefix(t, client)
	// 50 tokens a second: one every 20ms, an empty bucket full in 60ms.
	const burst = 3
	l := NewRedis(client, 50, burst, WithPrefix(prefix))
	for range burst {
		mustAllow(t, l, ctx, "ip:refill")
	}
	deadline := time.Now().Add(5 * time.Second)

	// Waiting the RetryAfter a denial reports brings the next token.
	denials := 0
	for {
		res := mustAllow(t, l, ctx, "ip:refill")
		if res.Allowed {
			break
		}
		denials++
		if res.RetryAfter <= 0 || res.RetryAfter > 20*time.Millisecond {
			t.Fatalf("denial %d: RetryAfter = %v, want within (0, 20ms]", denials, res.RetryAfter)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no token within 5s of %d denials", denials)
		}
		time.Sleep(res.RetryAfter)
	}

	// Once the bucket is full again its key expires: full needs no state.
	for client.Exists(ctx, prefix+"ip:refill").Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatal("key still present 5s later; want it to expire once the bucket is full")
		}
		time.Sleep(5 * time.Millisecond)
	}
	want := Result{Allowed: true, Limit: burst, Remaining: burst - 1}
	if got := mustAllow(t, l, ctx, "ip:refill"); got != want {
		t.Fatalf("after full refill: got %+v, want %+v", got, want)
	}
}

func TestRedisKeyLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testRedisClient(t)
	prefix := testPrefix(t, client)
	// One token a second, burst 3: after one request the bucket is full
	// again within a second, and the key must not outlive that.
	l := NewRedis(client, 1, 3, WithPrefix(prefix))
	mustAllow(t, l, ctx, "sess:jti-1")
	ttl, err := client.PTTL(ctx, prefix+"sess:jti-1").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > time.Second {
		t.Errorf("PTTL = %v, want within (0, 1s]", ttl)
	}
	if got := NewRedis(client, 1, 3).prefix; got != DefaultPrefix {
		t.Errorf("default prefix = %q, want %q", got, DefaultPrefix)
	}
}

func TestRedisScriptCacheFlushed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testRedisClient(t)
	l := NewRedis(client, 0.01, 2, WithPrefix(testPrefix(t, client)))
	mustAllow(t, l, ctx, "key:flush")
	// Other tests' scripts fall back to EVAL just the same.
	if err := client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	want := Result{Allowed: true, Limit: 2, Remaining: 0}
	if got := mustAllow(t, l, ctx, "key:flush"); got != want {
		t.Fatalf("after SCRIPT FLUSH: got %+v, want %+v", got, want)
	}
}

// TestRedisErrors needs no Redis: it checks that failures reach the caller
// (who fails open) and that errors never carry the key.
func TestRedisErrors(t *testing.T) {
	t.Parallel()
	down := redis.NewClient(&redis.Options{
		Addr:        "127.0.0.1:1", // nothing listens on port 1
		DialTimeout: 200 * time.Millisecond,
		MaxRetries:  -1,
	})
	t.Cleanup(func() { _ = down.Close() })
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	const secretKey = "key:ak_live_secret"
	tests := []struct {
		name   string
		ctx    context.Context
		wantIs error // nil: any error
	}{
		{name: "redis down", ctx: context.Background()},
		{name: "context cancelled", ctx: cancelled, wantIs: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := NewRedis(down, 1, 1).Allow(tt.ctx, secretKey)
			if err == nil {
				t.Fatalf("got %+v and no error, want an error", res)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q contains the key", err)
			}
			if res != (Result{}) {
				t.Errorf("result with an error = %+v, want zero", res)
			}
		})
	}
}

// BenchmarkRedisAllow measures Allow from parallel callers over many keys,
// one script call (one round trip) each.
func BenchmarkRedisAllow(b *testing.B) {
	client := testRedisClient(b)
	l := NewRedis(client, 100, 20, WithPrefix(testPrefix(b, client)))
	const nKeys = 1 << 12
	keys := make([]string, nKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("ip:10.0.%d.%d", i>>8, i&0xff)
	}
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

// BenchmarkRedisTake measures a session's take (two buckets, one script
// call) from parallel callers over many wallets.
func BenchmarkRedisTake(b *testing.B) {
	client := testRedisClient(b)
	benchTake(b, NewRedis(client, 100, 20, WithPrefix(testPrefix(b, client))))
}
