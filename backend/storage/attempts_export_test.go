package storage

import (
	"context"
	"time"
)

// AttemptLine is a line of the submission log as stored.
type AttemptLine struct {
	Tickets   int
	CreatedAt time.Time
}

// Attempts returns every line of the submission log, oldest first.
func Attempts(ctx context.Context, s *DB) ([]AttemptLine, error) {
	var rows []attemptRow
	if err := s.db.NewSelect().Model(&rows).OrderExpr("created_at ASC").Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]AttemptLine, len(rows))
	for i, r := range rows {
		out[i] = AttemptLine{Tickets: r.Tickets, CreatedAt: r.CreatedAt}
	}
	return out, nil
}
