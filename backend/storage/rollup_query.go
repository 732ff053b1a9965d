package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger/rollup"
)

// rollupsUsable reports whether the rollups of projectID count every
// confirmed row: the backfill of migration 9 is done, and no row that a
// version without rollups confirmed (during a rolling upgrade) waits for
// catchUpRollups. Otherwise the reads fall back to the per-wallet totals and
// the ledger rows, which are exact but cost O(rows).
func (s *Rankings) rollupsUsable(ctx context.Context, projectID string) (bool, error) {
	if !s.rollupsReady.Load() {
		var done bool
		err := s.db.QueryRowContext(ctx, "SELECT done FROM reclaim_rollup_backfill WHERE id = 1").Scan(&done)
		if err != nil || !done {
			return false, nil //nolint:nilerr // not migrated yet: the fallback answers
		}
		s.rollupsReady.Store(true)
	}
	var uncounted bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM reclaim_transactions
		WHERE project_id = ? AND status = 'confirmed' AND rollup_state = 0)`, projectID).Scan(&uncounted)
	if err != nil {
		return false, fmt.Errorf("look for uncounted rows of %s: %w", projectID, err)
	}
	return !uncounted, nil
}

// statsFromRollups reads the project's totals row.
func (s *Rankings) statsFromRollups(ctx context.Context, projectID string) (ledger.Stats, error) {
	var st ledger.Stats
	err := s.db.NewSelect().TableExpr("reclaim_project_totals").
		ColumnExpr("gross_rebate, net_rebate, transaction_count, wallet_count, donation_count, donation_amount").
		ColumnExpr("rent_rebate, own_balance_rebate").
		Where("project_id = ?", projectID).
		Scan(ctx, &st.TotalGrossRebate, &st.TotalNetRebate, &st.TotalTransactionCount,
			&st.TotalWallets, &st.TotalDonations, &st.TotalDonationAmount, &st.TotalRentRebate, &st.TotalOwnBalanceRebate)
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Stats{}, nil
	}
	return st, err
}

// leaderboardFromRollups is the query of a leaderboard with time bounds over
// the rollups, or nil when no row can match; paged reports that it holds
// the page f asks for alone (its rows start at f's offset). The range is first clipped to
// the days with confirmed rows; one that holds every row is the totals of all
// time, one that is a single month or year is a range of its ranking index,
// and any other sums the pieces of its plan (rollup.Plan) per wallet.
func (s *Rankings) leaderboardFromRollups(ctx context.Context, projectID string, f ledger.Filter, inMemory bool) (q *bun.SelectQuery, paged bool, check *rollup.PageCheck, err error) {
	var first, last sql.NullInt64
	var rows, wallets int64
	err = s.db.NewSelect().
		ColumnExpr("(SELECT MIN(day) FROM reclaim_project_days WHERE project_id = ?)", projectID).
		ColumnExpr("(SELECT MAX(day) FROM reclaim_project_days WHERE project_id = ?)", projectID).
		ColumnExpr("COALESCE((SELECT transaction_count FROM reclaim_project_totals WHERE project_id = ?), 0)", projectID).
		ColumnExpr("COALESCE((SELECT wallet_count FROM reclaim_project_totals WHERE project_id = ?), 0)", projectID).
		Scan(ctx, &first, &last, &rows, &wallets)
	if err != nil {
		return nil, false, nil, err
	}
	if !first.Valid {
		return nil, false, nil, nil
	}
	from, to, all := rollup.Clip(utcPtr(f.Start), utcPtr(f.End), first.Int64, last.Int64)
	if all {
		// Unless some confirmed row has no confirmation time (recorded so
		// before migration 9): in the totals, it is in no range.
		var undated bool
		err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM reclaim_transactions
			WHERE project_id = ? AND status = 'confirmed' AND confirmed_at IS NULL)`, projectID).Scan(&undated)
		if err != nil {
			return nil, false, nil, err
		}
		if !undated {
			totals := func(payers []string) *bun.SelectQuery {
				return s.rankedTotals("reclaim_payer_totals", projectID, f).Where(s.payerList(payers))
			}
			if inMemory && f.Offset >= s.deepOffset {
				if q, check, ok, err := s.fromRanking(ctx, projectID, f, from, to, totals); ok || err != nil {
					return q, true, check, err
				}
			}
			return s.rankedTotals("reclaim_payer_totals", projectID, f), false, nil, nil
		}
		if f.Start == nil && f.End == nil { // all time holds them
			return s.rankedTotals("reclaim_payer_totals", projectID, f), false, nil, nil
		}
	}
	if !from.Before(to) {
		return nil, false, nil, nil
	}
	costs := rollup.CostsOf(rows, wallets, first.Int64, last.Int64)
	if s.planCosts != nil {
		costs = *s.planCosts
	}
	ps := rollup.Plan(from, to, costs)
	if inMemory && (len(ps) > 1 || !ps[0].IsBase() || f.Offset >= s.deepOffset) {
		sums := func(payers []string) *bun.SelectQuery { return s.summedWallets(projectID, f, ps, payers) }
		if q, check, ok, err := s.fromRanking(ctx, projectID, f, from, to, sums); ok || err != nil {
			return q, true, check, err
		}
	}
	// A single month or year is a range of its ranking index; one with
	// corrections cheaper than itself is read page by page, merged with them.
	if base := rollup.Base(ps, costs); base >= 0 {
		p := ps[base]
		ranked := s.rankedTotals("reclaim_rollup_periods", projectID, f).
			Where("period = ?", periodOf(p.Kind)).Where("bucket = ?", p.Lo)
		if len(ps) == 1 {
			return ranked, false, nil, nil
		}
		rest := append(append([]rollup.Piece{}, ps[:base]...), ps[base+1:]...)
		return s.leaderboardOverBase(projectID, f, p, ranked, rest), false, nil, nil
	}
	return s.leaderboardOfPieces(projectID, f, ps), true, nil, nil
}

