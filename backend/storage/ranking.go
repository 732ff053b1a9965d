package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A ranked leaderboard over a range that is not all time, one month or one
// year must know every wallet's gross in the range before it can take a
// page: on a project whose 50,000 wallets are all active every month, no
// combination of rollups spares reading 50,000 sums, which costs Postgres
// over 100 ms. So each process keeps, per project it has ranked, its
// confirmed rows' times, wallets, types and gross in memory, with
// checkpoints of every wallet's sums (ranking_index.go): the page's wallets
// are known in a few milliseconds without a query. Their figures are then
// summed from the rollups and rows for those wallets alone (sumPieces), and
// must agree with the ranking's gross, or the page is ranked again
// (docs/decisions.md, "In-memory ranking").
//
// The ranking follows the database, not the other way round: every query
// first reads the project's version (reclaim_project_totals.version,
// migration 10) and the rows counted since its own, in one statement, and
// adds them. A ranking whose count of rows then differs from the project's
// (a version without migration 10 confirmed rows during a rolling upgrade)
// is built again in the background; meanwhile, and while it is first built,
// the leaderboard sums the rollups in SQL as before.

// rankings are the store's in-memory rankings, by project.
type rankings struct {
	mu       sync.Mutex
	projects map[string]*rankingSlot
	// inline builds a ranking in the query that first needs it (tests and
	// benchmarks); otherwise it is built in the background.
	inline bool
	off    bool // no in-memory rankings (tests of the SQL plans)
	// deepOffset is the offset from which a page of all time, a month or a
	// year is ranked in memory rather than read from its ranking index: the
	// index reads every row before the page, the ranking every wallet.
	deepOffset int
	served     atomic.Int64 // pages ranked in memory, for tests
	builds     atomic.Int64 // rankings built, for tests
	// every and mergeAt, when set (tests), space the checkpoints of new
	// rankings and size the delta they merge at (ranking.every, mergeAt).
	every, mergeAt int
	// budget bounds what every ranking holds together, and what building,
	// merging and paging take on top (SetRankingBudget, ranking_size.go).
	budget budget
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

// defaultRankingMaxBytes is SetRankingBudget's default: config.Default's.
const defaultRankingMaxBytes = 512 << 20

// errRankingFull is a build that would take the rankings over their budget.
var errRankingFull = errors.New("the in-memory rankings are full (RECLAIM_RANKING_MAX_BYTES)")

// SetRankingBudget bounds the memory the in-memory rankings of ranged
// leaderboards hold together, in bytes: rows, checkpoints, wallets, and
// what building, merging and ranking a page take while they run. A project
// that would take them over it is ranked in SQL. Zero ranks every project
// in SQL.
func (s *Store) SetRankingBudget(bytes int64) {
	s.rank.budget.mu.Lock()
	defer s.rank.budget.mu.Unlock()
	s.rank.budget.maxBytes = bytes
}

// SetRankingLimit bounds the confirmed rows the in-memory rankings hold
// together, on top of SetRankingBudget; -1 sets no bound, zero ranks every
// project in SQL. Deprecated: rows do not say how much memory they take
// (their wallets' checkpoints and addresses do too); SetRankingBudget
// bounds that.
func (s *Store) SetRankingLimit(rows int) {
	s.rank.budget.mu.Lock()
	defer s.rank.budget.mu.Unlock()
	s.rank.budget.maxRows = int64(rows)
}

// defaultDeepOffset is rankings.deepOffset.
const defaultDeepOffset = 5_000

func (rs *rankings) init() {
	rs.deepOffset = defaultDeepOffset
	rs.budget.maxBytes, rs.budget.maxRows = defaultRankingMaxBytes, -1
	rs.projects = map[string]*rankingSlot{}
	rs.ctx, rs.cancel = context.WithCancel(context.Background())
}

// stop cancels the builds under way and waits for them.
func (rs *rankings) stop() {
	rs.cancel()
	rs.wg.Wait()
}

// reset forgets every ranking.
func (rs *rankings) reset() {
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
func (rs *rankings) release(r *ranking) {
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
func (rs *rankings) recharge(r *ranking, extra int64) bool {
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
func (rs *rankings) claim(projectID string, now bool) (slot *rankingSlot, r *ranking, start bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	slot = rs.projects[projectID]
	if slot == nil {
		slot = &rankingSlot{}
		rs.projects[projectID] = slot
	}
	start = slot.ready == nil && !slot.building && (now || !time.Now().Before(slot.retryAt))
	if start {
		slot.building = true
	}
	return slot, slot.ready, start
}

// rankingOf returns projectID's ranking brought up to the database's
// version, or nil when there is none yet: then one is built, in the
// background unless inline.
func (s *Store) rankingOf(ctx context.Context, projectID string) (*ranking, error) {
	rs := &s.rank
	if rs.off || rs.budget.off() {
		return nil, nil
	}
	slot, r, start := rs.claim(projectID, false)
	if start {
		if rs.inline {
			_ = s.buildRanking(ctx, projectID, slot) // SQL ranks while there is none
			return s.rankingOf(ctx, projectID)
		}
		rs.wg.Add(1)
		go func() {
			defer rs.wg.Done()
			_ = s.buildRanking(rs.ctx, projectID, slot) // retried after rankingRetry
		}()
		return nil, nil
	}
	if r == nil {
		return nil, nil
	}
	current, err := s.catchUpRanking(ctx, projectID, r)
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

// WarmRanking builds projectID's in-memory ranking now, in the caller's
// goroutine, unless it has one; ranged leaderboards otherwise build it on
// first use, in the background, and are summed in SQL until it is ready
// (a few seconds per million rows). It fails when the project cannot be
// ranked in memory.
func (s *Store) WarmRanking(ctx context.Context, projectID string) error {
	slot, r, start := s.rank.claim(projectID, true)
	if r != nil {
		return nil
	}
	if !start {
		return fmt.Errorf("the ranking of %s is being built", projectID)
	}
	return s.buildRanking(ctx, projectID, slot)
}

// buildRanking reads projectID's confirmed rows into a new ranking and
// makes it the project's. What it takes comes out of the budget as it
// grows, its checkpoints included before they are taken: a project that
// does not fit is left to SQL. A failure leaves the project without a
// ranking until rankingRetry (rankingFullRetry) has passed; then the next
// query tries again.
func (s *Store) buildRanking(ctx context.Context, projectID string, slot *rankingSlot) error {
	rs := &s.rank
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
	err := s.readRanked(ctx, projectID, -1, func(payer, typ string, at, gross, _ int64) error {
		if err := r.add(payer, typ, at, gross); err != nil {
			return err
		}
		if r.count%buildCheck == 0 && !fits() {
			return errRankingFull
		}
		return nil
	}, func(v, c int64) { r.version, count = v, c })
	if err == nil && r.count != count {
		// The rollups do not count the rows they should: the SQL sums
		// answer, and the page check would reject this ranking anyway.
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
		slot.retryAt = time.Now().Add(rankingRetry)
		if errors.Is(err, errRankingFull) {
			slot.retryAt = time.Now().Add(rankingFullRetry)
		}
		return err
	}
	slot.ready = r
	return nil
}

// buildCheck is how many rows a build reads between two checks of its
// budget: at most that many rows (about 150 KB at most) over it.
const buildCheck = 1024

// catchUpRanking adds to r the rows counted since its version; current is
// false when r no longer counts what the project's totals count. A delta
// grown large enough is merged into the base, in the background unless
// inline.
func (s *Store) catchUpRanking(ctx context.Context, projectID string, r *ranking) (current bool, err error) {
	r.mu.RLock()
	since := r.version
	r.mu.RUnlock()
	type row struct {
		payer, typ       string
		at, gross, stamp int64
	}
	var rows []row
	var version, count int64
	if err := s.readRanked(ctx, projectID, since, func(payer, typ string, at, gross, stamp int64) error {
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
				return false, nil //nolint:nilerr // a row it cannot hold: SQL ranks
			}
		}
	}
	r.version = version
	if !s.rank.recharge(r, 0) {
		r.mu.Unlock()
		return false, nil // over the budget: SQL ranks
	}
	current = r.count == count
	var need int64
	if current && r.needsMerge() {
		// The new base's rows and checkpoints, and their working copy,
		// beside the old base until it replaces it.
		held, working := baseBytes(len(r.base.rows)+len(r.delta), len(r.payers), r.every)
		need = int64(len(r.base.rows)+len(r.delta))*rowBytes + held + working
		if !s.rank.budget.take(need, 0) {
			r.merging, need = false, 0 // merged once there is room; the delta grows meanwhile
		}
	}
	r.mu.Unlock()
	switch {
	case need == 0:
	case s.rank.inline:
		s.rank.merge(r, need)
	default:
		s.rank.wg.Add(1)
		go func() {
			defer s.rank.wg.Done()
			s.rank.merge(r, need)
		}()
	}
	return current, nil
}

// merge merges r's delta into its base, need having been taken from the
// budget for it, and then charges r with what it holds.
func (rs *rankings) merge(r *ranking, need int64) {
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

// readRanked reads, in one statement (one snapshot), projectID's version
// and count of confirmed rows from its totals, passed to totals, and its
// confirmed rows counted after version since (all of them when since < 0),
// passed to each as (payer, type, time in µs or -1, gross, rank_version).
func (s *Store) readRanked(ctx context.Context, projectID string, since int64,
	each func(payer, typ string, at, gross, stamp int64) error, totals func(version, count int64),
) error {
	cond := "TRUE"
	if since >= 0 {
		cond = fmt.Sprintf("rank_version > %d", since)
	}
	q := `SELECT NULL, NULL, NULL, version, transaction_count FROM reclaim_project_totals WHERE project_id = ?
UNION ALL
SELECT payer, type, confirmed_at, gross_rebate, rank_version FROM reclaim_transactions
WHERE project_id = ? AND status = 'confirmed' AND ` + cond
	rows, err := s.db.QueryContext(ctx, q, projectID, projectID)
	if err != nil {
		return fmt.Errorf("read the ranking of %s: %w", projectID, err)
	}
	defer rows.Close()
	var version, count int64
	var payer, typ sql.NullString
	var at any
	var a, b int64
	for rows.Next() {
		if err := rows.Scan(&payer, &typ, &at, &a, &b); err != nil {
			return fmt.Errorf("read the ranking of %s: %w", projectID, err)
		}
		if !payer.Valid {
			version, count = a, b
			continue
		}
		us, err := micros(at)
		if err != nil {
			return fmt.Errorf("read the ranking of %s: %w", projectID, err)
		}
		if err := each(payer.String, typ.String, us, a, b); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the ranking of %s: %w", projectID, err)
	}
	totals(version, count)
	return nil
}

// sqliteTimes are the layouts SQLite hands confirmed_at back in, when its
// driver does not parse it.
var sqliteTimes = []string{"2006-01-02 15:04:05.999999999-07:00", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05"}

// micros is a scanned confirmation time in microseconds since 1970, or -1
// when there is none.
func micros(v any) (int64, error) {
	var s string
	switch t := v.(type) {
	case nil:
		return -1, nil
	case time.Time:
		return t.UnixMicro(), nil
	case string:
		s = t
	case []byte:
		s = string(t)
	default:
		return 0, fmt.Errorf("confirmation time of type %T", v)
	}
	for _, layout := range sqliteTimes {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("confirmation time %q", s)
}

// ceilMicros is the first microsecond at or after t: a row confirmed at µs
// x is at or after t exactly when x >= ceilMicros(t).
func ceilMicros(t time.Time) int64 {
	us := t.UnixMicro()
	if time.UnixMicro(us).Before(t) {
		us++
	}
	return us
}

// payerList is payers as a SQL list literal, for sumPieces's condition.
func (s *Store) payerList(payers []string) string {
	quoted := make([]string, len(payers))
	for i, p := range payers {
		quoted[i] = s.db.QueryGen().FormatQuery("?", p)
	}
	return "payer IN (" + strings.Join(quoted, ", ") + ")"
}
