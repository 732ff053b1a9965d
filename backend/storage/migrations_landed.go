package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// promisedColumns hold a ledger entry's figures as its ticket promised them;
// the entry's own figure columns hold what the chain did once it landed.
var promisedColumns = []string{"gross_rebate", "net_rebate", "donation_amount", "network_fee", "service_fee"}

// upLandedFigures keeps the ticket's promise beside what the chain did: the
// entry's figure columns become the landed figures (the tracker writes them
// when it confirms the entry), promised_* keep the promise, and the
// recipients of the transfers are kept to read their balances. Entries
// recorded before keep their figures as both: nothing better is known.
func upLandedFigures(ctx context.Context, db bun.IDB) error {
	for _, c := range promisedColumns {
		if _, err := db.NewAddColumn().Model((*transactionV1)(nil)).
			ColumnExpr("promised_" + c + " BIGINT NOT NULL DEFAULT 0").Exec(ctx); err != nil {
			return err
		}
	}
	for _, c := range []string{"donation_wallet", "treasury"} {
		if _, err := db.NewAddColumn().Model((*transactionV1)(nil)).
			ColumnExpr(c + " VARCHAR NOT NULL DEFAULT ''").Exec(ctx); err != nil {
			return err
		}
	}
	return backfillPromised(ctx, db)
}

// backfillPromised sets the promise of every entry to its figures.
func backfillPromised(ctx context.Context, db bun.IDB) error {
	q := db.NewUpdate().Model((*transactionV1)(nil)).Where("1 = 1")
	for _, c := range promisedColumns {
		q = q.Set(fmt.Sprintf("promised_%s = %s", c, c))
	}
	_, err := q.Exec(ctx)
	return err
}
