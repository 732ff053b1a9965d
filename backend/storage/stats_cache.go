package storage

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// maxCachedStats bounds the projects whose stats are kept; when full, the
// memory is cleared.
const maxCachedStats = 10_000

// statsCache keeps each project's stats for a short time
// (RankingsOptions.StatsTTL): a project's integrators and dashboards ask
// for them far more often than its wallets confirm, and GET /v1/stats is
// the read every client polls. A confirmation written through a Ledger of
// the same DB counts in confirms once committed, which drops its project's
// entry, so this instance answers it at once; another instance's
// confirmation is seen within the time to live.
type statsCache struct {
	ttl      time.Duration // 0: off
	now      func() time.Time
	confirms *confirmations

	mu      sync.Mutex
	entries map[string]statsEntry
}

type statsEntry struct {
	st  ledger.Stats
	at  time.Time // when its read began
	gen uint64    // the project's confirmations then
}

// confirmations counts each project's confirmations committed through this
// DB: a read of stats that began before one is not kept (it may have missed
// the confirmation). One number a project ever confirmed since the start,
// never cleared; read without a lock, as every cached read does.
type confirmations struct {
	gens sync.Map // project ID -> *atomic.Uint64
}

// of is projectID's count.
func (c *confirmations) of(projectID string) uint64 {
	if v, ok := c.gens.Load(projectID); ok {
		if n, ok := v.(*atomic.Uint64); ok {
			return n.Load()
		}
	}
	return 0
}

// confirmed counts a confirmation of projectID: call it once it is
// committed.
func (c *confirmations) confirmed(projectID string) {
	v, ok := c.gens.Load(projectID)
	if !ok {
		v, _ = c.gens.LoadOrStore(projectID, new(atomic.Uint64))
	}
	if n, ok := v.(*atomic.Uint64); ok {
		n.Add(1)
	}
}

// statsRead is a read of a project's stats that get did not answer: put
// keeps its answer.
type statsRead struct {
	began time.Time
	gen   uint64
}

// get returns the project's kept stats, or false and the read to put.
func (c *statsCache) get(projectID string) (ledger.Stats, statsRead, bool) {
	if c.ttl <= 0 {
		return ledger.Stats{}, statsRead{}, false
	}
	gen := c.confirms.of(projectID)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	e, ok := c.entries[projectID]
	if ok && e.gen == gen && now.Sub(e.at) < c.ttl {
		return e.st, statsRead{}, true
	}
	return ledger.Stats{}, statsRead{began: now, gen: gen}, false
}

// put keeps st, the answer of read r, unless the project confirmed
// something since r began.
func (c *statsCache) put(projectID string, st ledger.Stats, r statsRead) {
	if c.ttl <= 0 || c.confirms.of(projectID) != r.gen {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCachedStats {
		clear(c.entries)
	}
	c.entries[projectID] = statsEntry{st: st, at: r.began, gen: r.gen}
}
