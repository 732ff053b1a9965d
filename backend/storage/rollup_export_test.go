package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger/ranking"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger/rollup"
)

// The row-by-row answers, as the store gave them before rollups: what the
// rollups must equal.

// LeaderboardFromRows aggregates the ledger rows that match f.
func LeaderboardFromRows(ctx context.Context, s *Rankings, projectID string, f ledger.Filter) ([]ledger.LeaderboardEntry, error) {
	if f.Limit <= 0 {
		f.Limit = ledger.DefaultLimit
	}
	return s.leaderboardPage(ctx, projectID, s.leaderboardFromEntries(projectID, f), f)
}

// StatsFromRows aggregates the project's confirmed ledger rows.
func StatsFromRows(ctx context.Context, s *Rankings, projectID string) (ledger.Stats, error) {
	var st ledger.Stats
	err := s.db.NewSelect().TableExpr("reclaim_transactions").
		ColumnExpr("CAST(COALESCE(SUM(gross_rebate), 0) AS BIGINT)").
		ColumnExpr("CAST(COALESCE(SUM(net_rebate), 0) AS BIGINT)").
		ColumnExpr("COUNT(*)").
		ColumnExpr("COUNT(DISTINCT payer)").
		ColumnExpr("COUNT(CASE WHEN donation_amount > 0 THEN 1 END)").
		ColumnExpr("CAST(COALESCE(SUM(donation_amount), 0) AS BIGINT)").
		Where("project_id = ?", projectID).Where("status = 'confirmed'").
		Scan(ctx, &st.TotalGrossRebate, &st.TotalNetRebate, &st.TotalTransactionCount,
			&st.TotalWallets, &st.TotalDonations, &st.TotalDonationAmount)
	return st, err
}

// DailyTotalsFromRows aggregates the ledger rows of [from, to) by day.
func DailyTotalsFromRows(ctx context.Context, s *Rankings, projectID string, from, to time.Time) ([]ledger.DailyTotal, error) {
	return s.dailyTotalsFromRows(ctx, projectID, from, to)
}

// RollupsUsable reports whether the store answers projectID's stats and
// leaderboards from the rollups.
func RollupsUsable(ctx context.Context, s *Rankings, projectID string) (bool, error) {
	return s.rollupsUsable(ctx, projectID)
}

// ForgetRollups puts the store back as a version before migration 9 left
// it: no rollups, every final row legacy, the backfill not started.
func ForgetRollups(ctx context.Context, s *Rankings) error {
	s.rollupsReady.Store(false)
	s.rank.Reset() // a process that never saw them
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, t := range rollupTablesByName[1:] { // the per-wallet totals stay: every version keeps them
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
				return err
			}
		}
		for _, q := range []string{
			"UPDATE reclaim_transactions SET rollup_state = CASE WHEN status IN ('sending', 'submitted') THEN 0 ELSE 1 END, rank_version = 0",
			"UPDATE reclaim_rollup_backfill SET project_id = '', payer = '', done = FALSE",
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// Undate removes the confirmation time of the entry of a ticket, as
// InsertEntry allowed before migration 9.
func Undate(ctx context.Context, s *DB, jti string) error {
	_, err := s.db.ExecContext(ctx, "UPDATE reclaim_transactions SET confirmed_at = NULL WHERE ticket_jti = ?", jti)
	return err
}

// ConfirmAsBefore confirms the entry of a ticket as a version without
// rollups did: the row and the per-wallet totals, not the rollups.
func ConfirmAsBefore(ctx context.Context, s *DB, jti string, at time.Time) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []transactionRow
		err := tx.NewUpdate().Model(&rows).Set("status = 'confirmed'").Set("confirmed_at = ?", utc(at)).
			Where("ticket_jti = ?", jti).Where("status = 'submitted'").Returning("*").Scan(ctx)
		if err != nil || len(rows) == 0 {
			return err
		}
		_, err = addToTotalsOf(ctx, tx, &rows[0], ledger.Types[:3]) // the types it knew
		return err
	})
}