// fromRanking ranks the page f asks for among the wallets with rows in
// [from, to) in memory, and returns the query of the page's figures, sums
// of its wallets, and what they must be; ok is false when the project has
// no ranking yet (or f names a payer: one wallet is summed in SQL at once),
// and q nil when the page is empty.
func (s *Rankings) fromRanking(ctx context.Context, projectID string, f ledger.Filter, from, to time.Time,
	sums func(payers []string) *bun.SelectQuery,
) (q *bun.SelectQuery, check *rollup.PageCheck, ok bool, err error) {
	if f.Payer != "" {
		return nil, nil, false, nil
	}
	payers, gross, ok, err := s.rank.Page(ctx, projectID, ceilMicros(from), ceilMicros(to), f.Type, f.Offset, f.Limit)
	if err != nil || !ok {
		return nil, nil, false, err // no ranking yet, or no room to rank it: SQL does
	}
	if len(payers) == 0 {
		return nil, nil, true, nil
	}
	return sums(payers), &rollup.PageCheck{Payers: payers, Gross: gross}, true, nil
}

// summedWallets is the leaderboard rows of payers alone, summed over the
// pieces ps.
func (s *Rankings) summedWallets(projectID string, f ledger.Filter, ps []rollup.Piece, payers []string) *bun.SelectQuery {
	return s.boardOf(projectID, f, ps, s.payerList(payers))
}

// boardOf is the leaderboard rows of the wallets whose rows meet cond,
// summed over the pieces ps.
func (s *Rankings) boardOf(projectID string, f ledger.Filter, ps []rollup.Piece, cond string) *bun.SelectQuery {
	return s.db.NewSelect().
		TableExpr("(?) AS sums", s.sumPieces(projectID, f, ps, cond)).
		ColumnExpr("payer").
		ColumnExpr(strings.Join(boardColumns(func(i int) string { return pieceColumns[i] }), ", "))
}

// leaderboardOfPieces ranks the wallets of the pieces ps on their gross
// alone and takes the page f asks for, then sums every figure of the
// page's wallets only: ranking sums two columns per wallet, not nine (on a
// range of 50,000 wallets the difference between a hash table that fits
// in memory and one that spills to disk). The query is the page, at offset
// 0 of its own rows.
func (s *Rankings) leaderboardOfPieces(projectID string, f ledger.Filter, ps []rollup.Piece) *bun.SelectQuery {
	var parts []string
	var args []any
	for _, p := range ps {
		q, a := pieceSQL(p, projectID, f, true, "")
		parts, args = append(parts, q), append(args, a...)
	}
	// A wallet whose rows of a widened piece were all subtracted again has
	// none in the range.
	page := s.db.NewSelect().TableExpr("("+strings.Join(parts, "\nUNION ALL\n")+") AS pieces", args...).
		ColumnExpr("payer").
		GroupExpr("payer").
		Having("SUM(c) > 0").
		OrderExpr("SUM(g) DESC").OrderExpr(s.payerOrder()).
		Limit(f.Limit).Offset(f.Offset)
	return s.boardOf(projectID, f, ps, "payer IN (SELECT payer FROM page)").With("page", page)
}

