// Package ranking ranks a project's wallets by gross over any range of time,
// in memory: the leaderboard engine beside the ledger.
//
// A ranked leaderboard over a range that is not all time, one month or one
// year must know every wallet's gross in the range before it can take a
// page: on a project whose 50,000 wallets are all active every month, no
// combination of rollups spares reading 50,000 sums, which costs Postgres
// over 100 ms. So each process keeps, per project it has ranked, its
// confirmed rows' times, wallets, types and gross in memory, with
// checkpoints of every wallet's sums (index.go): the page's wallets are
// known in a few milliseconds without a query. The store then sums their
// figures from its rollups and rows for those wallets alone, and they must
// agree with the ranking's gross, or the page is ranked again
// (docs/decisions.md, "In-memory ranking").
//
// The ranking follows the database, not the other way round: every page
// first reads, through the Source, the project's version and the rows
// counted since its own, in one snapshot, and adds them. A ranking whose
// count of rows then differs from the project's (a version of the service
// that did not count rows confirmed them during a rolling upgrade) is built
// again in the background; meanwhile, and while it is first built, Page
// reports that it has none and the store sums in SQL. Everything the
// rankings hold comes out of one budget in bytes (size.go).
package ranking

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Source reads a project's confirmed rows; backend/storage implements it in
// SQL.
type Source interface {
	// Read reads, in one snapshot, projectID's version and count of
	// confirmed rows, passed to totals, and its confirmed rows counted
	// after version since (all of them when since < 0), passed to each as
	// (payer, type, time in µs or -1, gross, the version that counted it).
	Read(ctx context.Context, projectID string, since int64,
		each func(payer, typ string, at, gross, stamp int64) error, totals func(version, count int64)) error
}

// Rankings are a process's in-memory rankings, by project.
type Rankings struct {
	src      Source
	mu       sync.Mutex
	projects map[string]*rankingSlot
	// inline builds a ranking in the query that first needs it (tests and
	// benchmarks); otherwise it is built in the background.
	inline bool
	off    bool         // no in-memory rankings (tests of the SQL plans)
	served atomic.Int64 // pages ranked in memory, for tests
	builds atomic.Int64 // rankings built, for tests
	// every and mergeAt, when set (tests), space the checkpoints of new
	// rankings and size the delta they merge at (ranking.every, mergeAt).
	every, mergeAt int
	// budget bounds what every ranking holds together, and what building,
	// merging and paging take on top (SetBudget, size.go).
	budget budget
	now    func() time.Time // the owner's clock: when a failed build may be retried
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

// rankingSlot is a project's ranking: ready once built, nil while it is
// being built or after it fell behind.
type rankingSlot struct {
	ready    *ranking
	building bool
	retryAt  time.Time // after a failed build, when the next may start
}

// After a failed build, the next starts rankingRetry later, or
// rankingFullRetry later when the rows were over the budget.
const (
	rankingRetry     = time.Minute
	rankingFullRetry = 10 * time.Minute
)

// DefaultMaxBytes is the budget's default: config.Default's.
const DefaultMaxBytes = 512 << 20

// errRankingFull is a build that would take the rankings over their budget.
var errRankingFull = errors.New("the in-memory rankings are full (RECLAIM_RANKING_MAX_BYTES)")

// SetBudget bounds the memory the rankings hold together, in bytes: rows,
// checkpoints, wallets, and what building, merging and ranking a page take
// while they run. A project that would take them over it is not ranked in
// memory. Zero ranks no project in memory.
func (rs *Rankings) SetBudget(bytes int64) {
	rs.budget.mu.Lock()
	defer rs.budget.mu.Unlock()
	rs.budget.maxBytes = bytes
}

// SetRowLimit bounds the confirmed rows the rankings hold together, on top
// of SetBudget; -1 sets no bound, zero ranks no project in memory. It
// serves the deprecated RECLAIM_RANKING_MAX_ROWS: rows do not say how much
// memory they take (their wallets' checkpoints and addresses do too);
// SetBudget bounds that.
func (rs *Rankings) SetRowLimit(rows int) {
	rs.budget.mu.Lock()
	defer rs.budget.mu.Unlock()
	rs.budget.maxRows = int64(rows)
}

// New returns rankings that read rows from src, within a budget of
// DefaultMaxBytes and no bound on rows, on the machine's clock unless an
// option gives another.
func New(src Source, opts ...Option) *Rankings {
	rs := &Rankings{src: src, projects: map[string]*rankingSlot{}, now: time.Now}
	for _, o := range opts {
		o(rs)
	}
	rs.budget.maxBytes, rs.budget.maxRows = DefaultMaxBytes, -1
	rs.ctx, rs.cancel = context.WithCancel(context.Background())
	return rs
}

// Option sets what New builds the rankings with.
type Option func(*Rankings)

// WithClock gives the rankings their owner's clock, which times the delay
// before a failed build is tried again.
func WithClock(now func() time.Time) Option {
	return func(rs *Rankings) { rs.now = now }
}

// Tuning changes how rankings are built and used, for tests.
type Tuning struct {
	// Inline builds a ranking in the query that first needs it, and merges
	// there; otherwise both happen in the background.
	Inline bool
	// Off ranks nothing in memory: Page always reports no ranking.
	Off bool
	// Every and MergeAt, when not zero, space the checkpoints of new
	// rankings and size the delta they merge at.
	Every, MergeAt int
}

// Tune applies t; tests call it before the rankings are used.
func (rs *Rankings) Tune(t Tuning) {
	rs.inline, rs.off, rs.every, rs.mergeAt = t.Inline, t.Off, t.Every, t.MergeAt
}

// Served is how many pages were ranked in memory.
func (rs *Rankings) Served() int64 { return rs.served.Load() }

// Builds is how many rankings were built (or tried).
func (rs *Rankings) Builds() int64 { return rs.builds.Load() }

// Held is what the rankings hold, and reserve, in bytes and rows.
func (rs *Rankings) Held() (bytes, rows int64) { return rs.budget.held() }

// Stop cancels the builds under way and waits for them.
func (rs *Rankings) Stop() {
	rs.cancel()
	rs.wg.Wait()
}

// Reset forgets every ranking.
func (rs *Rankings) Reset() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, slot := range rs.projects {
		if slot.ready != nil {
			rs.release(slot.ready)
		}
	}
	rs.projects = map[string]*rankingSlot{}
}

