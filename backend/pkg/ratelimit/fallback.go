package ratelimit

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// DefaultRetry is how often an open Breaker lets one request try Redis again.
const DefaultRetry = time.Second

// Breaker is the state of a shared store of buckets (Redis) as the
// Fallbacks over it see it: closed while it answers, open from the first
// call that fails. While it is open the Fallbacks decide in memory, and one
// call per retry interval tries the store again; the first that succeeds
// closes it. It logs once when it opens and once when it closes, so an
// outage costs two log lines, not one per request. Every Fallback over one
// Redis client shares one Breaker.
type Breaker struct {
	log   *slog.Logger
	now   func() time.Time
	retry time.Duration

	open    atomic.Bool
	probeAt atomic.Int64 // unix nanoseconds: when an open breaker lets one call through
}

// BreakerOption configures NewBreaker.
type BreakerOption func(*Breaker)

// WithRetry sets how often an open breaker lets a call try the store
// (DefaultRetry otherwise).
func WithRetry(d time.Duration) BreakerOption { return func(b *Breaker) { b.retry = d } }

// WithBreakerClock makes the breaker read time from now instead of time.Now.
func WithBreakerClock(now func() time.Time) BreakerOption { return func(b *Breaker) { b.now = now } }

// NewBreaker returns a closed Breaker that logs its changes to log.
func NewBreaker(log *slog.Logger, opts ...BreakerOption) *Breaker {
	b := &Breaker{log: log, now: time.Now, retry: DefaultRetry}
	for _, opt := range opts {
		opt(b)
	}
	return b
}

// Open reports whether the store is taken for down.
func (b *Breaker) Open() bool { return b.open.Load() }

// try tells whether a call may go to the store, and whether it is the one
// probe of an open breaker.
func (b *Breaker) try() (ok, probe bool) {
	if !b.open.Load() {
		return true, false
	}
	now := b.now().UnixNano()
	at := b.probeAt.Load()
	if now < at || !b.probeAt.CompareAndSwap(at, now+int64(b.retry)) {
		return false, false
	}
	return true, true
}

// failed opens the breaker; only the call that opens it logs.
func (b *Breaker) failed(ctx context.Context, err error) {
	b.probeAt.Store(b.now().UnixNano() + int64(b.retry))
	if b.open.CompareAndSwap(false, true) {
		b.log.WarnContext(ctx, "rate limiter: Redis does not answer; each instance limits alone, in memory, until it does", "err", err)
	}
}

// recovered closes the breaker after a successful probe.
func (b *Breaker) recovered(ctx context.Context) {
	if b.open.CompareAndSwap(true, false) {
		b.log.InfoContext(ctx, "rate limiter: Redis answers again; the instances share their limits again")
	}
}

// Fallback is a Limiter that decides with primary (Redis) while its Breaker
// is closed, and with fallback (Memory, this instance alone) while the
// primary fails, so that an outage of Redis neither stops the API nor
// leaves it without limits. Its Allow never fails while fallback does not.
type Fallback struct {
	primary, fallback Limiter
	b                 *Breaker
}

// NewFallback returns a Limiter over primary and fallback; b is shared by
// every Fallback whose primary uses the same store.
func NewFallback(primary, fallback Limiter, b *Breaker) *Fallback {
	return &Fallback{primary: primary, fallback: fallback, b: b}
}

// Allow decides with the primary when it may and it answers, otherwise
// with the fallback. A call given up by its caller (a cancelled context) is
// not the store's failure.
func (f *Fallback) Allow(ctx context.Context, key string) (Result, error) {
	return fallBack(ctx, f.b, func(l Limiter) (Result, error) { return l.Allow(ctx, key) }, f.primary, f.fallback)
}

// Take is Allow's rule for a Take: the primary while it answers, else
// the fallback.
func (f *Fallback) Take(ctx context.Context, buckets []Bucket) ([]Result, error) {
	return fallBack(ctx, f.b, func(l Limiter) ([]Result, error) { return l.Take(ctx, buckets) }, f.primary, f.fallback)
}

// fallBack asks primary through ask when the breaker lets it and it
// answers, otherwise fallback. A call given up by its caller (a cancelled
// context) is not the store's failure.
func fallBack[T any](ctx context.Context, b *Breaker, ask func(Limiter) (T, error), primary, fallback Limiter) (T, error) {
	ok, probe := b.try()
	if !ok {
		return ask(fallback)
	}
	res, err := ask(primary)
	switch {
	case err == nil:
		if probe {
			b.recovered(ctx)
		}
		return res, nil
	case ctx.Err() == nil:
		b.failed(ctx, err)
	}
	return ask(fallback)
}
