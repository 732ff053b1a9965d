package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
	"github.com/reclaim-sol/reclaim/backend/telemetry"
)

// limiters are the API's rate limiters: the projects' and wallets' buckets
// (server.Deps.Limiter, each bucket sized by its project's quota) and the
// client addresses' (IPLimiter, of ipLimits).
type limiters struct {
	keys, ips ratelimit.Limiter
	ipLimits  ratelimit.Limits
	close     func() error
}

// newLimiters keeps the buckets in this process or, with REDIS_URL, in
// Redis, shared by every instance. While Redis does not answer, each
// instance limits alone in its memory (ratelimit.Fallback), which it logs
// once when the outage starts and once when it ends; the metrics count
// every failed Redis call and every refusal, whichever bucket refused.
func newLimiters(cfg config.Config, log *slog.Logger, m *telemetry.Metrics) (limiters, error) {
	ipRPS, ipBurst := cfg.IPRateLimit()
	l := limiters{
		keys:     m.Limiter(ratelimit.NewMemory(cfg.RateLimitRPS, cfg.RateLimitBurst)),
		ips:      m.Limiter(ratelimit.NewMemory(ipRPS, ipBurst)),
		ipLimits: ratelimit.Limits{RPS: ipRPS, Burst: ipBurst},
		close:    func() error { return nil },
	}
	if cfg.RedisURL == "" {
		return l, nil
	}
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return limiters{}, fmt.Errorf("REDIS_URL: %w", redact.Error(err))
	}
	// Short timeouts and one retry: while Redis is down the breaker sends
	// one request a second to it, and that request should not wait long.
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = time.Second, 500*time.Millisecond, 500*time.Millisecond
	opt.MaxRetries, opt.DialerRetries = 1, 1
	rc := redis.NewClient(opt)
	// go-redis logs each failed dial itself; the breaker's two lines say
	// what an operator needs, so those go to debug.
	redis.SetLogger(redisLog{log})
	b := ratelimit.NewBreaker(log)
	l.keys = ratelimit.NewFallback(m.Limiter(ratelimit.NewRedis(rc, cfg.RateLimitRPS, cfg.RateLimitBurst)), l.keys, b)
	l.ips = ratelimit.NewFallback(m.Limiter(ratelimit.NewRedis(rc, ipRPS, ipBurst)), l.ips, b)
	l.close = rc.Close
	return l, nil
}

// redisLog is go-redis's logger, at debug level, URLs cut to their host.
type redisLog struct{ log *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.log.DebugContext(ctx, redact.String(fmt.Sprintf(format, v...)))
}
