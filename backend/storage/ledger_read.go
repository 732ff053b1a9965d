package storage

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

var _ ledger.Store = (*Rankings)(nil)

// Stats returns the totals of a project's confirmed entries, all zero when it
// has none: one row of its rollups (reclaim_project_totals), or, while they
// do not count every row (rollupsUsable), one aggregate over the per-wallet
// totals. With RankingsOptions.StatsTTL, from memory for a short time
// (stats_cache.go).
func (s *Rankings) Stats(ctx context.Context, projectID string) (ledger.Stats, error) {
	st, read, ok := s.stats.get(projectID)
	if ok {
		return st, nil
	}
	st, err := s.readStats(ctx, projectID)
	if err == nil {
		s.stats.put(projectID, st, read)
	}
	return st, err
}

// readStats reads the project's stats from the database.
func (s *Rankings) readStats(ctx context.Context, projectID string) (ledger.Stats, error) {
	ok, err := s.rollupsUsable(ctx, projectID)
	if err != nil {
		return ledger.Stats{}, fmt.Errorf("stats of %s: %w", projectID, err)
	}
	var st ledger.Stats
	if ok {
		st, err = s.statsFromRollups(ctx, projectID)
	} else {
		st, err = s.statsFromPayerTotals(ctx, projectID)
	}
	if err != nil {
		return ledger.Stats{}, fmt.Errorf("stats of %s: %w", projectID, err)
	}
	return st, nil
}

// statsFromPayerTotals sums the per-wallet totals of all time.
func (s *Rankings) statsFromPayerTotals(ctx context.Context, projectID string) (ledger.Stats, error) {
	var st ledger.Stats
	err := s.db.NewSelect().
		TableExpr("reclaim_payer_totals").
		ColumnExpr("CAST(COALESCE(SUM(gross_rebate), 0) AS BIGINT)").
		ColumnExpr("CAST(COALESCE(SUM(net_rebate), 0) AS BIGINT)").
		ColumnExpr("CAST(COALESCE(SUM(transaction_count), 0) AS BIGINT)").
		ColumnExpr("COUNT(CASE WHEN transaction_count > 0 THEN 1 END)").
		ColumnExpr("CAST(COALESCE(SUM(donation_count), 0) AS BIGINT)").
		ColumnExpr("CAST(COALESCE(SUM(donation_amount), 0) AS BIGINT)").
		Where("project_id = ?", projectID).
		Where("type = ''").
		Scan(ctx, &st.TotalGrossRebate, &st.TotalNetRebate, &st.TotalTransactionCount,
			&st.TotalWallets, &st.TotalDonations, &st.TotalDonationAmount)
	if err != nil {
		return st, err
	}
	// The per-wallet totals keep no split: the rows are summed (this
	// fallback answers only during a rolling upgrade).
	err = s.db.NewSelect().TableExpr("reclaim_transactions").ColumnExpr(rentSums).
		Where("project_id = ?", projectID).Where("status = 'confirmed'").
		Scan(ctx, &st.TotalRentRebate, &st.TotalOwnBalanceRebate)
	return st, err
}

// leaderboardRow is one row of the leaderboard query.
type leaderboardRow struct {
	Payer                 string `bun:"payer"`
	TotalGrossRebate      int64  `bun:"total_gross_rebate"`
	TotalNetRebate        int64  `bun:"total_net_rebate"`
	TotalTransactionCount int64  `bun:"total_transaction_count"`
	TokenAccountClosures  int64  `bun:"token_account_closure_count"`
	TokenBurns            int64  `bun:"token_burn_count"`
	NFTBurns              int64  `bun:"nft_burn_count"`
	ExcessRentWithdrawals int64  `bun:"excess_rent_withdrawal_count"`
	BufferClosures        int64  `bun:"program_buffer_closure_count"`
	NonceClosures         int64  `bun:"nonce_account_closure_count"`
	StakeWithdrawals      int64  `bun:"stake_account_withdrawal_count"`
	LookupTableReclaims   int64  `bun:"lookup_table_reclaim_count"`
	TotalDonationAmount   int64  `bun:"total_donation_amount"`
	TotalDonationCount    int64  `bun:"total_donation_count"`
	TotalCommunityAmount  int64  `bun:"total_community_amount"`
}

