package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultPrefix is the prefix NewRedis puts before every key unless told
// otherwise.
const DefaultPrefix = "reclaim:rl:"

// allowScript is gcra.decide in Lua, in microseconds (Lua numbers are doubles,
// exact to 2^53: microseconds since the epoch fit, nanoseconds do not).
// The clock is the Redis server's, read with TIME, so instances whose own
// clocks disagree still share one budget. Since Redis 5 scripts replicate
// their effects, so a non-deterministic TIME before a write is allowed; older
// servers need replicate_commands. The key lives exactly as long as its
// bucket is below full. Returns {allowed, remaining, retry after in µs}.
var allowScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local interval = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or 0
if tat < now then tat = now end
local nxt = tat + interval
local wait = nxt - now - capacity
if wait > 0 then
  return {0, 0, wait}
end
redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.ceil((nxt - now) / 1000))
return {1, math.floor((capacity - (nxt - now)) / interval), 0}
`)

// Redis is a Limiter that keeps its buckets in Redis, so that every instance
// sharing the Redis (and the key prefix) shares one budget per key.
type Redis struct {
	client redis.UniversalClient
	g      gcra
	prefix string
	args   []any // the script's ARGV, boxed once rather than per call
}

// RedisOption configures NewRedis.
type RedisOption func(*Redis)

// WithPrefix replaces DefaultPrefix, e.g. to keep two deployments, or two
// limiters with different rates, apart in one Redis.
func WithPrefix(prefix string) RedisOption {
	return func(r *Redis) { r.prefix = prefix }
}

// NewRedis returns a limiter granting rps tokens per second up to burst at
// once per key, kept in Redis through client. Instances sharing a prefix
// should share rps and burst too. It panics if rps is not positive and finite
// or burst is below 1.
func NewRedis(client redis.UniversalClient, rps float64, burst int, opts ...RedisOption) *Redis {
	r := &Redis{
		client: client,
		g:      newGCRA(rps, burst, time.Microsecond),
		prefix: DefaultPrefix,
	}
	for _, opt := range opts {
		opt(r)
	}
	r.args = []any{r.g.interval, r.g.capacity}
	return r
}

// Allow takes one token from key's bucket if there is one, in one atomic
// script (EVALSHA, falling back to EVAL when Redis has not cached it). Redis
// errors are returned for the caller to decide on; the error never contains
// the key.
func (r *Redis) Allow(ctx context.Context, key string) (Result, error) {
	vals, err := allowScript.Run(ctx, r.client, []string{r.prefix + key}, r.args...).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if len(vals) != 3 {
		return Result{}, fmt.Errorf("ratelimit: redis: script returned %d values, want 3", len(vals))
	}
	return Result{
		Allowed:    vals[0] == 1,
		Limit:      r.g.burst,
		Remaining:  int(vals[1]),
		RetryAfter: time.Duration(vals[2]) * r.g.unit,
	}, nil
}

// takeScript is Memory.Take in Lua, in microseconds: KEYS are the buckets,
// ARGV their interval and capacity in pairs. It reads every bucket, takes
// one token from each only when each has one, and returns {took, ahead of
// each bucket} (how far its arrival time is ahead of now once decided),
// from which gcra.result makes the Results, as Memory's do. Keep it in
// step with Memory.Take. In Redis Cluster the keys of one take must share a
// slot: the server names them with one hash tag, the project's.
var takeScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = #KEYS
local tats = {}
local took = 1
for i = 1, n do
  local tat = tonumber(redis.call('GET', KEYS[i])) or 0
  if tat < now then tat = now end
  if tat + tonumber(ARGV[2*i-1]) - now > tonumber(ARGV[2*i]) then took = 0 end
  tats[i] = tat
end
local out = {took}
for i = 1, n do
  local tat = tats[i]
  if took == 1 then
    tat = tat + tonumber(ARGV[2*i-1])
    redis.call('SET', KEYS[i], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000))
  end
  out[i+1] = tat - now
end
return out
`)

// Take spends one token from each bucket, or none from any (Taker), in one
// atomic script; errors as Allow's.
func (r *Redis) Take(ctx context.Context, buckets []Bucket) ([]Result, error) {
	n := len(buckets)
	if n == 0 || n > MaxBuckets {
		return nil, errBuckets(n)
	}
	var gs [MaxBuckets]gcra
	keys := make([]string, n)
	args := make([]any, 0, 2*n)
	for i, b := range buckets {
		g, err := bucketGCRA(b.Limits, time.Microsecond)
		if err != nil {
			return nil, err
		}
		gs[i] = g
		keys[i] = r.prefix + b.Key
		args = append(args, g.interval, g.capacity)
	}
	vals, err := takeScript.Run(ctx, r.client, keys, args...).Int64Slice()
	if err != nil {
		return nil, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if len(vals) != n+1 {
		return nil, fmt.Errorf("ratelimit: redis: script returned %d values, want %d", len(vals), n+1)
	}
	res := make([]Result, n)
	for i := range res {
		res[i] = gs[i].result(vals[i+1], vals[0] == 1)
	}
	return res, nil
}
