package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
)

// The outbox. A status change (settle) writes its event's deliveries in its
// own transaction, one row per enabled endpoint of the project that wants
// the event's type, in one INSERT ... SELECT: a project without endpoints
// pays that statement's index lookup and nothing else. The delivery loop
// (service/webhook) leases due rows as the tracker leases entries, so that
// instances sharing the database deliver each once.

// parked is the due time of a disabled endpoint's pending deliveries:
// never, until the endpoint is enabled again.
const parked = int64(1) << 62

// enqueueEvent writes the event of row's status change at at to the
// outbox, in tx, and returns how many deliveries it wrote.
func (s *core) enqueueEvent(ctx context.Context, tx bun.Tx, row *transactionRow, at time.Time) (int64, error) {
	if s.noOutbox {
		return 0, nil
	}
	typ, body, ok := webhook.SubmissionEvent(row.entry(), at)
	if !ok {
		return 0, nil
	}
	// An endpoint that names no type takes every type but the opt-in ones.
	every := "e.events = '' OR "
	if webhook.OptIn(typ) {
		every = ""
	}
	eventID := NewID("msg")
	res, err := tx.NewRaw(`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, project_id, type, wallet, signature,
		payload, state, attempts, next_attempt_at, lease_owner, lease_until, created_at, last_status, last_error,
		last_latency_ms, last_response)
		SELECT ? || '.' || e.id, ?, e.id, e.project_id, ?, ?, ?, ?, ?, 0, ?, '', 0, ?, 0, '', 0, ''
		FROM webhook_endpoints AS e
		WHERE e.project_id = ? AND e.disabled_at IS NULL AND (`+every+`e.events LIKE ?)`,
		eventID, eventID, typ, row.Payer, row.Signature, body, webhook.StatePending, at.UnixMilli(), utc(at),
		row.ProjectID, "%,"+typ+",%").Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("write webhook event: %w", err)
	}
	return res.RowsAffected()
}

// WebhooksDue reports whether a delivery is due at now and not leased.
func (s *Webhooks) WebhooksDue(ctx context.Context, now time.Time) (bool, error) {
	ms := now.UnixMilli()
	ok, err := s.db.NewSelect().Model((*webhookDeliveryRow)(nil)).
		Where("state = ?", webhook.StatePending).Where("next_attempt_at <= ?", ms).Where("lease_until <= ?", ms).
		Limit(1).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("webhooks due: %w", err)
	}
	return ok, nil
}

// LeaseWebhookDeliveries leases to owner, until until, runs of due
// deliveries whose lease is free, fairly (webhook.Share): up to
// share.Limit endpoints each get one run of their oldest, at most
// share.Run, unless the endpoint already has share.PerEndpoint runs under
// way or its project share.PerProject, counting every live lease (a run
// is the deliveries of one endpoint leased to one owner); the projects
// with the fewest runs, and in a project the endpoints with the oldest
// deliveries, go first. It returns the deliveries oldest first; owner must
// be new to each call for the runs to count apart. The database decides
// between instances as LeaseInFlight does: on SQLite the one statement
// runs under the database's write lock; on Postgres leases are taken one
// at a time under a transaction's advisory lock, so that the statement
// sees every lease committed before it and the bounds hold across
// instances.
func (s *Webhooks) LeaseWebhookDeliveries(ctx context.Context, owner string, share webhook.Share, now, until time.Time) ([]webhook.Delivery, error) {
	if share.Limit <= 0 || share.PerEndpoint <= 0 || share.PerProject <= 0 || share.Run <= 0 {
		return nil, nil
	}
	ms := now.UnixMilli()
	pending := webhook.StatePending
	args := []any{pending, ms, ms, pending, ms, pending, ms, share.PerEndpoint, share.PerProject, share.Limit,
		owner, until.UnixMilli(), share.Run, pending, ms, ms}
	var rows []webhookDeliveryRow
	lease := func(ctx context.Context, db bun.IDB) error {
		return db.NewRaw(fairLease, args...).Scan(ctx, &rows)
	}
	var err error
	if s.postgres {
		err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", pgWebhookLeaseLock); err != nil {
				return err
			}
			return lease(ctx, tx)
		})
	} else {
		err = lease(ctx, s.db)
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("lease webhook deliveries: %w", s.writeErr(err))
	}
	slices.SortFunc(rows, func(a, b webhookDeliveryRow) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	out := make([]webhook.Delivery, len(rows))
	for i := range rows {
		out[i] = rows[i].delivery()
	}
	return out, nil
}

