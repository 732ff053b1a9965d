package storage

import (
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger/ranking"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger/rollup"
)

// The rooms. Each is built from the one DB with all its options, and
// implements the ports of the tiers that use it:
//
//   - Ledger: the relay's and the tracker's (service/relay): tickets,
//     submissions, attempts, the ledger's rows and their settling, which
//     writes the webhooks' outbox.
//   - Rankings: what a project's figures are read from (domain/ledger, the
//     console's history): stats, leaderboards over the rollups and the
//     in-memory rankings.
//   - Webhooks: the endpoints, deliveries and outbox (service/webhook).
//   - Projects: projects, API keys, origins, quotas and refusals
//     (domain/project, service/auth).
//   - Console: owners, sessions, sign-in failures, form tokens, members and
//     the audit log (service/owner).
//   - IdempotencyKeys: the Idempotency-Key records (domain/idempotency).
//
// Rooms built from one DB share its pool and what one room writes is
// another's to read; closing the DB closes them all.

// Ledger keeps submissions, their attempts and the ledger's rows.
type Ledger struct{ outboxWriter }

// LedgerOptions are a Ledger's settings.
type LedgerOptions struct {
	// Notify, when set, is called after a transaction that wrote webhook
	// deliveries commits (a status change), so that this instance's
	// delivery loop sends them at once instead of at its next poll. It must
	// not block.
	Notify func()
}

// NewLedger returns the ledger room of db.
func NewLedger(db *DB, o LedgerOptions) *Ledger {
	return &Ledger{newOutboxWriter(db, o.Notify)}
}

// outboxWriter is a room that writes webhook deliveries, and calls
// notifyOutbox once they are committed.
type outboxWriter struct {
	*core
	notifyOutbox func()
}

func newOutboxWriter(db *DB, notify func()) outboxWriter {
	if notify == nil {
		notify = func() {}
	}
	return outboxWriter{core: db.core, notifyOutbox: notify}
}

// Rankings reads a project's figures: stats, leaderboards, daily totals and
// latest entries.
type Rankings struct {
	*core
	// rank holds the in-memory rankings of ranged leaderboards (ranking.go).
	rank *ranking.Rankings
	// deepOffset is the offset from which a page of all time, a month or a
	// year is ranked in memory rather than read from its ranking index: the
	// index reads every row before the page, the ranking every wallet.
	deepOffset int
	// planCosts, when set (by tests), replaces the estimates ranged
	// leaderboards are planned with.
	planCosts *rollup.Costs
	// stats keeps projects' stats briefly (RankingsOptions.StatsTTL).
	stats statsCache
}

// RankingsOptions are a Rankings's settings.
type RankingsOptions struct {
	// Budget bounds what the in-memory rankings of ranged leaderboards
	// hold; nil: ranking.DefaultMaxBytes and no bound on rows.
	Budget *RankingBudget
	// StatsTTL has Stats keep a project's figures that long (0: read every
	// time); Now is its clock (time.Now when nil). A confirmation written
	// through a Ledger of the same DB drops its project's figures at once.
	StatsTTL time.Duration
	Now      func() time.Time
}

// RankingBudget bounds the in-memory rankings of ranged leaderboards. A
// project that would take them over it is ranked in SQL.
type RankingBudget struct {
	// Bytes bounds the memory they hold together: rows, checkpoints,
	// wallets, and what building, merging and ranking a page take while
	// they run. Zero ranks every project in SQL.
	Bytes int64
	// Rows bounds the confirmed rows they hold together, on top of Bytes;
	// -1 sets no bound, zero ranks every project in SQL. Deprecated: rows
	// do not say how much memory they take; Bytes bounds that.
	Rows int
}

// NewRankings returns the rankings room of db. Its in-memory rankings stop
// when db closes.
func NewRankings(db *DB, o RankingsOptions) *Rankings {
	r := &Rankings{core: db.core, deepOffset: defaultDeepOffset}
	r.rank = ranking.New(rankSource{db.core})
	if o.Budget != nil {
		r.rank.SetBudget(o.Budget.Bytes)
		r.rank.SetRowLimit(o.Budget.Rows)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	r.stats = statsCache{ttl: o.StatsTTL, now: now, confirms: &db.confirms, entries: map[string]statsEntry{}}
	db.onClose(r.rank.Stop)
	return r
}

// Webhooks keeps the webhook endpoints, their deliveries and the outbox.
type Webhooks struct{ outboxWriter }

// WebhooksOptions are a Webhooks's settings.
type WebhooksOptions struct {
	// Notify, when set, is called after a transaction that wrote
	// deliveries commits (a test event, a redelivery, an endpoint enabled
	// again), as LedgerOptions.Notify. It must not block.
	Notify func()
}

// NewWebhooks returns the webhooks room of db.
func NewWebhooks(db *DB, o WebhooksOptions) *Webhooks {
	return &Webhooks{newOutboxWriter(db, o.Notify)}
}

// Projects keeps projects, their API keys, origins, quotas and refusals.
type Projects struct{ *core }

// NewProjects returns the projects room of db.
func NewProjects(db *DB) *Projects { return &Projects{db.core} }

// Console keeps the console's owners, sessions, sign-in failures, form
// tokens, memberships and audit log.
type Console struct{ *core }

// NewConsole returns the console room of db.
func NewConsole(db *DB) *Console { return &Console{db.core} }

// IdempotencyKeys keeps the Idempotency-Key records.
type IdempotencyKeys struct{ *core }

// NewIdempotencyKeys returns the idempotency room of db.
func NewIdempotencyKeys(db *DB) *IdempotencyKeys { return &IdempotencyKeys{db.core} }