// release gives back what r holds, once: r is no longer a project's.
func (rs *Rankings) release(r *ranking) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.dropped {
		r.dropped = true
		rs.budget.give(r.charged, r.chargedRows)
	}
}

// recharge brings what the budget holds for r to what r holds now plus
// extra, and reports whether that fit (if not, the budget holds what it
// held); its caller holds r.mu.
func (rs *Rankings) recharge(r *ranking, extra int64) bool {
	b, n := r.bytes()+extra, r.count
	if !rs.budget.take(b-r.charged, n-r.chargedRows) {
		return false
	}
	r.charged, r.chargedRows = b, n
	return true
}

// claim returns projectID's slot and its ranking, if built; start reports
// that the caller is to build it (marked as being built), which it is when
// there is none, none is being built, and (unless now) the retry delay of a
// failed build has passed.
func (rs *Rankings) claim(projectID string, now bool) (slot *rankingSlot, r *ranking, start bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	slot = rs.projects[projectID]
	if slot == nil {
		slot = &rankingSlot{}
		rs.projects[projectID] = slot
	}
	start = slot.ready == nil && !slot.building && (now || !rs.now().Before(slot.retryAt))
	if start {
		slot.building = true
	}
	return slot, slot.ready, start
}

// Page returns the wallets ranked offset to offset+limit-1 among those with
// rows of typ ("" for every type) confirmed in [from, to) (microseconds),
// by gross descending then payer byte-wise, as the leaderboard ranks them,
// and their gross. ok is false when projectID has no ranking brought up to
// the source's version (then one is built, in the background unless
// inline) or the budget has no room to rank the page: the caller ranks it
// another way.
func (rs *Rankings) Page(ctx context.Context, projectID string, from, to int64, typ string, offset, limit int) (payers []string, gross []int64, ok bool, err error) {
	r, err := rs.current(ctx, projectID)
	if err != nil || r == nil {
		return nil, nil, false, err
	}
	payers, gross, ok = r.page(from, to, typ, offset, limit, &rs.budget)
	if ok {
		rs.served.Add(1)
	}
	return payers, gross, ok, nil
}

// current returns projectID's ranking brought up to the source's version,
// or nil when there is none yet: then one is built, in the background
// unless inline.
func (rs *Rankings) current(ctx context.Context, projectID string) (*ranking, error) {
	if rs.off || rs.budget.off() {
		return nil, nil
	}
	slot, r, start := rs.claim(projectID, false)
	if start {
		if rs.inline {
			_ = rs.build(ctx, projectID, slot) // the caller ranks while there is none
			return rs.current(ctx, projectID)
		}
		rs.wg.Add(1)
		go func() {
			defer rs.wg.Done()
			_ = rs.build(rs.ctx, projectID, slot) // retried after rankingRetry
		}()
		return nil, nil
	}
	if r == nil {
		return nil, nil
	}
	current, err := rs.catchUp(ctx, projectID, r)
	if err != nil {
		return nil, err
	}
	if !current {
		rs.mu.Lock()
		if slot.ready == r {
			slot.ready = nil // built again by the next query
			rs.release(r)
		}
		rs.mu.Unlock()
		return nil, nil
	}
	return r, nil
}

// Warm builds projectID's ranking now, in the caller's goroutine, unless it
// has one; Page otherwise builds it on first use, in the background. It
// fails when the project cannot be ranked in memory.
func (rs *Rankings) Warm(ctx context.Context, projectID string) error {
	slot, r, start := rs.claim(projectID, true)
	if r != nil {
		return nil
	}
	if !start {
		return fmt.Errorf("the ranking of %s is being built", projectID)
	}
	return rs.build(ctx, projectID, slot)
}

