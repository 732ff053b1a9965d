package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// upAttempts lets the submission log hold one line for all of a request's
// tickets that failed their signature check (tickets: how many tickets a
// line stands for) and be pruned by age: an index over created_at alone,
// since the tracker deletes the oldest lines of every project a batch at a
// time. The column comes with a constant default, which neither database
// writes into existing rows; on Postgres the index is built concurrently
// (afterAttempts), as the log may be large, so submits go on meanwhile.
func upAttempts(ctx context.Context, db bun.IDB) error {
	pg := db.Dialect().Name() == dialect.PG
	exists, err := hasColumn(ctx, db, pg, "submission_attempts", "tickets")
	if err != nil {
		return err
	}
	if !exists {
		if _, err := db.ExecContext(ctx, "ALTER TABLE submission_attempts ADD COLUMN tickets INTEGER NOT NULL DEFAULT 1"); err != nil {
			return fmt.Errorf("add submission_attempts.tickets: %w", err)
		}
	}
	if pg {
		return nil
	}
	_, err = db.ExecContext(ctx, attemptsAgeIndex.create(false, false))
	return err
}

// attemptsAgeIndex serves the pruning of old submission attempts.
var attemptsAgeIndex = rollupIndex{name: "submission_attempts_created_idx", table: "submission_attempts", columns: "created_at"}

// afterAttempts builds migration 12's index on Postgres without blocking
// writes.
func afterAttempts(ctx context.Context, s *core) error {
	if !s.postgres {
		return nil
	}
	db, done := s.maintenanceDB()
	defer done()
	return createConcurrently(ctx, db, attemptsAgeIndex)
}
