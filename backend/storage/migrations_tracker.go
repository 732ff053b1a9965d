package storage

import (
	"context"

	"github.com/uptrace/bun"
)

// trackerPassV8 is the schedule of periodic jobs shared by every instance,
// as of migration 20260521000008: one row per job, holding the last pass
// claimed (see ClaimPass).
type trackerPassV8 struct {
	bun.BaseModel `bun:"table:tracker_passes"`

	Name  string `bun:"name,pk"`
	Slot  int64  `bun:"slot,notnull"`
	Owner string `bun:"owner,notnull"`
}

// upTrackerLeases lets the confirmation trackers of several instances share
// the work instead of each repeating it: an entry in flight is leased to
// one tracker at a time (lease_owner, and lease_until in Unix milliseconds:
// a lease that ends before its holder releases it, because the holder died,
// frees the entry by itself), and tracker_passes lets one instance claim
// each pass.
func upTrackerLeases(ctx context.Context, db bun.IDB) error {
	for _, col := range []string{"lease_owner VARCHAR NOT NULL DEFAULT ''", "lease_until BIGINT NOT NULL DEFAULT 0"} {
		if _, err := db.NewAddColumn().Model((*transactionV1)(nil)).ColumnExpr(col).Exec(ctx); err != nil {
			return err
		}
	}
	if _, err := db.NewCreateIndex().Model((*transactionV1)(nil)).IfNotExists().
		Index("reclaim_transactions_status_lease_idx").Column("status", "lease_until").Exec(ctx); err != nil {
		return err
	}
	_, err := db.NewCreateTable().Model((*trackerPassV8)(nil)).IfNotExists().Exec(ctx)
	return err
}