// Leaderboard returns one page of a project's wallets, aggregated over the
// confirmed entries that match f (times apply to ConfirmedAt), ranked by total
// gross rebate descending then payer ascending, in one query: over the
// per-wallet totals when f has no time bounds, over the rollups otherwise
// (leaderboardFromRollups), or over the ledger rows while the rollups do not
// count every row (rollupsUsable).
func (s *Rankings) Leaderboard(ctx context.Context, projectID string, f ledger.Filter) ([]ledger.LeaderboardEntry, error) {
	if f.Limit <= 0 {
		f.Limit = ledger.DefaultLimit
	}
	undated := f.Start == nil && f.End == nil
	if undated && (f.Offset < s.deepOffset || f.Payer != "") {
		return s.leaderboardPage(ctx, projectID, s.rankedTotals("reclaim_payer_totals", projectID, f), f)
	}
	ok, err := s.rollupsUsable(ctx, projectID)
	switch {
	case err != nil:
		return nil, fmt.Errorf("leaderboard of %s: %w", projectID, err)
	case !ok && undated:
		return s.leaderboardPage(ctx, projectID, s.rankedTotals("reclaim_payer_totals", projectID, f), f)
	case !ok:
		return s.leaderboardPage(ctx, projectID, s.leaderboardFromEntries(projectID, f), f)
	}
	// A page ranked in memory is summed in SQL; should the sums not be the
	// ranking's (a row confirmed in between), it is ranked again, and at
	// the last attempt summed in SQL alone.
	for attempt := 1; ; attempt++ {
		q, paged, check, err := s.leaderboardFromRollups(ctx, projectID, f, attempt < rankAttempts)
		if err != nil {
			return nil, fmt.Errorf("leaderboard of %s: %w", projectID, err)
		}
		if q == nil {
			return []ledger.LeaderboardEntry{}, nil
		}
		var entries []ledger.LeaderboardEntry
		switch pf := f; {
		case paged && s.postgres: // even for a few wallets: a parallel plan's workers took 25 ms to start
			pf.Offset = 0
			entries, err = s.summedPage(ctx, projectID, q, pf)
		case paged:
			pf.Offset = 0
			entries, err = s.leaderboardPage(ctx, projectID, q, pf)
		default:
			entries, err = s.leaderboardPage(ctx, projectID, q, f)
		}
		if err != nil || check == nil || check.Holds(entries) {
			return entries, err
		}
	}
}

// rankAttempts is how many times a page is ranked in memory before it is
// ranked in SQL.
const rankAttempts = 3

// pgSumSettings are what a leaderboard that sums rollups per wallet runs
// with on Postgres, for its transaction alone: a hash table of 50,000
// wallets needs about 18 MB (the default work_mem, 4 MB, spills it to
// disk), and on two cores a serial plan took half the time of a parallel
// one that merges sorted partial sums.
const pgSumSettings = "SELECT set_config('work_mem', '32MB', true), set_config('max_parallel_workers_per_gather', '0', true)"