// pgWebhookLeaseLock is the Postgres advisory lock key held while leasing
// webhook deliveries ("whle").
const pgWebhookLeaseLock = 0x77686c65

// fairLease leases the runs webhook.Share allows, in one statement that
// SQLite and Postgres both run. due ranks each endpoint's due deliveries
// oldest first (nth); busy_* count the runs under way (live leases, one
// run per owner and endpoint); heads are the endpoints that may start a
// run, by their oldest delivery; ranked ranks them in their project
// (pnth); runs keeps those the project's bound leaves room for, the least
// busy projects first; the UPDATE leases each one's first deliveries and
// checks again that each row is due and free.
const fairLease = `WITH due AS MATERIALIZED (
	SELECT id, endpoint_id, project_id, next_attempt_at, created_at,
		ROW_NUMBER() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, created_at, id) AS nth
	FROM webhook_deliveries
	WHERE state = ? AND next_attempt_at <= ? AND lease_until <= ?
), busy_endpoints AS (
	SELECT endpoint_id, COUNT(DISTINCT lease_owner) AS n FROM webhook_deliveries
	WHERE state = ? AND lease_until > ? GROUP BY endpoint_id
), busy_projects AS (
	SELECT project_id, COUNT(DISTINCT lease_owner || ' ' || endpoint_id) AS n FROM webhook_deliveries
	WHERE state = ? AND lease_until > ? GROUP BY project_id
), heads AS (
	SELECT due.id, due.endpoint_id, due.project_id, due.next_attempt_at, due.created_at, COALESCE(bp.n, 0) AS busy
	FROM due
	LEFT JOIN busy_endpoints AS be ON be.endpoint_id = due.endpoint_id
	LEFT JOIN busy_projects AS bp ON bp.project_id = due.project_id
	WHERE due.nth = 1 AND COALESCE(be.n, 0) < ?
), ranked AS (
	SELECT id, endpoint_id, busy, next_attempt_at, created_at,
		ROW_NUMBER() OVER (PARTITION BY project_id ORDER BY next_attempt_at, created_at, id) AS pnth
	FROM heads
), runs AS (
	SELECT endpoint_id FROM ranked WHERE pnth + busy <= ?
	ORDER BY pnth + busy, next_attempt_at, created_at, id LIMIT ?
)
UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
WHERE id IN (SELECT due.id FROM due JOIN runs ON runs.endpoint_id = due.endpoint_id WHERE due.nth <= ?)
	AND state = ? AND next_attempt_at <= ? AND lease_until <= ?
RETURNING *`

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ReleaseWebhookLeases frees the deliveries of ids that owner leased and
// did not attempt, due again at now.
func (s *Webhooks) ReleaseWebhookLeases(ctx context.Context, owner string, ids []string, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.db.NewUpdate().Model((*webhookDeliveryRow)(nil)).
		Set("lease_owner = ''").Set("lease_until = ?", now.UnixMilli()).
		Where("lease_owner = ?", owner).Where("id IN (?)", bun.List(ids)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("release webhook leases: %w", s.writeErr(err))
	}
	return nil
}

