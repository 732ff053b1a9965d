package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

type refusalRow struct {
	bun.BaseModel `bun:"table:rate_refusals"`

	ProjectID string    `bun:"project_id,pk"`
	Hour      time.Time `bun:"hour,pk"`
	Refused   int64     `bun:"refused,notnull"`
}

// AddRefusals adds each count to its project's hour, in one statement,
// and deletes the hours before keepSince.
func (s *Projects) AddRefusals(ctx context.Context, counts []project.Refusals, keepSince time.Time) error {
	if len(counts) == 0 {
		return nil
	}
	rows := make([]refusalRow, len(counts))
	for i, c := range counts {
		rows[i] = refusalRow{ProjectID: c.ProjectID, Hour: utc(c.Hour), Refused: c.Count}
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&rows).
			On("CONFLICT (project_id, hour) DO UPDATE").
			Set("refused = ?TableAlias.refused + EXCLUDED.refused").Exec(ctx); err != nil {
			return fmt.Errorf("add refusals: %w", err)
		}
		if _, err := tx.NewDelete().Model((*refusalRow)(nil)).Where("hour < ?", utc(keepSince)).Exec(ctx); err != nil {
			return fmt.Errorf("prune refusals: %w", err)
		}
		return nil
	})
}

// RefusalsSince sums a project's refusals in the hours from since.
func (s *Projects) RefusalsSince(ctx context.Context, projectID string, since time.Time) (int64, error) {
	var sum int64
	err := s.db.NewSelect().Model((*refusalRow)(nil)).ColumnExpr("COALESCE(SUM(refused), 0)").
		Where("project_id = ?", projectID).Where("hour >= ?", utc(since)).Scan(ctx, &sum)
	if err != nil {
		return 0, fmt.Errorf("refusals: %w", err)
	}
	return sum, nil
}
