package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// upRawTransactions keeps each entry's signed transaction while it is in
// flight (raw_transaction: the bytes the relay sent, NULL once the entry is
// settled or for an entry claimed before this migration), so that the
// tracker rebroadcasts the very same bytes until they land or expire, on
// any instance and after a restart. The column is nullable without a
// default: adding it rewrites no row on either database.
func upRawTransactions(ctx context.Context, db bun.IDB) error {
	pg := db.Dialect().Name() == dialect.PG
	exists, err := hasColumn(ctx, db, pg, "reclaim_transactions", "raw_transaction")
	if err != nil || exists {
		return err
	}
	typ := "BLOB"
	if pg {
		typ = "BYTEA"
	}
	if _, err := db.ExecContext(ctx, "ALTER TABLE reclaim_transactions ADD COLUMN raw_transaction "+typ); err != nil {
		return fmt.Errorf("add reclaim_transactions.raw_transaction: %w", err)
	}
	return nil
}
