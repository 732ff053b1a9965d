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
	return addColumns(ctx, db, "reclaim_transactions", [][2]string{{"includes", "TEXT"}, {"slot", "BIGINT NOT NULL DEFAULT 0"}})
}

// upReportedTickets keeps the ticket of a transaction the wallet sent
// itself and reported by its signature (reported_ticket, JSON; NULL for a
// relayed one): the tracker checks the landed transaction against it.
func upReportedTickets(ctx context.Context, db bun.IDB) error {
	return addColumns(ctx, db, "reclaim_transactions", [][2]string{{"reported_ticket", "TEXT"}})
}

// addColumns adds each column (name, definition) that table lacks.
func addColumns(ctx context.Context, db bun.IDB, table string, columns [][2]string) error {
	pg := db.Dialect().Name() == dialect.PG
	for _, col := range columns {
		name, def := col[0], col[1]
		exists, err := hasColumn(ctx, db, pg, table, name)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+table+" ADD COLUMN "+name+" "+def); err != nil {
			return fmt.Errorf("add %s.%s: %w", table, name, err)
		}
	}
	return nil
}
