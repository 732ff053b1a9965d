package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// Migration 14 counts the transaction types of issue 23 (excess rent
// withdrawals, program buffer and nonce account closures, stake
// withdrawals) in the per-wallet rollups: a column each in
// reclaim_payer_totals and reclaim_rollup_periods, added with a constant
// default (0: no row of those types was ever recorded before), which
// neither database writes into existing rows. On Postgres the ranking
// indexes of migration 9 carry the type counts, so that a deep page is read
// from the index alone; after the columns, typesAfter builds their
// successors with every type's count, concurrently, and drops them.

// typesV14 are the types whose counts migration 14 adds.
var typesV14 = []string{ledger.TypeExcessRentWithdrawal, ledger.TypeProgramBufferClosure, ledger.TypeNonceAccountClosure, ledger.TypeStakeAccountWithdrawal}

// rankIndexesV14 replace migration 9's ranking indexes (the same keys,
// rankInclude14) on Postgres.
var rankIndexesV14 = []struct {
	rollupIndex
	replaces string
}{
	{rollupIndex{
		name: "reclaim_rollup_periods_rank_types_idx", table: "reclaim_rollup_periods",
		pgColumns: `project_id, type, period, bucket, gross_rebate DESC, payer COLLATE "C"`, include: rankIncludeV14,
	}, "reclaim_rollup_periods_rank_idx"},
	{rollupIndex{
		name: "reclaim_payer_totals_board_types_idx", table: "reclaim_payer_totals",
		pgColumns: `project_id, type, gross_rebate DESC, payer COLLATE "C"`, include: rankIncludeV14,
	}, "reclaim_payer_totals_board_idx"},
}

// rankIncludeV14 is what a ranking index carries besides its key from
// migration 14 on: every figure of the leaderboard's rows.
const rankIncludeV14 = ` INCLUDE (net_rebate, transaction_count, token_account_closure_count, token_burn_count, nft_burn_count,
	excess_rent_withdrawal_count, program_buffer_closure_count, nonce_account_closure_count, stake_account_withdrawal_count,
	donation_amount, donation_count, community_amount)`

func upTypeCounts(ctx context.Context, db bun.IDB) error {
	return addTypeCounts(ctx, db, typesV14)
}

// Migration 24 counts lookup_table_reclaim (issue 34) as migration 14
// counted its types. The Postgres ranking indexes do not carry its count:
// a deep leaderboard page reads it from the table.
func upLookupTableCounts(ctx context.Context, db bun.IDB) error {
	return addTypeCounts(ctx, db, []string{ledger.TypeLookupTableReclaim})
}

// addTypeCounts adds the count columns of types to both rollup tables,
// those that are not there yet.
func addTypeCounts(ctx context.Context, db bun.IDB, types []string) error {
	pg := db.Dialect().Name() == dialect.PG
	for _, table := range []string{"reclaim_payer_totals", "reclaim_rollup_periods"} {
		for _, t := range types {
			col := typeCountColumn(t)
			exists, err := hasColumn(ctx, db, pg, table, col)
			if err != nil {
				return err
			}
			if exists {
				continue
			}
			if _, err := db.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s BIGINT NOT NULL DEFAULT 0", table, col)); err != nil {
				return fmt.Errorf("add %s.%s: %w", table, col, err)
			}
		}
	}
	return nil
}

// typesAfter builds the ranking indexes of migration 14 on Postgres, then
// drops those they replace: reads keep an index all along.
func typesAfter(ctx context.Context, s *core) error {
	if !s.postgres {
		return nil
	}
	db, done := s.maintenanceDB()
	defer done()
	for _, ix := range rankIndexesV14 {
		if err := createConcurrently(ctx, db, ix.rollupIndex); err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, "DROP INDEX CONCURRENTLY IF EXISTS "+ix.replaces); err != nil {
			return fmt.Errorf("drop index %s: %w", ix.replaces, err)
		}
	}
	return nil
}
