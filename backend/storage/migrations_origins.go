package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// originV7 is a project's browser origin as of migration 20260521000007.
type originV7 struct {
	bun.BaseModel `bun:"table:project_origins"`

	ProjectID string    `bun:"project_id,pk"`
	Origin    string    `bun:"origin,pk"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// upProjectOrigins adds the browser origins each project allows (CORS and
// the WebSocket's Origin check), and the audit log's column for the origin
// an entry is about.
func upProjectOrigins(ctx context.Context, db bun.IDB) error {
	if _, err := db.NewCreateTable().Model((*originV7)(nil)).IfNotExists().
		ForeignKey(`("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE`).Exec(ctx); err != nil {
		return fmt.Errorf("create project_origins: %w", err)
	}
	if _, err := db.NewAddColumn().Model((*auditV4)(nil)).
		ColumnExpr("origin VARCHAR NOT NULL DEFAULT ''").Exec(ctx); err != nil {
		return fmt.Errorf("add console_audit.origin: %w", err)
	}
	return nil
}
