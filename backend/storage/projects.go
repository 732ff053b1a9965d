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

type projectRow struct {
	bun.BaseModel `bun:"table:projects"`

	ID             string    `bun:"id,pk"`
	Name           string    `bun:"name,notnull"`
	DonationWallet string    `bun:"donation_wallet,notnull"`
	CreatedAt      time.Time `bun:"created_at,notnull"`
}

func (r *projectRow) project() project.Project {
	return project.Project{ID: r.ID, Name: r.Name, DonationWallet: r.DonationWallet, CreatedAt: r.CreatedAt.UTC()}
}

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         string     `bun:"id,pk"`
	ProjectID  string     `bun:"project_id,notnull"`
	Name       string     `bun:"name,notnull"`
	Prefix     string     `bun:"prefix,notnull"`
	Hash       []byte     `bun:"hash,notnull"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

func (r *apiKeyRow) apiKey() project.APIKey {
	return project.APIKey{
		ID:         r.ID,
		ProjectID:  r.ProjectID,
		Name:       r.Name,
		Prefix:     r.Prefix,
		Hash:       r.Hash,
		CreatedAt:  r.CreatedAt.UTC(),
		LastUsedAt: utcPtr(r.LastUsedAt),
		RevokedAt:  utcPtr(r.RevokedAt),
	}
}

// CreateProject stores p and returns it as stored: with a new "prj_" ID when
// p.ID is empty and CreatedAt set to now when zero. A taken ID gives
// project.ErrConflict.
func (s *Projects) CreateProject(ctx context.Context, p project.Project) (project.Project, error) {
	row := projectRow{ID: p.ID, Name: p.Name, DonationWallet: p.DonationWallet, CreatedAt: utc(p.CreatedAt)}
	if row.ID == "" {
		row.ID = NewID("prj")
	}
	if p.CreatedAt.IsZero() {
		row.CreatedAt = now()
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		if isUniqueViolation(err) {
			return project.Project{}, fmt.Errorf("create project %s: %w", row.ID, project.ErrConflict)
		}
		return project.Project{}, fmt.Errorf("create project: %w", err)
	}
	return row.project(), nil
}

// GetProject returns the project with id, or project.ErrNotFound.
func (s *Projects) GetProject(ctx context.Context, id string) (project.Project, error) {
	return s.getProject(ctx, id)
}

func (s *core) getProject(ctx context.Context, id string) (project.Project, error) {
	var row projectRow
	err := s.db.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if err != nil {
		return project.Project{}, notFound(err, project.ErrNotFound, "get project %s", id)
	}
	return row.project(), nil
}

// CreateAPIKey stores k and returns it as stored: with a new "key_" ID when
// k.ID is empty and CreatedAt set to now when zero. An unknown project gives
// project.ErrNotFound; a hash (or ID) already stored gives project.ErrConflict.
func (s *Projects) CreateAPIKey(ctx context.Context, k project.APIKey) (project.APIKey, error) {
	if len(k.Hash) == 0 {
		return project.APIKey{}, errors.New("create api key: empty hash")
	}
	row := apiKeyRow{
		ID:         k.ID,
		ProjectID:  k.ProjectID,
		Name:       k.Name,
		Prefix:     k.Prefix,
		Hash:       k.Hash,
		CreatedAt:  utc(k.CreatedAt),
		LastUsedAt: utcPtr(k.LastUsedAt),
		RevokedAt:  utcPtr(k.RevokedAt),
	}
	if row.ID == "" {
		row.ID = NewID("key")
	}
	if k.CreatedAt.IsZero() {
		row.CreatedAt = now()
	}
	// Check the project first: a foreign key error is worded differently by
	// each database, and the caller deserves ErrNotFound.
	if _, err := s.GetProject(ctx, k.ProjectID); err != nil {
		return project.APIKey{}, fmt.Errorf("create api key: %w", err)
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		if isUniqueViolation(err) {
			return project.APIKey{}, fmt.Errorf("create api key: %w", project.ErrConflict)
		}
		return project.APIKey{}, fmt.Errorf("create api key: %w", err)
	}
	return row.apiKey(), nil
}

// APIKeyByHash returns the key whose keyed hash is hash, revoked or not, or
// project.ErrNotFound. The caller checks Revoked.
func (s *Projects) APIKeyByHash(ctx context.Context, hash []byte) (project.APIKey, error) {
	var row apiKeyRow
	err := s.db.NewSelect().Model(&row).Where("hash = ?", hash).Scan(ctx)
	if err != nil {
		return project.APIKey{}, notFound(err, project.ErrNotFound, "api key by hash")
	}
	return row.apiKey(), nil
}

// APIKeyByID returns the key with id, revoked or not, or project.ErrNotFound.
func (s *Projects) APIKeyByID(ctx context.Context, id string) (project.APIKey, error) {
	var row apiKeyRow
	err := s.db.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if err != nil {
		return project.APIKey{}, notFound(err, project.ErrNotFound, "api key %s", id)
	}
	return row.apiKey(), nil
}

// ListAPIKeys returns the keys of a project, revoked ones included, oldest
// first.
func (s *Projects) ListAPIKeys(ctx context.Context, projectID string) ([]project.APIKey, error) {
	var rows []apiKeyRow
	err := s.db.NewSelect().Model(&rows).
		Where("project_id = ?", projectID).
		OrderExpr("created_at ASC, id ASC").
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list api keys of %s: %w", projectID, err)
	}
	keys := make([]project.APIKey, len(rows))
	for i := range rows {
		keys[i] = rows[i].apiKey()
	}
	return keys, nil
}

// RevokeAPIKey revokes the key whose hash is hash at time at and returns it.
// Revoking a revoked key changes nothing: it keeps its first RevokedAt. An
// unknown hash gives project.ErrNotFound.
func (s *Projects) RevokeAPIKey(ctx context.Context, hash []byte, at time.Time) (project.APIKey, error) {
	_, err := s.db.NewUpdate().Model((*apiKeyRow)(nil)).
		Set("revoked_at = ?", utc(at)).
		Where("hash = ?", hash).
		Where("revoked_at IS NULL").
		Exec(ctx)
	if err != nil {
		return project.APIKey{}, fmt.Errorf("revoke api key: %w", err)
	}
	k, err := s.APIKeyByHash(ctx, hash)
	if err != nil {
		return project.APIKey{}, fmt.Errorf("revoke api key: %w", err)
	}
	return k, nil
}

// touchInterval is how stale LastUsedAt may get: authenticating a request
// writes at most once a minute per key, not once per request.
const touchInterval = time.Minute

// TouchAPIKeyUsed records that key id was used at time at. It writes only when
// the stored LastUsedAt is empty or older than a minute, so it is cheap to call
// on every request; an unknown id is not an error.
func (s *Projects) TouchAPIKeyUsed(ctx context.Context, id string, at time.Time) error {
	at = utc(at)
	_, err := s.db.NewUpdate().Model((*apiKeyRow)(nil)).
		Set("last_used_at = ?", at).
		Where("id = ?", id).
		WhereGroup(" AND ", func(q *bun.UpdateQuery) *bun.UpdateQuery {
			return q.Where("last_used_at IS NULL").WhereOr("last_used_at < ?", at.Add(-touchInterval))
		}).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("touch api key %s: %w", id, err)
	}
	return nil
}

// notFound turns sql.ErrNoRows into sentinel, and wraps every error with the
// formatted context.
func notFound(err, sentinel error, format string, args ...any) error {
	if errors.Is(err, sql.ErrNoRows) {
		err = sentinel
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
