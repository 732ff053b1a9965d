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

// refusalV20 is a project's refused requests in one hour as of migration
// 20260521000020: the rate limiter's instances add their counts once a
// minute, never a write per refusal.
type refusalV20 struct {
	bun.BaseModel `bun:"table:rate_refusals"`

	ProjectID string    `bun:"project_id,pk"`
	Hour      time.Time `bun:"hour,pk"`
	Refused   int64     `bun:"refused,notnull"`
}

// upRateRefusals adds the hourly counts of refused requests the console's
// overview sums over the last 24 hours. No foreign key: a count for a
// project deleted meanwhile must not fail the flush of every other
// project's; it is pruned with the old hours.
func upRateRefusals(ctx context.Context, db bun.IDB) error {
	if _, err := db.NewCreateTable().Model((*refusalV20)(nil)).IfNotExists().Exec(ctx); err != nil {
		return fmt.Errorf("create rate_refusals: %w", err)
	}
	return nil
}