// BackfillSome counts up to n batches of at most size wallets of the legacy
// rows and reports whether the backfill is done: a backfill interrupted
// after n batches.
func BackfillSome(ctx context.Context, s *DB, n, size int) (done bool, err error) {
	for range n {
		err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			done, _, err = s.backfillBatch(ctx, tx, size)
			return err
		})
		if err != nil || done {
			return done, err
		}
	}
	return false, nil
}

// MigrateBefore applies the migrations named before name only, as an older
// version did.
func MigrateBefore(ctx context.Context, s *DB, name string) error {
	var older []migration
	for _, m := range schema {
		if m.name < name {
			older = append(older, m)
		}
	}
	return s.applySchema(ctx, older)
}

// RollupMigration names migration 9.
const RollupMigration = "20260521000009"

// InsertAsBefore records e as a version before migration 9 did: without
// rollup_state, counted in the per-wallet totals when confirmed.
func InsertAsBefore(ctx context.Context, s *DB, e ledger.Entry) error {
	row := newTransactionRow(e, e.Status)
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&row).ExcludeColumn("rollup_state", "rank_version", "raw_transaction", "includes", "slot", "reported_ticket", "rent_rebate", "landed_at").Exec(ctx); err != nil {
			return err
		}
		if row.Status != ledger.StatusConfirmed {
			return nil
		}
		_, err := addToTotalsOf(ctx, tx, &row, ledger.Types[:3]) // the types it knew
		return err
	})
}

// PlanAs makes s plan ranged leaderboards as for a ledger of perDay
// confirmed rows a day and the given wallets, whatever it holds (every plan
// must give the same answers); zeros restore its own estimates.
func PlanAs(s *Rankings, perDay, wallets float64) {
	s.planCosts = &rollup.Costs{PerDay: perDay, Wallets: wallets}
	if perDay == 0 && wallets == 0 {
		s.planCosts = nil
	}
}

// RankIn makes s rank ranged leaderboards in memory, building a project's
// ranking in the query that first needs it, with a checkpoint every 7 rows
// and merging every 5 new rows, and ranks pages from the fourth on of all
// time, a month or a year in memory too (inMemory); or in SQL alone.
func RankIn(s *Rankings, inMemory bool) {
	t := ranking.Tuning{Inline: inMemory, Off: !inMemory}
	s.deepOffset = defaultDeepOffset
	if inMemory { // and with checkpoints, and merges, however small the ledger
		s.deepOffset, t.Every, t.MergeAt = 3, 7, 5
	}
	s.rank.Tune(t)
}

// RankedInMemory is how many pages s ranked in memory.
func RankedInMemory(s *Rankings) int64 { return s.rank.Served() }

// ConfirmWithoutRanking confirms the entry of a ticket as a version with
// rollups but without migration 10 did: counted everywhere, but neither
// stamped nor counted in the project's version.
func ConfirmWithoutRanking(ctx context.Context, s *Ledger, jti string, landed ledger.Figures, at time.Time) error {
	if ok, err := s.ConfirmEntry(ctx, jti, landed, 0, at); err != nil || !ok {
		return fmt.Errorf("confirm %s: %v %w", jti, ok, err)
	}
	_, err := s.db.ExecContext(ctx, `UPDATE reclaim_project_totals SET version = version - 1
		WHERE project_id = (SELECT project_id FROM reclaim_transactions WHERE ticket_jti = ?)`, jti)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, "UPDATE reclaim_transactions SET rank_version = 0 WHERE ticket_jti = ?", jti)
	return err
}

// RankingBuilds is how many rankings s built.
func RankingBuilds(s *Rankings) int64 { return s.rank.Builds() }

// AddToProjectTotals changes a project's totals row behind the store's
// back, as another instance's confirmation would: n more transactions.
func AddToProjectTotals(ctx context.Context, s *DB, projectID string, n int64) error {
	_, err := s.db.ExecContext(ctx, "UPDATE reclaim_project_totals SET transaction_count = transaction_count + ? WHERE project_id = ?", n, projectID)
	return err
}

// LatestMigration names the newest migration.
func LatestMigration() string { return schema[len(schema)-1].name }