// build reads projectID's confirmed rows into a new ranking and makes it
// the project's. What it takes comes out of the budget as it grows, its
// checkpoints included before they are taken: a project that does not fit
// is left to the caller. A failure leaves the project without a ranking
// until rankingRetry (rankingFullRetry) has passed; then the next page
// tries again.
func (rs *Rankings) build(ctx context.Context, projectID string, slot *rankingSlot) error {
	rs.builds.Add(1)
	r := newRanking()
	r.every, r.mergeAt = rs.every, rs.mergeAt
	// fits charges r with the checkpoints it will take and their working
	// copy, and checks there is room for a page too: a ranking no page
	// could use is not built.
	fits := func() bool {
		held, working := baseBytes(len(r.delta), len(r.payers), r.every)
		return rs.recharge(r, held+working+int64(len(r.payers))*pageBytes)
	}
	var count int64
	err := rs.src.Read(ctx, projectID, -1, func(payer, typ string, at, gross, _ int64) error {
		if err := r.add(payer, typ, at, gross); err != nil {
			return err
		}
		if r.count%buildCheck == 0 && !fits() {
			return errRankingFull
		}
		return nil
	}, func(v, c int64) { r.version, count = v, c })
	if err == nil && r.count != count {
		// The source's totals do not count the rows it has: the caller
		// answers, and its check of a page would reject this ranking anyway.
		err = fmt.Errorf("ranking of %s: %d confirmed rows, the totals count %d", projectID, r.count, count)
	}
	if err == nil && !fits() {
		err = errRankingFull
	}
	if err == nil {
		r.finish()
		rs.recharge(r, 0) // less: the working copy is gone
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	slot.building = false
	if err == nil && rs.projects[projectID] != slot {
		err = fmt.Errorf("ranking of %s: the rankings were reset meanwhile", projectID)
	}
	if err != nil {
		rs.release(r)
		slot.retryAt = rs.now().Add(rankingRetry)
		if errors.Is(err, errRankingFull) {
			slot.retryAt = rs.now().Add(rankingFullRetry)
		}
		return err
	}
	slot.ready = r
	return nil
}

// buildCheck is how many rows a build reads between two checks of its
// budget: at most that many rows (about 150 KB at most) over it.
const buildCheck = 1024

// catchUp adds to r the rows counted since its version; current is false
// when r no longer counts what the project's totals count. A delta grown
// large enough is merged into the base, in the background unless inline.
func (rs *Rankings) catchUp(ctx context.Context, projectID string, r *ranking) (current bool, err error) {
	r.mu.RLock()
	since := r.version
	r.mu.RUnlock()
	type row struct {
		payer, typ       string
		at, gross, stamp int64
	}
	var rows []row
	var version, count int64
	if err := rs.src.Read(ctx, projectID, since, func(payer, typ string, at, gross, stamp int64) error {
		rows = append(rows, row{payer, typ, at, gross, stamp})
		return nil
	}, func(v, c int64) { version, count = v, c }); err != nil {
		return false, err
	}
	r.mu.Lock()
	if version < r.version {
		r.mu.Unlock()
		return true, nil // another query caught up further meanwhile
	}
	for _, x := range rows {
		if x.stamp > r.version {
			if err := r.add(x.payer, x.typ, x.at, x.gross); err != nil {
				r.mu.Unlock()
				return false, nil //nolint:nilerr // a row it cannot hold: the caller ranks
			}
		}
	}
	r.version = version
	if !rs.recharge(r, 0) {
		r.mu.Unlock()
		return false, nil // over the budget: the caller ranks
	}
	current = r.count == count
	var need int64
	if current && r.needsMerge() {
		// The new base's rows and checkpoints, and their working copy,
		// beside the old base until it replaces it.
		held, working := baseBytes(len(r.base.rows)+len(r.delta), len(r.payers), r.every)
		need = int64(len(r.base.rows)+len(r.delta))*rowBytes + held + working
		if !rs.budget.take(need, 0) {
			r.merging, need = false, 0 // merged once there is room; the delta grows meanwhile
		}
	}
	r.mu.Unlock()
	switch {
	case need == 0:
	case rs.inline:
		rs.merge(r, need)
	default:
		rs.wg.Add(1)
		go func() {
			defer rs.wg.Done()
			rs.merge(r, need)
		}()
	}
	return current, nil
}

// merge merges r's delta into its base, need having been taken from the
// budget for it, and then charges r with what it holds.
func (rs *Rankings) merge(r *ranking, need int64) {
	r.merge()
	r.mu.Lock()
	defer r.mu.Unlock()
	rs.budget.give(need, 0)
	if !r.dropped {
		// Less than it held with need: never over the budget.
		rs.budget.give(r.charged-r.bytes(), 0)
		r.charged = r.bytes()
	}
}