// boardColumns are the leaderboard's figures, each the expression of(i) for
// the i-th of pieceColumns, named as leaderboardRow reads them.
func boardColumns(of func(i int) string) []string {
	names := append(append([]string{"total_gross_rebate", "total_net_rebate", "total_transaction_count"}, typeCountColumns()...),
		"total_donation_amount", "total_donation_count", "total_community_amount")
	cols := make([]string, len(names))
	for i, n := range names {
		cols[i] = of(i) + " AS " + n
	}
	return cols
}

// sumPieces sums the pieces per wallet, as (payer, pieceColumns...), over
// the rows that also meet cond when it is set.
func (s *Rankings) sumPieces(projectID string, f ledger.Filter, ps []rollup.Piece, cond string) *bun.SelectQuery {
	var parts []string
	var args []any
	for _, p := range ps {
		q, a := pieceSQL(p, projectID, f, false, cond)
		parts, args = append(parts, q), append(args, a...)
	}
	q := s.db.NewSelect().TableExpr("("+strings.Join(parts, "\nUNION ALL\n")+") AS pieces", args...).ColumnExpr("payer")
	for _, c := range pieceColumns {
		q = q.ColumnExpr(fmt.Sprintf("CAST(SUM(%[1]s) AS BIGINT) AS %[1]s", c))
	}
	return q.GroupExpr("payer")
}

// leaderboardOverBase ranks the wallets of a plan made of one month or year
// (base, read in rank order) and corrections: a wallet the corrections do
// not touch keeps its place in the base, so the page is among the first
// offset+limit of those, merged with the corrected wallets. It reads at most
// offset+limit+corrected rows of the base, not the whole base. (Excluding
// the corrected wallets while reading the base in order would let the
// planner pick a nested-loop anti-join; excluding them from that bounded
// prefix joins by hash.)
func (s *Rankings) leaderboardOverBase(projectID string, f ledger.Filter, p rollup.Piece, base *bun.SelectQuery, corrections []rollup.Piece) *bun.SelectQuery {
	periodCols := figureColumns()
	top := base.OrderExpr("total_gross_rebate DESC").OrderExpr(s.payerOrder())
	untouched := s.db.NewSelect().
		TableExpr("(? LIMIT (SELECT COUNT(*) FROM corrections) + ?) AS t", top, f.Offset+f.Limit).
		Join("LEFT JOIN corrections AS x ON x.payer = t.payer").
		ColumnExpr("t.*").
		Where("x.payer IS NULL")
	corrected := s.db.NewSelect().TableExpr("corrections AS c").
		Join("LEFT JOIN reclaim_rollup_periods AS b ON b.project_id = ? AND b.type = ? AND b.period = ? AND b.bucket = ? AND b.payer = c.payer",
			projectID, f.Type, periodOf(p.Kind), p.Lo).
		ColumnExpr("c.payer").
		ColumnExpr(strings.Join(boardColumns(func(i int) string {
			return fmt.Sprintf("COALESCE(b.%s, 0) + c.%s", periodCols[i], pieceColumns[i])
		}), ", ")).
		Where("COALESCE(b.transaction_count, 0) + c.c > 0")
	return s.db.NewSelect().With("corrections", s.sumPieces(projectID, f, corrections, "")).
		TableExpr("(SELECT * FROM (?) AS u UNION ALL SELECT * FROM (?) AS m) AS board", untouched, corrected).
		ColumnExpr("*")
}

func periodOf(k rollup.Kind) int {
	if k == rollup.Years {
		return periodYear
	}
	return periodMonth
}

// pieceColumns are the names of what pieceSQL selects besides the payer: the
// figures the leaderboard sums, the type counts t0, t1, ... in
// ledger.Types order.
var pieceColumns = func() []string {
	cols := []string{"g", "n", "c"}
	for i := range ledger.Types {
		cols = append(cols, fmt.Sprintf("t%d", i))
	}
	return append(cols, "da", "dc", "ca")
}()

