package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// DailyTotals returns, for each UTC day in [from, to) with confirmed entries,
// their gross rebate and count, by confirmation time, oldest day first; days
// without entries are absent. Whole days are read from the project's day
// rollups (one row a day); otherwise it reads only the index on (project_id,
// status, confirmed_at, gross_rebate), so its cost grows with the range, not
// with the ledger.
func (s *Rankings) DailyTotals(ctx context.Context, projectID string, from, to time.Time) ([]ledger.DailyTotal, error) {
	if days, ok, err := s.dailyTotalsFromRollups(ctx, projectID, utc(from), utc(to)); err != nil || ok {
		return days, err
	}
	return s.dailyTotalsFromRows(ctx, projectID, from, to)
}

// dailyTotalsFromRows aggregates the ledger rows of [from, to) by day.
func (s *Rankings) dailyTotalsFromRows(ctx context.Context, projectID string, from, to time.Time) ([]ledger.DailyTotal, error) {
	day, group := "substr(confirmed_at, 1, 10)", "day" // SQLite keeps times as ISO 8601 text
	if s.postgres {
		group = "date_trunc('day', confirmed_at AT TIME ZONE 'UTC')"
		day = "to_char(" + group + ", 'YYYY-MM-DD')"
	}
	var rows []struct {
		Day   string `bun:"day"`
		Gross int64  `bun:"gross"`
		Count int64  `bun:"count"`
	}
	err := s.db.NewSelect().
		TableExpr("reclaim_transactions").
		ColumnExpr(day+" AS day").
		ColumnExpr("CAST(SUM(gross_rebate) AS BIGINT) AS gross").
		ColumnExpr("COUNT(*) AS count").
		Where("project_id = ?", projectID).
		Where("status = ?", ledger.StatusConfirmed).
		Where("confirmed_at >= ?", utc(from)).
		Where("confirmed_at < ?", utc(to)).
		GroupExpr(group).
		OrderExpr("day ASC").
		Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("daily totals of %s: %w", projectID, err)
	}
	out := make([]ledger.DailyTotal, 0, len(rows))
	for _, r := range rows {
		d, err := time.Parse("2006-01-02", r.Day)
		if err != nil {
			return nil, fmt.Errorf("daily totals of %s: day %q: %w", projectID, r.Day, err)
		}
		out = append(out, ledger.DailyTotal{Day: d, GrossRebate: r.Gross, TransactionCount: r.Count})
	}
	return out, nil
}

// LatestEntries returns a project's latest limit ledger entries, whatever
// their status, newest first (by creation time).
func (s *Rankings) LatestEntries(ctx context.Context, projectID string, limit int) ([]ledger.Entry, error) {
	var rows []transactionRow
	err := s.db.NewSelect().Model(&rows).
		Where("project_id = ?", projectID).
		OrderExpr("created_at DESC, id DESC").
		Limit(limit).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("latest entries of %s: %w", projectID, err)
	}
	out := make([]ledger.Entry, len(rows))
	for i := range rows {
		out[i] = rows[i].entry()
	}
	return out, nil
}
