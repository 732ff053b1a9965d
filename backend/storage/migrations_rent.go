package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// upRentSplit keeps the rent apart from the wallet's own SOL: each ledger
// row's rent_rebate (the part of its gross that is rent, the base of its
// donation and service fee), NULL for the rows recorded before, whose split
// is not known; and the project totals' sums of the rent and the own
// balance of the rows that have one (0 for totals of older rows alone,
// which is what they hold). A nullable column and columns with a constant
// default rewrite no table on either database.
func upRentSplit(ctx context.Context, db bun.IDB) error {
	pg := db.Dialect().Name() == dialect.PG
	for _, c := range []struct{ table, column, def string }{
		{"reclaim_transactions", "rent_rebate", "BIGINT"},
		{"reclaim_project_totals", "rent_rebate", "BIGINT NOT NULL DEFAULT 0"},
		{"reclaim_project_totals", "own_balance_rebate", "BIGINT NOT NULL DEFAULT 0"},
	} {
		exists, err := hasColumn(ctx, db, pg, c.table, c.column)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+c.table+" ADD COLUMN "+c.column+" "+c.def); err != nil {
			return fmt.Errorf("add %s.%s: %w", c.table, c.column, err)
		}
	}
	return nil
}
