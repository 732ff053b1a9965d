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

// upLandedStatus keeps when the tracker found a transaction in flight at
// confirmed commitment (landed_at, Unix milliseconds; 0 until then): the
// status API tells it landed before it is final. A constant default: no
// row is rewritten.
func upLandedStatus(ctx context.Context, db bun.IDB) error {
	return addColumns(ctx, db, "reclaim_transactions", [][2]string{{"landed_at", "BIGINT NOT NULL DEFAULT 0"}})
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

// upSignatureClaims narrows the signature's uniqueness to the entries that
// hold it: a relayed transaction (its signed bytes matched its ticket at
// submit) and a confirmed one. A transaction the wallet sent itself and
// reported by its signature holds nothing until the tracker finds that the
// landed transaction is its ticket's, so a report with another project's
// ticket (a front-run) never blocks the report of the ticket it belongs
// to; the tracker fails the other with HASH_MISMATCH. A plain index keeps
// lookups by signature.
func upSignatureClaims(ctx context.Context, db bun.IDB) error {
	for _, q := range []string{
		"CREATE UNIQUE INDEX IF NOT EXISTS reclaim_transactions_signature_held_key ON reclaim_transactions (signature) " +
			"WHERE signature <> '' AND (reported_ticket IS NULL OR status = 'confirmed')",
		"CREATE INDEX IF NOT EXISTS reclaim_transactions_signature_idx ON reclaim_transactions (signature)",
		"DROP INDEX IF EXISTS reclaim_transactions_signature_key",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("signature claims: %w", err)
		}
	}
	return nil
}
