package telemetry

import (
	"context"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
)

// Limiter wraps l to count its refusals by bucket kind, and its failures.
func (m *Metrics) Limiter(l ratelimit.Limiter) ratelimit.Limiter {
	if m == nil {
		return l
	}
	return &countingLimiter{next: l, m: m}
}

type countingLimiter struct {
	next ratelimit.Limiter
	m    *Metrics
}

func (c *countingLimiter) Allow(ctx context.Context, key string) (ratelimit.Result, error) {
	res, err := c.next.Allow(ctx, key)
	switch {
	case err != nil:
		c.m.limiterFails.Inc()
	case !res.Allowed:
		c.m.rateLimited.WithLabelValues(bucketKind(key)).Inc()
	}
	return res, err
}

func (c *countingLimiter) Take(ctx context.Context, buckets []ratelimit.Bucket) ([]ratelimit.Result, error) {
	res, err := c.next.Take(ctx, buckets)
	if err != nil {
		c.m.limiterFails.Inc()
		return res, err
	}
	if ok, i := ratelimit.Allowed(res); !ok {
		c.m.rateLimited.WithLabelValues(bucketKind(buckets[i].Key)).Inc()
	}
	return res, nil
}

// bucketKind names a rate-limit key's kind by its prefix (see
// backend/pkg/ratelimit): never the key itself, which identifies a caller.
func bucketKind(key string) string {
	prefix, _, _ := strings.Cut(key, ":")
	switch prefix {
	case "ip":
		return "ip"
	case "p":
		return "project"
	case "w":
		return "wallet"
	}
	return "other"
}
