package storage

import (
	"context"

	"github.com/uptrace/bun"
)

// probeV12 is the readiness probe's table as of migration 20260521000013.
type probeV12 struct {
	bun.BaseModel `bun:"table:storage_probe"`

	Name string `bun:"name,pk"`
	At   int64  `bun:"at,notnull"`
}

// upProbe adds the table SQLite's readiness check writes to (health.go).
func upProbe(ctx context.Context, db bun.IDB) error {
	_, err := db.NewCreateTable().Model((*probeV12)(nil)).IfNotExists().Exec(ctx)
	return err
}
