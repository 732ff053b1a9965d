package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// migration is one forward-only schema change. Each runs in a transaction and
// is written with IF NOT EXISTS, so a run interrupted between the change and
// its bookkeeping is safely repeated.
type migration struct {
	name    string // a timestamp; migrations run in name order
	comment string
	up      func(ctx context.Context, db bun.IDB) error
	// after, when set, runs once up committed, outside its transaction:
	// work that must not hold one (building an index concurrently). It is
	// repeated when interrupted, so it must be idempotent; the migration
	// counts as applied only once it succeeded.
	after func(ctx context.Context, s *core) error
}

// schema lists every migration, oldest first. Never edit one that has shipped:
// add a new one.
var schema = []migration{
	{name: "20260521000001", comment: "projects_api_keys_transactions", up: upInitial},
	{name: "20260521000002", comment: "payer_totals", up: upPayerTotals},
	{name: "20260521000003", comment: "relay", up: upRelay},                               // migrations_relay.go
	{name: "20260521000004", comment: "console", up: upConsole},                           // migrations_console.go
	{name: "20260521000005", comment: "console_audit_members", up: upConsoleAuditMembers}, // migrations_console.go
	{name: "20260521000006", comment: "landed_figures", up: upLandedFigures},              // migrations_landed.go
	{name: "20260521000007", comment: "project_origins", up: upProjectOrigins},            // migrations_origins.go
	{name: "20260521000008", comment: "tracker_leases", up: upTrackerLeases},              // migrations_tracker.go
	// migrations_rollups.go
	{name: "20260521000009", comment: "rollups", up: upRollups, after: afterRollups},
	{name: "20260521000010", comment: "ranking", up: upRanking, after: afterRanking},      // migrations_ranking.go
	{name: "20260521000011", comment: "console_spent_tokens", up: upConsoleSpentTokens},   // migrations_console.go
	{name: "20260521000012", comment: "attempts", up: upAttempts, after: afterAttempts},   // migrations_attempts.go
	{name: "20260521000013", comment: "storage_probe", up: upProbe},                       // migrations_probe.go
	{name: "20260521000014", comment: "type_counts", up: upTypeCounts, after: typesAfter}, // migrations_types.go
	{name: "20260521000015", comment: "webhooks_idempotency", up: upWebhooks},             // migrations_webhooks.go
	{name: "20260521000016", comment: "raw_transactions", up: upRawTransactions},          // migrations_raw.go
	{name: "20260521000017", comment: "submission_status", up: upSubmissionStatus},        // migrations_submissions.go
	{name: "20260521000018", comment: "reported_tickets", up: upReportedTickets},          // migrations_submissions.go
	{name: "20260521000019", comment: "signature_claims", up: upSignatureClaims},          // migrations_submissions.go
	{name: "20260521000020", comment: "project_quotas", up: upProjectQuotas},              // migrations_quotas.go
	{name: "20260521000021", comment: "rate_refusals", up: upRateRefusals},                // migrations_quotas.go
	{name: "20260521000022", comment: "rent_split", up: upRentSplit},                      // migrations_rent.go
	{name: "20260521000023", comment: "landed_status", up: upLandedStatus},                // migrations_submissions.go
	{name: "20260521000024", comment: "lookup_table_counts", up: upLookupTableCounts},     // migrations_types.go
}

// Migrate brings the schema up to date. It is idempotent, and safe when
// several processes start at once: they take turns on a lock (a Postgres
// advisory lock, or a file lock beside the SQLite file) that the database or
// the kernel releases if a holder dies.
func (s *DB) Migrate(ctx context.Context) error {
	unlock, err := s.lockMigrations(ctx)
	if err != nil {
		return fmt.Errorf("storage: migrate: %w", err)
	}
	defer unlock()
	if err := s.applySchema(ctx, schema); err != nil {
		return fmt.Errorf("storage: migrate: %w", err)
	}
	// Count what a version without rollups confirmed meanwhile (a rolling
	// upgrade; nothing, usually), and the rows from before migration 9 (once).
	if err := s.catchUpRollups(ctx); err != nil {
		return fmt.Errorf("storage: migrate: %w", err)
	}
	if err := s.runBackfill(ctx); err != nil {
		return fmt.Errorf("storage: migrate: %w", err)
	}
	return nil
}

