package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Values of reclaim_transactions.rollup_state: whether a row's figures are
// in the rollups.
const (
	// rollupNotCounted: not confirmed yet, or confirmed by a version without
	// rollups (during a rolling upgrade); catchUpRollups counts the latter.
	rollupNotCounted = 0
	// rollupLegacy: final before migration 9; the backfill counts the
	// confirmed ones, in the order its cursor says.
	rollupLegacy = 1
	// rollupCounted: counted by the transaction that confirmed it.
	rollupCounted = 2
)

// rollupFigures are the figure columns every per-wallet rollup keeps.
const rollupFigures = `gross_rebate BIGINT NOT NULL, net_rebate BIGINT NOT NULL, transaction_count BIGINT NOT NULL,
	%s donation_amount BIGINT NOT NULL, donation_count BIGINT NOT NULL, community_amount BIGINT NOT NULL`

// typeCountColumnsV9 are the type counts of migration 9 (frozen: migration
// 14 added the others).
const typeCountColumnsV9 = `token_account_closure_count BIGINT NOT NULL, token_burn_count BIGINT NOT NULL, nft_burn_count BIGINT NOT NULL,`

// rollupTables are the tables of migration 9, as CREATE TABLE statements
// with the dialect's clauses left as placeholders: {include} is the INCLUDE
// of a covering primary key (Postgres), {rowid} WITHOUT ROWID (SQLite, where
// a table is then stored in its primary key's order).
var rollupTables = []string{
	// One wallet's confirmed entries of one type on one UTC day (days since
	// 1970-01-01), by confirmation time. A day's rows are read in payer
	// order, so that one day sums per wallet without sorting.
	`CREATE TABLE IF NOT EXISTS reclaim_rollup_days (
	project_id VARCHAR NOT NULL,
	day INTEGER NOT NULL, type VARCHAR NOT NULL, payer VARCHAR NOT NULL,
	` + fmt.Sprintf(rollupFigures, "") + `,
	PRIMARY KEY (project_id, day, payer, type){include}){rowid}`,
	// One wallet's confirmed entries of one type ("" for all types) in one
	// UTC month (period 1, bucket year*12 + month-1) or year (period 2,
	// bucket the year).
	`CREATE TABLE IF NOT EXISTS reclaim_rollup_periods (
	project_id VARCHAR NOT NULL,
	payer VARCHAR NOT NULL, type VARCHAR NOT NULL, period SMALLINT NOT NULL, bucket INTEGER NOT NULL,
	` + fmt.Sprintf(rollupFigures, typeCountColumnsV9) + `,
	PRIMARY KEY (project_id, payer, type, period, bucket)){rowid}`,
	// A project's confirmed entries per UTC day: the console's chart.
	`CREATE TABLE IF NOT EXISTS reclaim_project_days (
	project_id VARCHAR NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	day INTEGER NOT NULL, gross_rebate BIGINT NOT NULL, transaction_count BIGINT NOT NULL,
	PRIMARY KEY (project_id, day)){rowid}`,
	// A project's totals: the stats.
	`CREATE TABLE IF NOT EXISTS reclaim_project_totals (
	project_id VARCHAR NOT NULL PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
	gross_rebate BIGINT NOT NULL, net_rebate BIGINT NOT NULL, transaction_count BIGINT NOT NULL,
	wallet_count BIGINT NOT NULL, donation_count BIGINT NOT NULL, donation_amount BIGINT NOT NULL)`,
	// Where the backfill of migration 9 is: the legacy rows of projects
	// before project_id, and of project_id's payers up to payer, are counted.
	`CREATE TABLE IF NOT EXISTS reclaim_rollup_backfill (
	id INTEGER NOT NULL PRIMARY KEY, project_id VARCHAR NOT NULL, payer VARCHAR NOT NULL, done BOOLEAN NOT NULL)`,
}

// rankIncludeV9 is what a ranking index of migration 9 carries besides its
// key on Postgres, so that a page at a deep offset is read from the index
// alone (frozen: migration 14 replaced those indexes with ones that carry
// every type's count).
const rankIncludeV9 = ` INCLUDE (net_rebate, transaction_count, token_account_closure_count, token_burn_count, nft_burn_count,
	donation_amount, donation_count, community_amount)`

// rollupIndex is an index of migration 9. On an existing table (onLedger)
// Postgres builds it concurrently, outside the migration's transaction, so
// the service keeps confirming while it is built.
type rollupIndex struct {
	name, table, columns string
	// pgColumns replaces columns on Postgres (payer ranked byte-wise).
	pgColumns string
	include   string // Postgres only
	where     string
	onLedger  bool
}

var rollupIndexes = []rollupIndex{
	// Every day of a range for one payer.
	{name: "reclaim_rollup_days_payer_idx", table: "reclaim_rollup_days", columns: "project_id, payer, day"},
	// A month or a year ranked as the leaderboard ranks: a page at any offset
	// is a range of this index.
	{
		name: "reclaim_rollup_periods_rank_idx", table: "reclaim_rollup_periods",
		columns:   "project_id, type, period, bucket, gross_rebate DESC, payer",
		pgColumns: `project_id, type, period, bucket, gross_rebate DESC, payer COLLATE "C"`, include: rankIncludeV9,
	},
	// All time ranked the same way (replaces reclaim_payer_totals_rank_idx,
	// which left the payer order to a sort of every wallet).
	{
		name: "reclaim_payer_totals_board_idx", table: "reclaim_payer_totals", onLedger: true,
		columns:   "project_id, type, gross_rebate DESC, payer",
		pgColumns: `project_id, type, gross_rebate DESC, payer COLLATE "C"`, include: rankIncludeV9,
	},
	// Confirmed rows the rollups do not count yet: normally none.
	{
		name: "reclaim_transactions_uncounted_idx", table: "reclaim_transactions", onLedger: true,
		columns: "project_id", where: "status = 'confirmed' AND rollup_state = 0",
	},
}

