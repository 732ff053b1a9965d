package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// quotaV19 is a project's own rate limit as of migration 20260521000019.
type quotaV19 struct {
	bun.BaseModel `bun:"table:project_quotas"`

	ProjectID string    `bun:"project_id,pk"`
	RPS       int       `bun:"rps,notnull"`
	Burst     int       `bun:"burst,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

// upProjectQuotas adds the projects' own rate limits (`reclaim project
// limits`); a project without a row has the deployment's default.
func upProjectQuotas(ctx context.Context, db bun.IDB) error {
	if _, err := db.NewCreateTable().Model((*quotaV19)(nil)).IfNotExists().
		ForeignKey(`("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE`).Exec(ctx); err != nil {
		return fmt.Errorf("create project_quotas: %w", err)
	}
	return nil
}
