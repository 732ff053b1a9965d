package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// Limits is the size of a bucket: it refills at RPS tokens per second up to
// Burst tokens. The bounds are Check's.
type Limits struct {
	RPS   float64
	Burst int
}

// Bucket names one bucket and the size it has for this request. Two
// requests may name the same key with different limits (a project whose
// quota changed): the bucket keeps its state and applies the newer size.
type Bucket struct {
	Key    string
	Limits Limits
}

// MaxBuckets is the most buckets one Take may spend from.
const MaxBuckets = 4

// Taker spends from several buckets at once, each with its own limits:
// one token from each, or, when any of them has none, nothing from any.
type Taker interface {
	// Take returns one Result per bucket, in order. A Result's Allowed
	// tells whether that bucket had a token; the request may proceed only
	// when all did, and then each gave one (Remaining is what is left).
	// When any refused, no bucket gave anything (Remaining is what each
	// still holds), and a refusing bucket's RetryAfter is the time until
	// it has a token again. The keys must be distinct, at most
	// MaxBuckets, and their limits within Check's bounds.
	Take(ctx context.Context, buckets []Bucket) ([]Result, error)
}

// Allowed reports whether every bucket of a Take had a token, and if not,
// the index of the first that had none.
func Allowed(res []Result) (bool, int) {
	for i, r := range res {
		if !r.Allowed {
			return false, i
		}
	}
	return true, -1
}

// bucketGCRA converts l into a bucket's integer parameters, refusing what
// Check refuses (a Take's limits come from data, not from startup
// configuration, so they are errors here, not panics).
func bucketGCRA(l Limits, unit time.Duration) (gcra, error) {
	if err := Check(l.RPS, l.Burst); err != nil {
		return gcra{}, err
	}
	return newGCRA(l.RPS, l.Burst, unit), nil
}

// result is one bucket's Result after an all-or-nothing take: ahead is how
// far its theoretical arrival time is ahead of now once decided (after the
// take when took, as it was otherwise). The Lua script in redis.go returns
// ahead for each bucket, so both limiters report alike.
func (g gcra) result(ahead int64, took bool) Result {
	avail := g.capacity - ahead
	remaining := int(avail / g.interval)
	r := Result{Allowed: took || remaining >= 1, Limit: g.burst, Remaining: remaining}
	if remaining < g.burst {
		r.Next = time.Duration((int64(remaining)+1)*g.interval-avail) * g.unit
	}
	if !r.Allowed {
		r.RetryAfter = r.Next
	}
	return r
}

func errBuckets(n int) error {
	return fmt.Errorf("ratelimit: a take spends from 1 to %d buckets, got %d", MaxBuckets, n)
}