// summedPage is leaderboardPage for a query that sums rollups, in a
// read-only transaction with pgSumSettings.
func (s *Rankings) summedPage(ctx context.Context, projectID string, q *bun.SelectQuery, f ledger.Filter) ([]ledger.LeaderboardEntry, error) {
	var entries []ledger.LeaderboardEntry
	err := s.db.RunInTx(ctx, &sql.TxOptions{ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, pgSumSettings); err != nil {
			return err
		}
		var err error
		entries, err = s.leaderboardPage(ctx, projectID, q.Conn(tx), f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("leaderboard of %s: %w", projectID, err)
	}
	return entries, nil
}

// leaderboardPage ranks the rows of q and returns the page f asks for.
func (s *Rankings) leaderboardPage(ctx context.Context, projectID string, q *bun.SelectQuery, f ledger.Filter) ([]ledger.LeaderboardEntry, error) {
	var rows []leaderboardRow
	err := q.OrderExpr("total_gross_rebate DESC").
		OrderExpr(s.payerOrder()).
		Limit(f.Limit).
		Offset(f.Offset).
		Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("leaderboard of %s: %w", projectID, err)
	}
	entries := make([]ledger.LeaderboardEntry, len(rows))
	for i, r := range rows {
		entries[i] = ledger.LeaderboardEntry{
			Payer:                 r.Payer,
			TotalGrossRebate:      r.TotalGrossRebate,
			TotalNetRebate:        r.TotalNetRebate,
			TotalTransactionCount: r.TotalTransactionCount,
			TransactionTypeCounts: map[string]int64{
				ledger.TypeTokenAccountClosure:    r.TokenAccountClosures,
				ledger.TypeTokenBurn:              r.TokenBurns,
				ledger.TypeNFTBurn:                r.NFTBurns,
				ledger.TypeExcessRentWithdrawal:   r.ExcessRentWithdrawals,
				ledger.TypeProgramBufferClosure:   r.BufferClosures,
				ledger.TypeNonceAccountClosure:    r.NonceClosures,
				ledger.TypeStakeAccountWithdrawal: r.StakeWithdrawals,
				ledger.TypeLookupTableReclaim:     r.LookupTableReclaims,
			},
			TotalDonationAmount:  r.TotalDonationAmount,
			TotalDonationCount:   r.TotalDonationCount,
			TotalCommunityAmount: r.TotalCommunityAmount,
		}
	}
	return entries, nil
}

// payerOrder orders payers byte-wise on both databases: a Postgres database
// with a natural-language collation would otherwise sort them its own way.
func (s *Rankings) payerOrder() string {
	if s.postgres {
		return `payer COLLATE "C" ASC`
	}
	return "payer ASC"
}

// rankedTotals reads one row per wallet from table, the per-wallet totals of
// all time (reclaim_payer_totals) or of a month or year (the caller adds its
// bucket to reclaim_rollup_periods): both are read in rank order from an
// index, whatever the size of the ledger.
func (s *Rankings) rankedTotals(table, projectID string, f ledger.Filter) *bun.SelectQuery {
	q := s.db.NewSelect().
		TableExpr(table).
		ColumnExpr("payer").
		ColumnExpr("gross_rebate AS total_gross_rebate").
		ColumnExpr("net_rebate AS total_net_rebate").
		ColumnExpr("transaction_count AS total_transaction_count").
		ColumnExpr(commaList(typeCountColumns())).
		ColumnExpr("donation_amount AS total_donation_amount").
		ColumnExpr("donation_count AS total_donation_count").
		ColumnExpr("community_amount AS total_community_amount").
		Where("project_id = ?", projectID).
		Where("type = ?", f.Type). // "" is the all-types row
		Where("transaction_count > 0")
	if f.Payer != "" {
		q = q.Where("payer = ?", f.Payer)
	}
	return q
}

// leaderboardFromEntries aggregates the confirmed ledger rows in a time range.
func (s *Rankings) leaderboardFromEntries(projectID string, f ledger.Filter) *bun.SelectQuery {
	q := s.db.NewSelect().
		TableExpr("reclaim_transactions").
		ColumnExpr("payer").
		ColumnExpr("CAST(SUM(gross_rebate) AS BIGINT) AS total_gross_rebate").
		ColumnExpr("CAST(SUM(net_rebate) AS BIGINT) AS total_net_rebate").
		ColumnExpr("COUNT(*) AS total_transaction_count").
		ColumnExpr(typeCountsAs()).
		ColumnExpr("CAST(SUM(donation_amount) AS BIGINT) AS total_donation_amount").
		ColumnExpr("COUNT(CASE WHEN donation_amount > 0 THEN 1 END) AS total_donation_count").
		ColumnExpr("CAST(SUM(service_fee) AS BIGINT) AS total_community_amount").
		Where("project_id = ?", projectID).
		Where("status = ?", ledger.StatusConfirmed).
		GroupExpr("payer")
	if f.Payer != "" {
		q = q.Where("payer = ?", f.Payer)
	}
	if f.Type != "" {
		q = q.Where("type = ?", f.Type)
	}
	if f.Start != nil {
		q = q.Where("confirmed_at >= ?", utc(*f.Start))
	}
	if f.End != nil {
		q = q.Where("confirmed_at < ?", utc(*f.End))
	}
	return q
}
