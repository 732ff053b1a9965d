package storage

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger/ranking"
)

// InsertCounted records es in bulk, counts them as RebuildPayerTotals
// does, and stamps them with their project's version, as InsertEntry
// would one by one: a ranking catches up with them.
func InsertCounted(ctx context.Context, s *DB, es []ledger.Entry) error {
	if err := insertUncounted(ctx, s, es); err != nil {
		return err
	}
	if err := s.RebuildPayerTotals(ctx); err != nil {
		return err
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	_, err := s.db.ExecContext(ctx, stampRanked+"id IN (?)", bun.List(ids))
	return err
}

func insertUncounted(ctx context.Context, s *DB, es []ledger.Entry) error {
	rows := make([]transactionRow, len(es))
	for i, e := range es {
		rows[i] = newTransactionRow(e, e.Status)
		rows[i].RollupState = rollupNotCounted
	}
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), 500)]
		if _, err := s.db.NewInsert().Model(&chunk).Exec(ctx); err != nil {
			return err
		}
		rows = rows[len(chunk):]
	}
	return nil
}

// RankInline makes s build a project's ranking in the query that first
// needs it, spaced and merged as in production.
func RankInline(s *Rankings) {
	s.rank.Tune(ranking.Tuning{Inline: true})
	s.deepOffset = defaultDeepOffset
}

// RankingHeld is what s's rankings hold, and reserve, in bytes and rows.
func RankingHeld(s *Rankings) (bytes, rows int64) { return s.rank.Held() }