func (ix rollupIndex) create(pg, concurrently bool) string {
	cols, include := ix.columns, ""
	if pg {
		if ix.pgColumns != "" {
			cols = ix.pgColumns
		}
		include = ix.include
	}
	how := "INDEX"
	if concurrently {
		how = "INDEX CONCURRENTLY"
	}
	q := fmt.Sprintf("CREATE %s IF NOT EXISTS %s ON %s (%s)%s", how, ix.name, ix.table, cols, include)
	if ix.where != "" {
		q += " WHERE " + ix.where
	}
	return q
}

// upRollups adds the rollups that stats, leaderboards and the chart read
// (see docs/decisions.md, "rollups"). This transaction only changes the
// schema, in moments: rollup_state comes with a constant default, which
// neither database writes into existing rows. The rows are counted by
// backfillRollups, in batches, after it.
func upRollups(ctx context.Context, db bun.IDB) error {
	pg := db.Dialect().Name() == dialect.PG
	include, withoutRowID := "", " WITHOUT ROWID"
	if pg {
		include, withoutRowID = " INCLUDE (gross_rebate, net_rebate, transaction_count, donation_amount, donation_count, community_amount)", ""
	}
	dialectClauses := strings.NewReplacer("{include}", include, "{rowid}", withoutRowID)
	for _, t := range rollupTables {
		if _, err := db.ExecContext(ctx, dialectClauses.Replace(t)); err != nil {
			return fmt.Errorf("create rollup table: %w", err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO reclaim_rollup_backfill (id, project_id, payer, done)
		VALUES (1, '', '', FALSE) ON CONFLICT (id) DO NOTHING`); err != nil {
		return err
	}
	if err := addRollupState(ctx, db, pg); err != nil {
		return err
	}
	for _, ix := range rollupIndexes {
		if ix.onLedger && pg {
			continue // built concurrently by afterRollups
		}
		if _, err := db.ExecContext(ctx, ix.create(pg, false)); err != nil {
			return fmt.Errorf("create index %s: %w", ix.name, err)
		}
	}
	if !pg {
		_, err := db.ExecContext(ctx, "DROP INDEX IF EXISTS reclaim_payer_totals_rank_idx")
		return err
	}
	return nil
}

// addRollupState adds rollup_state: rows recorded before are legacy (1),
// rows recorded after start uncounted (0). Postgres gives existing rows the
// default the column was added with and later rows the one set after; SQLite
// reads the column's declared default for rows that predate it, so there the
// default stays 1 and this version writes the column explicitly on every
// insert. afterRollups moves the rows still in flight back to 0: they are
// counted when they are confirmed, by whichever version confirms them.
func addRollupState(ctx context.Context, db bun.IDB, pg bool) error {
	exists, err := hasColumn(ctx, db, pg, "reclaim_transactions", "rollup_state")
	if err != nil {
		return err
	}
	if !exists {
		if _, err := db.ExecContext(ctx, "ALTER TABLE reclaim_transactions ADD COLUMN rollup_state SMALLINT NOT NULL DEFAULT 1"); err != nil {
			return err
		}
		if pg {
			if _, err := db.ExecContext(ctx, "ALTER TABLE reclaim_transactions ALTER COLUMN rollup_state SET DEFAULT 0"); err != nil {
				return err
			}
		}
	}
	return nil
}

// afterRollups finishes migration 9 outside its transaction, so that the
// ledger stays writable meanwhile. It moves the rows still in flight back to
// uncounted (before the backfill starts, which counts any an older version
// confirms before they move; a few hundred rows usually, though the
// benchmark's ledgers leave 1% in flight), and on Postgres builds the indexes
// of existing tables concurrently. Migrate then counts the legacy rows
// (runBackfill).
func afterRollups(ctx context.Context, s *core) error {
	db, done := s.maintenanceDB()
	defer done()
	_, err := db.ExecContext(ctx, "UPDATE reclaim_transactions SET rollup_state = 0 WHERE status IN ('sending', 'submitted') AND rollup_state = 1")
	if err != nil {
		return fmt.Errorf("rows in flight: %w", err)
	}
	if !s.postgres {
		return nil
	}
	for _, ix := range rollupIndexes {
		if !ix.onLedger {
			continue
		}
		if err := createConcurrently(ctx, db, ix); err != nil {
			return err
		}
	}
	_, err = db.ExecContext(ctx, "DROP INDEX CONCURRENTLY IF EXISTS reclaim_payer_totals_rank_idx")
	return err
}

// createConcurrently builds ix without blocking writes. A build that was
// interrupted leaves an invalid index behind, which IF NOT EXISTS would keep:
// drop it first.
func createConcurrently(ctx context.Context, db *bun.DB, ix rollupIndex) error {
	var valid bool
	err := db.QueryRowContext(ctx, "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(?)", ix.name).Scan(&valid)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("look for index %s: %w", ix.name, err)
	case !valid:
		if _, err := db.ExecContext(ctx, "DROP INDEX CONCURRENTLY IF EXISTS "+ix.name); err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, ix.create(true, true)); err != nil {
		return fmt.Errorf("create index %s: %w", ix.name, err)
	}
	return nil
}
