package storage

import (
	"context"

	"github.com/uptrace/bun"
)

// upConsole adds the admin console's tables.
func upConsole(ctx context.Context, db bun.IDB) error {
	return nil
}
