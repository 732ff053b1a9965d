package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// upSubmissionStatus keeps what the status of a submission tells beside its
// entry: the items its ticket named (includes, JSON; NULL for an entry
// claimed before this migration) and the slot that holds the landed
// transaction (slot, 0 until confirmed). Neither rewrites a row: a
// nullable column without a default, and a constant default (Postgres 11
// and later store it in the catalog; SQLite always does).
func upSubmissionStatus(ctx context.Context, db bun.IDB) error {
	pg := db.Dialect().Name() == dialect.PG
	for _, c := range []struct{ name, def string }{
		{"includes", "TEXT"},
		{"slot", "BIGINT NOT NULL DEFAULT 0"},
	} {
		exists, err := hasColumn(ctx, db, pg, "reclaim_transactions", c.name)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		if _, err := db.ExecContext(ctx, "ALTER TABLE reclaim_transactions ADD COLUMN "+c.name+" "+c.def); err != nil {
			return fmt.Errorf("add reclaim_transactions.%s: %w", c.name, err)
		}
	}
	return nil
}
