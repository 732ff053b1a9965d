package ratelimit

import (
	"context"
	"hash/maphash"
	"slices"
	"sync"
	"time"
)

// numShards spreads keys over independent locks so that concurrent requests
// for different keys rarely wait for each other.
const numShards = 64

// minSweepInterval keeps a limiter with a tiny refill time from sweeping its
// shards on nearly every request.
const minSweepInterval = time.Second

// Memory is a Limiter that keeps its buckets in this process. Its memory is
// bounded by the keys seen recently, not by all keys ever seen: each shard,
// at most once per sweep interval (the time an empty bucket takes to refill,
// and at least a second), drops every bucket that has refilled completely,
// which is exactly the state of a key it has never seen. So a flood of
// distinct client addresses costs memory in proportion to its rate times the
// refill time, and the sweep's cost is amortised over the requests that made
// the entries.
type Memory struct {
	g          gcra
	now        func() time.Time
	base       time.Time // elapsed time is measured from here, monotonically
	seed       maphash.Seed
	sweepEvery int64 // nanoseconds
	shards     [numShards]shard
}

type shard struct {
	mu        sync.Mutex
	tat       map[string]int64 // nanoseconds since Memory.base
	nextSweep int64
	_         [40]byte // keep shards on separate cache lines
}

// MemoryOption configures NewMemory.
type MemoryOption func(*Memory)

// WithClock makes the limiter read time from now instead of time.Now, so
// tests can move time by hand.
func WithClock(now func() time.Time) MemoryOption {
	return func(m *Memory) { m.now = now }
}

// NewMemory returns an in-process limiter granting rps tokens per second up
// to burst at once per key. It panics if rps is not positive and finite or
// burst is below 1.
func NewMemory(rps float64, burst int, opts ...MemoryOption) *Memory {
	m := &Memory{
		g:    newGCRA(rps, burst, time.Nanosecond),
		now:  time.Now,
		seed: maphash.MakeSeed(),
	}
	for _, opt := range opts {
		opt(m)
	}
	m.base = m.now()
	m.sweepEvery = max(m.g.capacity, int64(minSweepInterval))
	for i := range m.shards {
		m.shards[i].tat = make(map[string]int64)
		m.shards[i].nextSweep = m.sweepEvery
	}
	return m
}

// Allow takes one token from key's bucket if there is one. It never fails;
// the error is there to satisfy Limiter.
func (m *Memory) Allow(_ context.Context, key string) (Result, error) {
	now := int64(m.now().Sub(m.base))
	s := &m.shards[maphash.String(m.seed, key)%numShards]

	s.mu.Lock()
	defer s.mu.Unlock()
	if now >= s.nextSweep {
		s.sweep(now)
		s.nextSweep = now + m.sweepEvery
	}
	tat, res := m.g.decide(s.tat[key], now)
	if res.Allowed {
		s.tat[key] = tat
	}
	return res, nil
}

// Len returns the number of buckets held: keys whose bucket is not known to
// be full. It is meant for metrics and tests.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.tat)
		s.mu.Unlock()
	}
	return n
}

// sweep drops the buckets that have refilled completely by now. Deleting
// while ranging is allowed, and Go maps release their memory on a later
// rebuild only, so a shard that shrinks a lot is replaced by a fresh map.
func (s *shard) sweep(now int64) {
	before := len(s.tat)
	for key, tat := range s.tat {
		if tat <= now {
			delete(s.tat, key)
		}
	}
	if after := len(s.tat); before >= 1024 && after < before/4 {
		fresh := make(map[string]int64, after)
		for key, tat := range s.tat {
			fresh[key] = tat
		}
		s.tat = fresh
	}
}

// Take spends one token from each bucket, or none from any (Taker). The
// buckets' shards are locked together, in shard order, so the decision is
// atomic against every other Allow and Take of this limiter.
func (m *Memory) Take(_ context.Context, buckets []Bucket) ([]Result, error) {
	n := len(buckets)
	if n == 0 || n > MaxBuckets {
		return nil, errBuckets(n)
	}
	var gs [MaxBuckets]gcra
	var idx [MaxBuckets]uint64
	for i, b := range buckets {
		g, err := bucketGCRA(b.Limits, time.Nanosecond)
		if err != nil {
			return nil, err
		}
		gs[i] = g
		idx[i] = maphash.String(m.seed, b.Key) % numShards
	}
	now := int64(m.now().Sub(m.base))
	order := idx
	locked := m.lock(order[:n], now)
	defer m.unlock(locked)

	var tat [MaxBuckets]int64
	took := true
	for i, b := range buckets {
		tat[i] = max(m.shards[idx[i]].tat[b.Key], now)
		if tat[i]+gs[i].interval-now > gs[i].capacity {
			took = false
		}
	}
	res := make([]Result, n)
	for i, b := range buckets {
		if took {
			tat[i] += gs[i].interval
			m.shards[idx[i]].tat[b.Key] = tat[i]
		}
		res[i] = gs[i].result(tat[i]-now, took)
	}
	return res, nil
}

// lock sorts order (a copy of the buckets' shards), locks each distinct
// shard in ascending order (so two Takes never wait for each other
// crosswise), sweeping those that are due, and returns them for unlock.
func (m *Memory) lock(order []uint64, now int64) []uint64 {
	slices.Sort(order)
	order = slices.Compact(order)
	for _, i := range order {
		s := &m.shards[i]
		s.mu.Lock()
		if now >= s.nextSweep {
			s.sweep(now)
			s.nextSweep = now + m.sweepEvery
		}
	}
	return order
}

func (m *Memory) unlock(order []uint64) {
	for _, i := range order {
		m.shards[i].mu.Unlock()
	}
}
