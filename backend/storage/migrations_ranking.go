package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Migration 10 lets each process keep a project's ranking in memory
// (package ranking, fed by ranking.go) and bring it up to date with what
// other processes confirmed:
//
//   - reclaim_project_totals.version counts the changes to a project's
//     rollups. Every statement that adds to them increments it, under the
//     lock of the project's totals row, which it holds until it commits: the
//     versions of a project are taken in the order their transactions commit.
//   - reclaim_transactions.rank_version is the version that counted the row
//     (0: counted before this migration, or not confirmed): the rows a
//     ranking at version v lacks are those above v.
//
// Both columns come with a constant default, which neither database writes
// into existing rows; the index over rank_version is built concurrently on
// Postgres (afterRanking), so the ledger stays writable throughout.
func upRanking(ctx context.Context, db bun.IDB) error {
	pg := db.Dialect().Name() == dialect.PG
	for _, c := range []struct{ table, column string }{
		{"reclaim_project_totals", "version"},
		{"reclaim_transactions", "rank_version"},
	} {
		exists, err := hasColumn(ctx, db, pg, c.table, c.column)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s BIGINT NOT NULL DEFAULT 0", c.table, c.column)); err != nil {
			return fmt.Errorf("add %s.%s: %w", c.table, c.column, err)
		}
	}
	if !pg {
		for _, ix := range rankingIndexes {
			if _, err := db.ExecContext(ctx, ix.create(false, false)); err != nil {
				return fmt.Errorf("create index %s: %w", ix.name, err)
			}
		}
	}
	return nil
}

// rankingIndexes are the indexes of migration 10, both on the ledger.
var rankingIndexes = []rollupIndex{
	// The rows a ranking lacks (rank_version above its own).
	{
		name: "reclaim_transactions_rank_version_idx", table: "reclaim_transactions", onLedger: true,
		columns: "project_id, rank_version", where: "rank_version > 0",
	},
	// One wallet's confirmed rows in a time range: the page of a ranged
	// leaderboard sums its wallets' rows of the range's partial days.
	{
		name: "reclaim_transactions_payer_confirmed_idx", table: "reclaim_transactions", onLedger: true,
		columns: "project_id, payer, confirmed_at", where: "status = 'confirmed'",
	},
}

// afterRanking builds the indexes of migration 10 on Postgres without
// blocking writes.
func afterRanking(ctx context.Context, s *core) error {
	if !s.postgres {
		return nil
	}
	db, done := s.maintenanceDB()
	defer done()
	for _, ix := range rankingIndexes {
		if err := createConcurrently(ctx, db, ix); err != nil {
			return err
		}
	}
	// Until rank_version has statistics, the planner takes "rank_version >
	// v" for a third of the ledger, and a query that reads no row spent
	// 225 ms compiling itself (JIT) at 10,000,000 rows.
	_, err := db.ExecContext(ctx, "ANALYZE reclaim_transactions (rank_version)")
	return err
}

// hasColumn reports whether table has column.
func hasColumn(ctx context.Context, db bun.IDB, pg bool, table, column string) (bool, error) {
	var n int
	q := "SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?"
	if pg {
		q = `SELECT COUNT(*) FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?`
	}
	if err := db.QueryRowContext(ctx, q, table, column).Scan(&n); err != nil {
		return false, fmt.Errorf("look for %s.%s: %w", table, column, err)
	}
	return n > 0, nil
}