// WebhookEndpointsByID returns the endpoints of ids that exist, by id.
func (s *Webhooks) WebhookEndpointsByID(ctx context.Context, ids []string) (map[string]webhook.Endpoint, error) {
	out := make(map[string]webhook.Endpoint, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []webhookEndpointRow
	if err := s.db.NewSelect().Model(&rows).Where("id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("webhook endpoints: %w", err)
	}
	for i := range rows {
		out[rows[i].ID] = rows[i].endpoint()
	}
	return out, nil
}

// ErrLeaseLost is an attempt recorded by an instance whose lease on the
// delivery ended (it took longer than the lease): another instance may
// have sent it meanwhile; nothing is recorded.
var ErrLeaseLost = errors.New("webhook delivery: the lease ended before the attempt was recorded")

// RecordWebhookAttempt records an attempt at d that owner leased: d's
// state, attempts, next attempt and last attempt as the caller decided
// them, the lease freed; and the endpoint's run of failures (a test
// event's failure is not counted), which, once
// webhook.ShouldDisable says so after disableAfter, disables it and parks
// its pending deliveries. It reports whether it disabled the endpoint.
func (s *Webhooks) RecordWebhookAttempt(ctx context.Context, owner string, d webhook.Delivery, disableAfter time.Duration) (bool, error) {
	at := d.Last.At
	disabled := false
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().Model((*webhookDeliveryRow)(nil)).
			Set("state = ?", d.State).Set("attempts = ?", d.Attempts).Set("next_attempt_at = ?", millis(d.NextAttemptAt)).
			Set("lease_owner = ''").Set("lease_until = ?", at.UnixMilli()).
			Set("last_at = ?", utc(at)).Set("last_status = ?", d.Last.Status).Set("last_error = ?", d.Last.Error).
			Set("last_latency_ms = ?", d.Last.Latency.Milliseconds()).Set("last_response = ?", d.Last.Response).
			Where("id = ?", d.ID).Where("lease_owner = ?", owner)
		if d.DeliveredAt != nil {
			q = q.Set("delivered_at = ?", utc(*d.DeliveredAt))
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrLeaseLost
		}
		if d.Last.OK() {
			_, err := tx.NewUpdate().Model((*webhookEndpointRow)(nil)).Set("failures = 0").Set("failing_since = 0").
				Where("id = ?", d.EndpointID).Where("failures <> 0").Exec(ctx)
			return err
		}
		if d.Type == webhook.TypeTest {
			return nil // a test the owner sent says nothing of the events
		}
		disabled, err = s.countFailure(ctx, tx, d.EndpointID, at, d.Last.Error, disableAfter)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrLeaseLost) {
			return false, err
		}
		return false, fmt.Errorf("record webhook attempt: %w", s.writeErr(err))
	}
	return disabled, nil
}

// countFailure adds a failure at at to endpoint id's run, and disables it
// when the run is long enough.
func (s *Webhooks) countFailure(ctx context.Context, tx bun.Tx, id string, at time.Time, why string, disableAfter time.Duration) (bool, error) {
	var e webhookEndpointRow
	q := tx.NewSelect().Model(&e).Where("id = ?", id)
	if s.postgres {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil // removed meanwhile
		}
		return false, err
	}
	since := fromMillis(e.FailingSince)
	if e.FailingSince == 0 {
		since = at
	}
	failures := e.Failures + 1
	upd := tx.NewUpdate().Model((*webhookEndpointRow)(nil)).
		Set("failures = ?", failures).Set("failing_since = ?", since.UnixMilli()).Where("id = ?", id)
	disable := e.DisabledAt == nil && disableAfter > 0 && webhook.ShouldDisable(since, failures, at, disableAfter)
	if disable {
		upd = upd.Set("disabled_at = ?", utc(at)).Set("disabled_reason = ?", webhook.DisabledReason(since, failures, why))
	}
	if _, err := upd.Exec(ctx); err != nil {
		return false, err
	}
	if disable {
		if _, err := tx.NewUpdate().Model((*webhookDeliveryRow)(nil)).Set("next_attempt_at = ?", parked).
			Where("endpoint_id = ?", id).Where("state = ?", webhook.StatePending).Exec(ctx); err != nil {
			return false, err
		}
	}
	return disable, nil
}

// unparkDeliveries makes an enabled endpoint's parked deliveries due at
// now.
func unparkDeliveries(ctx context.Context, db bun.IDB, endpointID string, now time.Time) error {
	_, err := db.NewUpdate().Model((*webhookDeliveryRow)(nil)).Set("next_attempt_at = ?", now.UnixMilli()).
		Where("endpoint_id = ?", endpointID).Where("state = ?", webhook.StatePending).
		Where("next_attempt_at = ?", parked).Exec(ctx)
	return err
}

// PruneWebhookDeliveries deletes up to limit deliveries done (delivered or
// given up) and created before before, oldest first, and returns how many
// it deleted.
func (s *Webhooks) PruneWebhookDeliveries(ctx context.Context, before time.Time, limit int) (int, error) {
	oldest := s.db.NewSelect().Model((*webhookDeliveryRow)(nil)).Column("id").
		Where("created_at < ?", utc(before)).Where("state <> ?", webhook.StatePending).
		OrderExpr("created_at ASC").Limit(limit)
	res, err := s.db.NewDelete().Model((*webhookDeliveryRow)(nil)).Where("id IN (?)", oldest).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("prune webhook deliveries: %w", s.writeErr(err))
	}
	n, err := res.RowsAffected()
	return int(n), err
}
