package storage

import (
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// maxCachedStats bounds the projects whose stats are kept; when full, the
// memory is cleared.
const maxCachedStats = 10_000

// statsCache keeps each project's stats for a short time (CacheStats): a
// project's integrators and dashboards ask for them far more often than
// its wallets confirm, and GET /v1/stats is the read every client polls. A
// confirmation this store writes drops its project's entry once committed,
// so this instance answers it at once; another instance's confirmation is
// seen within the time to live.
type statsCache struct {
	ttl time.Duration // 0: off
	now func() time.Time

	mu      sync.Mutex
	entries map[string]statsEntry
	// gens counts each project's invalidations: a read that began before
	// one is not kept (it may have missed the confirmation). One number a
	// project ever confirmed since the start, never cleared.
	gens map[string]uint64
}

type statsEntry struct {
	st ledger.Stats
	at time.Time // when its read began
}

// CacheStats has Stats keep a project's figures for ttl (0: read every
// time, the default). `reclaim serve` turns it on.
func (s *Store) CacheStats(ttl time.Duration, now func() time.Time) {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	s.stats.ttl, s.stats.now = ttl, now
	s.stats.entries, s.stats.gens = map[string]statsEntry{}, map[string]uint64{}
}

// statsRead is a read of a project's stats that get did not answer: put
// keeps its answer.
type statsRead struct {
	began time.Time
	gen   uint64
}

// get returns the project's kept stats, or false and the read to put.
func (c *statsCache) get(projectID string) (ledger.Stats, statsRead, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ttl <= 0 {
		return ledger.Stats{}, statsRead{}, false
	}
	now := c.now()
	e, ok := c.entries[projectID]
	if ok && now.Sub(e.at) < c.ttl {
		return e.st, statsRead{}, true
	}
	return ledger.Stats{}, statsRead{began: now, gen: c.gens[projectID]}, false
}

// put keeps st, the answer of read r, unless the project confirmed
// something since r began.
func (c *statsCache) put(projectID string, st ledger.Stats, r statsRead) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ttl <= 0 || c.gens[projectID] != r.gen {
		return
	}
	if len(c.entries) >= maxCachedStats {
		clear(c.entries)
	}
	c.entries[projectID] = statsEntry{st: st, at: r.began}
}

// confirmed drops the project's stats: call it once a confirmation of the
// project is committed.
func (c *statsCache) confirmed(projectID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ttl <= 0 {
		return
	}
	c.gens[projectID]++
	delete(c.entries, projectID)
}
