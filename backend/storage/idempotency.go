package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
)

// idempotencyKeyRow is a key's record, as migration 20260521000015 made
// it.
type idempotencyKeyRow idempotencyKeyV15

func (r *idempotencyKeyRow) record() idempotency.Record {
	return idempotency.Record{
		ProjectID: r.ProjectID, KeyHash: r.KeyHash, Fingerprint: r.Fingerprint, Token: r.Token, Done: r.Done,
		Answer:     idempotency.Answer{Code: r.Code, Body: r.Body, Message: r.Message, Param: r.Param},
		LeaseUntil: fromMillis(r.LeaseUntil), CreatedAt: fromMillis(r.CreatedAt),
	}
}

// ClaimKey inserts rec in flight, or replaces a record of its key that is
// older than idempotency.TTL or in flight with its lease over at now, in one
// statement (the database decides between concurrent claims on every
// instance); otherwise it returns the record that stands, and false.
func (s *IdempotencyKeys) ClaimKey(ctx context.Context, rec idempotency.Record, now time.Time) (idempotency.Record, bool, error) {
	row := idempotencyKeyRow{
		ProjectID: rec.ProjectID, KeyHash: rec.KeyHash, Fingerprint: rec.Fingerprint, Token: rec.Token,
		LeaseUntil: millis(rec.LeaseUntil), CreatedAt: millis(rec.CreatedAt),
	}
	for range 3 { // a record that ends between the two statements: claim again
		var token string
		err := s.db.NewInsert().Model(&row).
			On("CONFLICT (project_id, key_hash) DO UPDATE").
			Set("fingerprint = EXCLUDED.fingerprint").Set("token = EXCLUDED.token").Set("done = EXCLUDED.done").
			Set("code = 0").Set("body = NULL").Set("message = ''").Set("param = ''").
			Set("lease_until = EXCLUDED.lease_until").Set("created_at = EXCLUDED.created_at").
			Where("?TableAlias.created_at <= ? OR (NOT ?TableAlias.done AND ?TableAlias.lease_until <= ?)",
				now.Add(-idempotency.TTL).UnixMilli(), now.UnixMilli()).
			Returning("token").Scan(ctx, &token)
		switch {
		case err == nil && token == rec.Token:
			s.health.wrote()
			return idempotency.Record{}, true, nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return idempotency.Record{}, false, fmt.Errorf("claim idempotency key: %w", s.writeErr(err))
		}
		prior, ok, err := s.KeyRecord(ctx, rec.ProjectID, rec.KeyHash)
		if err != nil || ok {
			return prior, false, err
		}
	}
	return idempotency.Record{}, false, errors.New("claim idempotency key: the key keeps changing")
}

// CompleteKey stores the answer of the claim token holds.
func (s *IdempotencyKeys) CompleteKey(ctx context.Context, projectID string, keyHash []byte, token string, a idempotency.Answer) error {
	_, err := s.db.NewUpdate().Model((*idempotencyKeyRow)(nil)).
		Set("done = ?", true).Set("code = ?", a.Code).Set("body = ?", a.Body).
		Set("message = ?", a.Message).Set("param = ?", a.Param).
		Where("project_id = ?", projectID).Where("key_hash = ?", keyHash).Where("token = ?", token).
		Where("NOT done").Exec(ctx)
	if err != nil {
		return fmt.Errorf("complete idempotency key: %w", s.writeErr(err))
	}
	return nil
}

// ReleaseKey deletes the claim token holds, unanswered.
func (s *IdempotencyKeys) ReleaseKey(ctx context.Context, projectID string, keyHash []byte, token string) error {
	_, err := s.db.NewDelete().Model((*idempotencyKeyRow)(nil)).
		Where("project_id = ?", projectID).Where("key_hash = ?", keyHash).Where("token = ?", token).
		Where("NOT done").Exec(ctx)
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", s.writeErr(err))
	}
	return nil
}

// KeyRecord returns the record of a key, and false when there is none.
func (s *IdempotencyKeys) KeyRecord(ctx context.Context, projectID string, keyHash []byte) (idempotency.Record, bool, error) {
	var row idempotencyKeyRow
	err := s.db.NewSelect().Model(&row).Where("project_id = ?", projectID).Where("key_hash = ?", keyHash).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return idempotency.Record{}, false, nil
	case err != nil:
		return idempotency.Record{}, false, fmt.Errorf("idempotency key: %w", err)
	}
	return row.record(), true, nil
}

// PruneKeys deletes up to limit records created before before, oldest
// first, and returns how many it deleted.
func (s *IdempotencyKeys) PruneKeys(ctx context.Context, before time.Time, limit int) (int, error) {
	oldest := s.db.NewSelect().Model((*idempotencyKeyRow)(nil)).Column("project_id", "key_hash").
		Where("created_at < ?", before.UnixMilli()).OrderExpr("created_at ASC").Limit(limit)
	res, err := s.db.NewDelete().Model((*idempotencyKeyRow)(nil)).
		Where("(project_id, key_hash) IN (?)", oldest).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("prune idempotency keys: %w", s.writeErr(err))
	}
	n, err := res.RowsAffected()
	return int(n), err
}

var _ idempotency.Store = (*IdempotencyKeys)(nil)