// CheckSchema returns an error unless every migration this version needs
// is applied: what serve does instead of migrating when one job migrates
// per release (RECLAIM_SKIP_MIGRATIONS). It writes nothing.
func (s *DB) CheckSchema(ctx context.Context) error {
	const run = "run `reclaim migrate` (the chart's migration job) with this version first"
	m := migrate.NewMigrator(s.db, s.migrations(schema))
	status, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return fmt.Errorf("storage: no migration can be read as applied (%w): %s", err, run)
	}
	if missing := status.Unapplied(); len(missing) > 0 {
		return fmt.Errorf("storage: the schema is older than this version needs: %d of its %d migrations are not applied (the first: %s %s); %s",
			len(missing), len(schema), missing[0].Name, missing[0].Comment, run)
	}
	return nil
}

// applySchema applies the migrations not applied yet.
func (s *core) applySchema(ctx context.Context, migrations []migration) error {
	// Mark a migration applied only once it succeeded: bun's default marks it
	// first, so a failed migration would never be retried.
	m := migrate.NewMigrator(s.db, s.migrations(migrations), migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	_, err := m.Migrate(ctx)
	return err
}

// migrations are bun's for ours.
func (s *core) migrations(migrations []migration) *migrate.Migrations {
	ms := migrate.NewMigrations()
	for _, m := range migrations {
		up, after := m.up, m.after
		ms.Add(migrate.Migration{
			Name:    m.name,
			Comment: m.comment,
			Up: func(ctx context.Context, mg *migrate.Migrator, _ *migrate.Migration) error {
				err := mg.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
					return up(ctx, tx)
				})
				if err != nil || after == nil {
					return err
				}
				return after(ctx, s)
			},
		})
	}
	return ms
}

// pgMigrationLock is the Postgres advisory lock key held while migrating.
const pgMigrationLock = 0x7265636c61696d // "reclaim"

// lockPoll is how often a process waiting for the migration lock retries.
const lockPoll = 50 * time.Millisecond

func (s *core) lockMigrations(ctx context.Context) (unlock func(), err error) {
	if !s.postgres {
		return lockFile(ctx, s.lockPath)
	}
	// A session-level advisory lock lives on one connection: keep it aside.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	for {
		var ok bool
		if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock(?)", pgMigrationLock).Scan(&ok); err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("take migration lock: %w", err)
		}
		if ok {
			break
		}
		if err := sleep(ctx, lockPoll); err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("wait for migration lock: %w", err)
		}
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, _ = conn.ExecContext(ctx, "SELECT pg_advisory_unlock(?)", pgMigrationLock)
		// Closing returns the connection to the pool; the lock is released
		// above, or with the session if that failed.
		_ = conn.Close()
	}, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// The models below are frozen as of their migration, so later changes to the
// live models (models.go) never change what an old migration creates.

type projectV1 struct {
	bun.BaseModel `bun:"table:projects"`

	ID             string    `bun:"id,pk"`
	Name           string    `bun:"name,notnull"`
	DonationWallet string    `bun:"donation_wallet,notnull"`
	CreatedAt      time.Time `bun:"created_at,notnull"`
}

type apiKeyV1 struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         string     `bun:"id,pk"`
	ProjectID  string     `bun:"project_id,notnull"`
	Name       string     `bun:"name,notnull"`
	Prefix     string     `bun:"prefix,notnull"`
	Hash       []byte     `bun:"hash,notnull"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

type transactionV1 struct {
	bun.BaseModel `bun:"table:reclaim_transactions"`

	ID             string     `bun:"id,pk"`
	ProjectID      string     `bun:"project_id,notnull"`
	Payer          string     `bun:"payer,notnull"`
	Type           string     `bun:"type,notnull"`
	GrossRebate    int64      `bun:"gross_rebate,notnull"`
	NetRebate      int64      `bun:"net_rebate,notnull"`
	DonationAmount int64      `bun:"donation_amount,notnull"`
	NetworkFee     int64      `bun:"network_fee,notnull"`
	ServiceFee     int64      `bun:"service_fee,notnull"`
	Fees           int64      `bun:"fees,notnull"`
	ItemCount      int64      `bun:"item_count,notnull"`
	Signature      string     `bun:"signature,notnull"`
	TicketJTI      string     `bun:"ticket_jti,notnull"`
	Status         string     `bun:"status,notnull"`
	Error          string     `bun:"error,notnull"`
	CreatedAt      time.Time  `bun:"created_at,notnull"`
	ConfirmedAt    *time.Time `bun:"confirmed_at"`
}

func upInitial(ctx context.Context, db bun.IDB) error {
	tables := []struct {
		model any
		fk    string
	}{
		{model: (*projectV1)(nil)},
		{model: (*apiKeyV1)(nil), fk: `("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE`},
		{model: (*transactionV1)(nil), fk: `("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE`},
	}
	for _, t := range tables {
		q := db.NewCreateTable().Model(t.model).IfNotExists()
		if t.fk != "" {
			q = q.ForeignKey(t.fk)
		}
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
	}
	indexes := []struct {
		model   any
		name    string
		unique  bool
		columns []string
		where   string
	}{
		{model: (*apiKeyV1)(nil), name: "api_keys_hash_key", unique: true, columns: []string{"hash"}},
		{model: (*apiKeyV1)(nil), name: "api_keys_project_id_idx", columns: []string{"project_id", "created_at"}},
		{model: (*transactionV1)(nil), name: "reclaim_transactions_ticket_jti_key", unique: true, columns: []string{"ticket_jti"}},
		{model: (*transactionV1)(nil), name: "reclaim_transactions_signature_key", unique: true, columns: []string{"signature"}, where: "signature <> ''"},
		// Stats and date-filtered leaderboards: the confirmed rows of a project,
		// by confirmation time.
		{model: (*transactionV1)(nil), name: "reclaim_transactions_project_status_confirmed_idx", columns: []string{"project_id", "status", "confirmed_at"}},
		// Leaderboards of one payer.
		{model: (*transactionV1)(nil), name: "reclaim_transactions_project_payer_idx", columns: []string{"project_id", "payer"}},
	}
	for _, ix := range indexes {
		q := db.NewCreateIndex().Model(ix.model).Index(ix.name).Column(ix.columns...).IfNotExists()
		if ix.unique {
			q = q.Unique()
		}
		if ix.where != "" {
			q = q.Where(ix.where)
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("create index %s: %w", ix.name, err)
		}
	}
	return nil
}