// typeCounts are the per-type counts of rows that count n transactions of
// their type.
func typeCounts(n string) []string {
	var out []string
	for _, t := range ledger.Types {
		out = append(out, fmt.Sprintf("CASE WHEN type = '%s' THEN %s ELSE 0 END", t, n))
	}
	return out
}

// pieceSQL selects one piece's rows as (payer, pieceColumns...), negated
// when the piece is subtracted; rankOnly selects (payer, g, c) alone, cond
// (when set) is one more condition on the rows.
func pieceSQL(p rollup.Piece, projectID string, f ledger.Filter, rankOnly bool, cond string) (string, []any) {
	var table, where string
	var exprs []string
	args := []any{projectID}
	switch p.Kind {
	case rollup.Rows:
		table, where = "reclaim_transactions", "status = 'confirmed' AND confirmed_at >= ? AND confirmed_at < ?"
		exprs = append(append([]string{"gross_rebate", "net_rebate", "1"}, typeCounts("1")...),
			"donation_amount", "CASE WHEN donation_amount > 0 THEN 1 ELSE 0 END", "service_fee")
		args = append(args, p.From, p.To)
	case rollup.Days:
		table, where = "reclaim_rollup_days", "day >= ? AND day < ?"
		exprs = append(append([]string{"gross_rebate", "net_rebate", "transaction_count"}, typeCounts("transaction_count")...),
			"donation_amount", "donation_count", "community_amount")
		args = append(args, p.Lo, p.Hi)
		if p.Hi == p.Lo+1 { // as an equality, so that the day is read in payer order
			where, args = "day = ?", args[:len(args)-1]
		}
	default:
		table, where = "reclaim_rollup_periods", "type = ? AND period = ? AND bucket >= ? AND bucket < ?"
		exprs = figureColumns()
		args = append(args, f.Type, periodOf(p.Kind), p.Lo, p.Hi)
	}
	sign := ""
	if p.Sign < 0 {
		sign = "-"
	}
	var cols []string
	for i, e := range exprs {
		if !rankOnly || pieceColumns[i] == "g" || pieceColumns[i] == "c" {
			cols = append(cols, fmt.Sprintf("%s(%s) AS %s", sign, e, pieceColumns[i]))
		}
	}
	q := "SELECT payer, " + strings.Join(cols, ", ") + " FROM " + table + " WHERE project_id = ? AND " + where
	if cond != "" {
		q += " AND " + cond
	}
	if f.Type != "" && p.Kind <= rollup.Days {
		q += " AND type = ?"
		args = append(args, f.Type)
	}
	if f.Payer != "" {
		q += " AND payer = ?"
		args = append(args, f.Payer)
	}
	return q, args
}

// dailyTotalsFromRollups reads the chart's days from the project's day
// rollups, when they count every row and [from, to) is whole days; ok is
// false otherwise.
func (s *Rankings) dailyTotalsFromRollups(ctx context.Context, projectID string, from, to time.Time) (days []ledger.DailyTotal, ok bool, err error) {
	if !rollup.DayStart(rollup.DayOf(from)).Equal(from) || !rollup.DayStart(rollup.DayOf(to)).Equal(to) {
		return nil, false, nil
	}
	if ok, err := s.rollupsUsable(ctx, projectID); err != nil || !ok {
		return nil, false, err
	}
	var rows []struct {
		Day   int64 `bun:"day"`
		Gross int64 `bun:"gross_rebate"`
		Count int64 `bun:"transaction_count"`
	}
	err = s.db.NewSelect().TableExpr("reclaim_project_days").
		ColumnExpr("day, gross_rebate, transaction_count").
		Where("project_id = ?", projectID).
		Where("day >= ?", rollup.DayOf(from)).
		Where("day < ?", rollup.DayOf(to)).
		OrderExpr("day ASC").
		Scan(ctx, &rows)
	if err != nil {
		return nil, false, fmt.Errorf("daily totals of %s: %w", projectID, err)
	}
	days = make([]ledger.DailyTotal, len(rows))
	for i, r := range rows {
		days[i] = ledger.DailyTotal{Day: rollup.DayStart(r.Day), GrossRebate: r.Gross, TransactionCount: r.Count}
	}
	return days, true, nil
}
