package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

type browserSessionRow struct {
	bun.BaseModel `bun:"table:console_sessions"`

	IDHash     []byte    `bun:"id_hash,pk"`
	OwnerID    string    `bun:"owner_id,notnull"`
	CSRFToken  string    `bun:"csrf_token,notnull"`
	CreatedAt  time.Time `bun:"created_at,notnull"`
	LastSeenAt time.Time `bun:"last_seen_at,notnull"`
	ExpiresAt  time.Time `bun:"expires_at,notnull"`
}

// CreateSession stores a browser session.
func (s *Console) CreateSession(ctx context.Context, bs owner.Session) error {
	row := browserSessionRow{
		IDHash: bs.IDHash, OwnerID: bs.OwnerID, CSRFToken: bs.CSRFToken,
		CreatedAt: utc(bs.CreatedAt), LastSeenAt: utc(bs.LastSeenAt), ExpiresAt: utc(bs.ExpiresAt),
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// SessionByHash returns the session whose id hashes to idHash, expired or
// not, or owner.ErrNotFound. The caller checks the expiries.
func (s *Console) SessionByHash(ctx context.Context, idHash []byte) (owner.Session, error) {
	var row browserSessionRow
	if err := s.db.NewSelect().Model(&row).Where("id_hash = ?", idHash).Scan(ctx); err != nil {
		return owner.Session{}, notFound(err, owner.ErrNotFound, "session")
	}
	return owner.Session{
		IDHash: row.IDHash, OwnerID: row.OwnerID, CSRFToken: row.CSRFToken,
		CreatedAt: row.CreatedAt.UTC(), LastSeenAt: row.LastSeenAt.UTC(), ExpiresAt: row.ExpiresAt.UTC(),
	}, nil
}

// TouchSession records activity of a session at time at.
func (s *Console) TouchSession(ctx context.Context, idHash []byte, at time.Time) error {
	_, err := s.db.NewUpdate().Model((*browserSessionRow)(nil)).
		Set("last_seen_at = ?", utc(at)).Where("id_hash = ?", idHash).Exec(ctx)
	if err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return nil
}

// DeleteSession ends a session; an unknown one is not an error.
func (s *Console) DeleteSession(ctx context.Context, idHash []byte) error {
	if _, err := s.db.NewDelete().Model((*browserSessionRow)(nil)).Where("id_hash = ?", idHash).Exec(ctx); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// DeleteSessionsBefore removes the sessions whose absolute expiry is before
// t, or that were last seen before idleBefore.
func (s *Console) DeleteSessionsBefore(ctx context.Context, t, idleBefore time.Time) error {
	_, err := s.db.NewDelete().Model((*browserSessionRow)(nil)).
		Where("expires_at < ?", utc(t)).WhereOr("last_seen_at < ?", utc(idleBefore)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("delete expired sessions: %w", err)
	}
	return nil
}

type signInFailuresRow struct {
	bun.BaseModel `bun:"table:console_signin_failures"`

	Key      string    `bun:"key,pk"`
	Failures int64     `bun:"failures,notnull"`
	LastAt   time.Time `bun:"last_at,notnull"`
}

// SignInFailures returns the failures recorded under key; none is a zero
// count, not an error.
func (s *Console) SignInFailures(ctx context.Context, key string) (owner.SignInFailures, error) {
	var row signInFailuresRow
	err := s.db.NewSelect().Model(&row).Where("key = ?", key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return owner.SignInFailures{Key: key}, nil
	}
	if err != nil {
		return owner.SignInFailures{}, fmt.Errorf("sign-in failures: %w", err)
	}
	return owner.SignInFailures{Key: row.Key, Failures: int(row.Failures), LastAt: row.LastAt.UTC()}, nil
}

// RecordSignInFailure counts one more failure under key at time at and
// returns the new state.
func (s *Console) RecordSignInFailure(ctx context.Context, key string, at time.Time) (owner.SignInFailures, error) {
	row := signInFailuresRow{Key: key, Failures: 1, LastAt: utc(at)}
	_, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (key) DO UPDATE").
		Set("failures = ?TableAlias.failures + 1").
		Set("last_at = EXCLUDED.last_at").
		Exec(ctx)
	if err != nil {
		return owner.SignInFailures{}, fmt.Errorf("record sign-in failure: %w", err)
	}
	return s.SignInFailures(ctx, key)
}

// ClearSignInFailures forgets the failures under key.
func (s *Console) ClearSignInFailures(ctx context.Context, key string) error {
	if _, err := s.db.NewDelete().Model((*signInFailuresRow)(nil)).Where("key = ?", key).Exec(ctx); err != nil {
		return fmt.Errorf("clear sign-in failures: %w", err)
	}
	return nil
}

// DeleteSignInFailuresBefore forgets the keys whose last failure was before
// t.
func (s *Console) DeleteSignInFailuresBefore(ctx context.Context, t time.Time) error {
	if _, err := s.db.NewDelete().Model((*signInFailuresRow)(nil)).Where("last_at < ?", utc(t)).Exec(ctx); err != nil {
		return fmt.Errorf("delete forgotten sign-in failures: %w", err)
	}
	return nil
}

type spentTokenRow struct {
	bun.BaseModel `bun:"table:console_spent_tokens"`

	ID        []byte    `bun:"id,pk"`
	ExpiresAt time.Time `bun:"expires_at,notnull"`
}

// SpendToken records the single-use token id as spent until expires, in
// one statement, so that of two requests spending one token at once, one
// only is told it was fresh.
func (s *Console) SpendToken(ctx context.Context, id []byte, expires time.Time) (bool, error) {
	res, err := s.db.NewInsert().Model(&spentTokenRow{ID: id, ExpiresAt: utc(expires)}).
		On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("spend token: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("spend token: %w", err)
	}
	return n == 1, nil
}

// DeleteSpentTokensBefore forgets the spent tokens that expired before t.
func (s *Console) DeleteSpentTokensBefore(ctx context.Context, t time.Time) error {
	if _, err := s.db.NewDelete().Model((*spentTokenRow)(nil)).Where("expires_at < ?", utc(t)).Exec(ctx); err != nil {
		return fmt.Errorf("delete expired spent tokens: %w", err)
	}
	return nil
}
