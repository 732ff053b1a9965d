// Package ratelimit holds the token buckets that guard the API: one per
// client address, which every request spends from before its credentials
// are checked (Allow, with the limiter's own limits), and the buckets an
// authenticated request spends from together (Take, each bucket with its
// own limits: a project's quota and a wallet's share of it), all or
// nothing.
//
// A bucket holds at most burst tokens and refills at rps tokens per second;
// each request takes one token. The bucket is kept as a generic cell rate
// algorithm (GCRA) "theoretical arrival time": one integer per key, so the
// arithmetic is exact, and a key whose bucket has refilled completely needs no
// state at all. Both limiters use that property to bound their memory: Memory
// evicts full buckets in an amortised sweep, Redis gives every key a TTL that
// ends exactly when its bucket is full again.
//
// Three implementations satisfy Limiter:
//
//   - Memory keeps the buckets in this process. It is the default, and right
//     for a single instance.
//   - Redis keeps them in Redis, updated atomically by one Lua script that reads
//     the clock with TIME inside the script, so every instance sharing the
//     Redis shares one budget per key, whatever their own clocks say.
//   - Fallback asks Redis and, while Redis fails, Memory.
//
// Redis returns its errors (down, timeout, a cancelled context) as they are,
// never turned into a decision. Fallback turns them into one: while Redis
// does not answer, each instance decides alone with a Memory limiter, so an
// outage neither takes the API down nor leaves it without limits, and its
// Breaker logs the outage once, not per request, trying Redis again once a
// second. Give the Redis client short timeouts (or the context a deadline)
// so that a request meeting the outage costs milliseconds, not seconds.
//
// Keys may be derived from secrets. Nothing in this package logs them or puts
// them in errors; the server hashes credentials into keys anyway.
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Result is the decision for one request, with what the server needs for the
// X-RateLimit-Limit, X-RateLimit-Remaining and Retry-After headers.
type Result struct {
	// Allowed reports whether the request may proceed; it took one token.
	Allowed bool
	// Limit is the bucket's capacity (burst).
	Limit int
	// Remaining is the number of whole tokens left after this request.
	Remaining int
	// RetryAfter is zero when Allowed; otherwise it is the time until one
	// token is available again.
	RetryAfter time.Duration
	// Next is the time until the bucket holds one more whole token than
	// Remaining (zero when it is full): what the RateLimit header's t
	// says. Take sets it; Allow leaves it zero.
	Next time.Duration
}

// Limiter decides whether the request identified by key may proceed, with
// the limiter's own limits (Allow), or whether a request may spend from
// several buckets of their own limits (Take). Implementations are safe for
// concurrent use.
type Limiter interface {
	Allow(ctx context.Context, key string) (Result, error)
	Taker
}

var (
	_ Limiter = (*Memory)(nil)
	_ Limiter = (*Redis)(nil)
	_ Limiter = (*Fallback)(nil)
)

// gcra is one bucket's parameters in integer multiples of unit (nanoseconds
// for Memory, microseconds for Redis, whose Lua numbers are doubles):
// interval is the time one token takes to refill, capacity the time an empty
// bucket takes to fill (burst * interval).
type gcra struct {
	unit     time.Duration
	interval int64
	capacity int64
	burst    int
}

// newGCRA converts rps and burst into integer units of unit, panicking on
// parameters that describe no usable bucket, as time.NewTicker does: they
// are configuration mistakes, caught at startup.
func newGCRA(rps float64, burst int, unit time.Duration) gcra {
	if !(rps > 0) || math.IsInf(rps, 1) {
		panic(fmt.Sprintf("ratelimit: rps must be positive and finite, got %v", rps))
	}
	if burst < 1 {
		panic(fmt.Sprintf("ratelimit: burst must be at least 1, got %d", burst))
	}
	perToken := math.Round(float64(time.Second/unit) / rps)
	// Lua numbers are doubles: keep every value the Redis script sees exact.
	const maxExact = 1 << 53
	if perToken > maxExact/float64(burst) {
		panic(fmt.Sprintf("ratelimit: rps %v with burst %d overflows the bucket", rps, burst))
	}
	interval := max(int64(perToken), 1)
	return gcra{unit: unit, interval: interval, capacity: interval * int64(burst), burst: burst}
}

// decide applies one request at time now to a bucket whose theoretical
// arrival time is tat (zero or any time not after now: the bucket is full).
// It returns the tat to store: unchanged when the request is denied. The Lua
// script in redis.go is the same function; keep the two in step.
func (g gcra) decide(tat, now int64) (newTAT int64, res Result) {
	next := max(tat, now) + g.interval
	if wait := next - now - g.capacity; wait > 0 {
		return tat, Result{Limit: g.burst, RetryAfter: time.Duration(wait) * g.unit}
	}
	return next, Result{
		Allowed:   true,
		Limit:     g.burst,
		Remaining: int((g.capacity - (next - now)) / g.interval),
	}
}
