package storage

import (
	"context"

	"github.com/uptrace/bun"
)

// upRelay adds what submission and confirmation tracking need.
func upRelay(ctx context.Context, db bun.IDB) error {
	return nil
}
