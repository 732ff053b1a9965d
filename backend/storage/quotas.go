package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

type quotaRow struct {
	bun.BaseModel `bun:"table:project_quotas"`

	ProjectID string    `bun:"project_id,pk"`
	RPS       int       `bun:"rps,notnull"`
	Burst     int       `bun:"burst,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

func (r *quotaRow) quota() project.Quota {
	return project.Quota{ProjectID: r.ProjectID, RPS: r.RPS, Burst: r.Burst, UpdatedAt: r.UpdatedAt.UTC()}
}

// SetQuota stores a project's own quota, replacing the one it had; an
// unknown project gives project.ErrNotFound.
func (s *Projects) SetQuota(ctx context.Context, q project.Quota) error {
	if _, err := s.GetProject(ctx, q.ProjectID); err != nil {
		return fmt.Errorf("set quota: %w", err)
	}
	row := quotaRow{ProjectID: q.ProjectID, RPS: q.RPS, Burst: q.Burst, UpdatedAt: utc(q.UpdatedAt)}
	if q.UpdatedAt.IsZero() {
		row.UpdatedAt = now()
	}
	_, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (project_id) DO UPDATE").
		Set("rps = EXCLUDED.rps").Set("burst = EXCLUDED.burst").Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("set quota: %w", err)
	}
	return nil
}

// ClearQuota removes a project's own quota; a project without one gives
// project.ErrNotFound.
func (s *Projects) ClearQuota(ctx context.Context, projectID string) error {
	res, err := s.db.NewDelete().Model((*quotaRow)(nil)).Where("project_id = ?", projectID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("clear quota: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("clear quota of %s: %w", projectID, project.ErrNotFound)
	}
	return nil
}

// Quota returns a project's own quota, or project.ErrNotFound.
func (s *Projects) Quota(ctx context.Context, projectID string) (project.Quota, error) {
	var row quotaRow
	err := s.db.NewSelect().Model(&row).Where("project_id = ?", projectID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return project.Quota{}, fmt.Errorf("quota of %s: %w", projectID, project.ErrNotFound)
	}
	if err != nil {
		return project.Quota{}, fmt.Errorf("quota: %w", err)
	}
	return row.quota(), nil
}

// Quotas returns every project's own quota.
func (s *Projects) Quotas(ctx context.Context) ([]project.Quota, error) {
	var rows []quotaRow
	if err := s.db.NewSelect().Model(&rows).OrderExpr("project_id ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list quotas: %w", err)
	}
	out := make([]project.Quota, len(rows))
	for i := range rows {
		out[i] = rows[i].quota()
	}
	return out, nil
}
