package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

type originRow struct {
	bun.BaseModel `bun:"table:project_origins"`

	ProjectID string    `bun:"project_id,pk"`
	Origin    string    `bun:"origin,pk"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

func (r *originRow) origin() project.Origin {
	return project.Origin{ProjectID: r.ProjectID, Origin: r.Origin, CreatedAt: r.CreatedAt.UTC()}
}

// AddOrigin stores a browser origin of a project (already normalized by
// project.ValidateOrigin). An unknown project gives project.ErrNotFound, an
// origin the project lists already project.ErrConflict.
func (s *Projects) AddOrigin(ctx context.Context, o project.Origin) error {
	row := originRow{ProjectID: o.ProjectID, Origin: o.Origin, CreatedAt: utc(o.CreatedAt)}
	if o.CreatedAt.IsZero() {
		row.CreatedAt = now()
	}
	if _, err := s.GetProject(ctx, o.ProjectID); err != nil {
		return fmt.Errorf("add origin: %w", err)
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("add origin %s: %w", o.Origin, project.ErrConflict)
		}
		return fmt.Errorf("add origin: %w", err)
	}
	return nil
}

// RemoveOrigin removes a browser origin of a project; one it does not list
// gives project.ErrNotFound.
func (s *Projects) RemoveOrigin(ctx context.Context, projectID, origin string) error {
	res, err := s.db.NewDelete().Model((*originRow)(nil)).
		Where("project_id = ?", projectID).Where("origin = ?", origin).Exec(ctx)
	if err != nil {
		return fmt.Errorf("remove origin: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("remove origin %s: %w", origin, project.ErrNotFound)
	}
	return nil
}

// ListOrigins returns the browser origins of a project, oldest first.
func (s *Projects) ListOrigins(ctx context.Context, projectID string) ([]project.Origin, error) {
	return s.origins(ctx, func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("project_id = ?", projectID) })
}

// AllOrigins returns the browser origins of every project, by project, then
// oldest first.
func (s *Projects) AllOrigins(ctx context.Context) ([]project.Origin, error) {
	return s.origins(ctx, func(q *bun.SelectQuery) *bun.SelectQuery { return q })
}

func (s *Projects) origins(ctx context.Context, where func(*bun.SelectQuery) *bun.SelectQuery) ([]project.Origin, error) {
	var rows []originRow
	err := where(s.db.NewSelect().Model(&rows)).OrderExpr("project_id ASC, created_at ASC, origin ASC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list origins: %w", err)
	}
	out := make([]project.Origin, len(rows))
	for i := range rows {
		out[i] = rows[i].origin()
	}
	return out, nil
}