type payerTotalV2 struct {
	bun.BaseModel `bun:"table:reclaim_payer_totals"`

	ProjectID                string `bun:"project_id,pk"`
	Payer                    string `bun:"payer,pk"`
	Type                     string `bun:"type,pk"`
	GrossRebate              int64  `bun:"gross_rebate,notnull"`
	NetRebate                int64  `bun:"net_rebate,notnull"`
	TransactionCount         int64  `bun:"transaction_count,notnull"`
	TokenAccountClosureCount int64  `bun:"token_account_closure_count,notnull"`
	TokenBurnCount           int64  `bun:"token_burn_count,notnull"`
	NFTBurnCount             int64  `bun:"nft_burn_count,notnull"`
	DonationAmount           int64  `bun:"donation_amount,notnull"`
	DonationCount            int64  `bun:"donation_count,notnull"`
	CommunityAmount          int64  `bun:"community_amount,notnull"`
}

// payerTotalsV2 fills reclaim_payer_totals from the confirmed rows: one row per
// project, payer and type, and one per project and payer with type ”.
const payerTotalsV2 = `
INSERT INTO reclaim_payer_totals (project_id, payer, type, gross_rebate, net_rebate, transaction_count,
	token_account_closure_count, token_burn_count, nft_burn_count, donation_amount, donation_count, community_amount)
SELECT project_id, payer, t, SUM(gross_rebate), SUM(net_rebate), COUNT(*),
	COUNT(CASE WHEN type = 'token_account_closure' THEN 1 END),
	COUNT(CASE WHEN type = 'token_burn' THEN 1 END),
	COUNT(CASE WHEN type = 'nft_burn' THEN 1 END),
	SUM(donation_amount), COUNT(CASE WHEN donation_amount > 0 THEN 1 END), SUM(service_fee)
FROM (
	SELECT project_id, payer, type, type AS t, gross_rebate, net_rebate, donation_amount, service_fee
	FROM reclaim_transactions WHERE status = 'confirmed'
	UNION ALL
	SELECT project_id, payer, type, '' AS t, gross_rebate, net_rebate, donation_amount, service_fee
	FROM reclaim_transactions WHERE status = 'confirmed'
) AS confirmed
GROUP BY project_id, payer, t`

// upPayerTotals adds the running per-wallet totals that the unfiltered
// leaderboard and the stats read: aggregating a million ledger rows per
// request took over a second on Postgres; reading 50k totals takes
// milliseconds.
func upPayerTotals(ctx context.Context, db bun.IDB) error {
	if _, err := db.NewCreateTable().Model((*payerTotalV2)(nil)).IfNotExists().
		ForeignKey(`("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE`).
		Exec(ctx); err != nil {
		return err
	}
	if _, err := db.NewCreateIndex().Model((*payerTotalV2)(nil)).Index("reclaim_payer_totals_rank_idx").
		Column("project_id", "type", "gross_rebate").IfNotExists().Exec(ctx); err != nil {
		return err
	}
	// Start from empty, so a rerun after an interrupted first run does not
	// count twice.
	if _, err := db.NewDelete().Model((*payerTotalV2)(nil)).Where("1 = 1").Exec(ctx); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, payerTotalsV2)
	return err
}
