package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// The rows of the webhooks' tables, as migration 20260521000015 made them.
type (
	webhookEndpointRow webhookEndpointV15
	webhookDeliveryRow webhookDeliveryV15
)

// eventsColumn is the events column's form of a list of types: "" for
// every type, else ",a,b," (so that one type matches as LIKE '%,t,%').
func eventsColumn(types []string) string {
	if len(types) == 0 {
		return ""
	}
	return "," + strings.Join(types, ",") + ","
}

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func (r *webhookEndpointRow) endpoint() webhook.Endpoint {
	e := webhook.Endpoint{
		ID: r.ID, ProjectID: r.ProjectID, URL: r.URL, CreatedAt: r.CreatedAt.UTC(),
		Secret: r.Secret, PreviousSecret: r.PreviousSecret, PreviousUntil: fromMillis(r.PreviousUntil),
		DisabledAt: utcPtr(r.DisabledAt), DisabledReason: r.DisabledReason, Failures: r.Failures,
	}
	if ev := strings.Trim(r.Events, ","); ev != "" {
		e.Events = strings.Split(ev, ",")
	}
	if r.FailingSince != 0 {
		t := fromMillis(r.FailingSince)
		e.FailingSince = &t
	}
	return e
}

func (r *webhookDeliveryRow) delivery() webhook.Delivery {
	d := webhook.Delivery{
		ID: r.ID, EventID: r.EventID, EndpointID: r.EndpointID, ProjectID: r.ProjectID, Type: r.Type,
		Wallet: r.Wallet, Signature: r.Signature, Payload: r.Payload, State: webhook.State(r.State),
		Attempts: r.Attempts, NextAttemptAt: fromMillis(r.NextAttemptAt), CreatedAt: r.CreatedAt.UTC(),
		DeliveredAt: utcPtr(r.DeliveredAt),
		Last: webhook.Attempt{
			Status: r.LastStatus, Error: r.LastError, Latency: time.Duration(r.LastLatencyMS) * time.Millisecond,
			Response: r.LastResponse,
		},
	}
	if r.LastAt != nil {
		d.Last.At = r.LastAt.UTC()
	}
	return d
}

// CreateWebhookEndpoint stores a new endpoint of e.ProjectID, whose secret
// is sealed already. An unknown project is project.ErrNotFound; a project
// with webhook.MaxEndpoints is webhook.ErrTooMany.
func (s *Webhooks) CreateWebhookEndpoint(ctx context.Context, e webhook.Endpoint) error {
	row := webhookEndpointRow{
		ID: e.ID, ProjectID: e.ProjectID, URL: e.URL, Events: eventsColumn(e.Events), Secret: e.Secret,
		CreatedAt: utc(e.CreatedAt),
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewSelect().Model((*projectRow)(nil)).Column("id").Where("id = ?", e.ProjectID).Scan(ctx, new(string)); err != nil {
			return notFound(err, project.ErrNotFound, "project %s", e.ProjectID)
		}
		n, err := tx.NewSelect().Model((*webhookEndpointRow)(nil)).Where("project_id = ?", e.ProjectID).Count(ctx)
		if err != nil {
			return err
		}
		if n >= webhook.MaxEndpoints {
			return webhook.ErrTooMany
		}
		_, err = tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("create webhook endpoint: %w", s.writeErr(err))
	}
	return nil
}

// WebhookEndpoints returns a project's endpoints, oldest first.
func (s *Webhooks) WebhookEndpoints(ctx context.Context, projectID string) ([]webhook.Endpoint, error) {
	var rows []webhookEndpointRow
	if err := s.db.NewSelect().Model(&rows).Where("project_id = ?", projectID).OrderExpr("created_at ASC, id ASC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("webhook endpoints of %s: %w", projectID, err)
	}
	out := make([]webhook.Endpoint, len(rows))
	for i := range rows {
		out[i] = rows[i].endpoint()
	}
	return out, nil
}

// WebhookEndpoint returns endpoint id of a project; webhook.ErrNotFound
// when the project has none of that id (another project's included).
func (s *Webhooks) WebhookEndpoint(ctx context.Context, projectID, id string) (webhook.Endpoint, error) {
	var row webhookEndpointRow
	err := s.db.NewSelect().Model(&row).Where("project_id = ?", projectID).Where("id = ?", id).Scan(ctx)
	if err != nil {
		return webhook.Endpoint{}, notFound(err, webhook.ErrNotFound, "webhook endpoint %s", id)
	}
	return row.endpoint(), nil
}

// DeleteWebhookEndpoint deletes endpoint id of a project with its
// deliveries and returns it; webhook.ErrNotFound as WebhookEndpoint.
func (s *Webhooks) DeleteWebhookEndpoint(ctx context.Context, projectID, id string) (webhook.Endpoint, error) {
	var rows []webhookEndpointRow
	err := s.db.NewDelete().Model(&rows).Where("project_id = ?", projectID).Where("id = ?", id).Returning("*").Scan(ctx)
	switch {
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return webhook.Endpoint{}, fmt.Errorf("delete webhook endpoint: %w", s.writeErr(err))
	case len(rows) == 0:
		return webhook.Endpoint{}, fmt.Errorf("delete webhook endpoint %s: %w", id, webhook.ErrNotFound)
	}
	return rows[0].endpoint(), nil
}

// RotateWebhookSecret makes secret (sealed) endpoint id's signing secret;
// the one it replaces signs too until previousUntil. webhook.ErrNotFound as
// WebhookEndpoint.
func (s *Webhooks) RotateWebhookSecret(ctx context.Context, projectID, id string, secret []byte, previousUntil time.Time) (webhook.Endpoint, error) {
	var rows []webhookEndpointRow
	err := s.db.NewUpdate().Model(&rows).
		Set("previous_secret = secret").
		Set("previous_until = ?", millis(previousUntil)).
		Set("secret = ?", secret).
		Where("project_id = ?", projectID).Where("id = ?", id).
		Returning("*").Scan(ctx)
	switch {
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return webhook.Endpoint{}, fmt.Errorf("rotate webhook secret: %w", s.writeErr(err))
	case len(rows) == 0:
		return webhook.Endpoint{}, fmt.Errorf("rotate webhook secret of %s: %w", id, webhook.ErrNotFound)
	}
	return rows[0].endpoint(), nil
}

// EnableWebhookEndpoint enables a disabled endpoint again at now, its
// count of failures cleared; its pending deliveries are due at once. It
// reports whether the endpoint was disabled. webhook.ErrNotFound as
// WebhookEndpoint.
func (s *Webhooks) EnableWebhookEndpoint(ctx context.Context, projectID, id string, now time.Time) (bool, error) {
	if _, err := s.WebhookEndpoint(ctx, projectID, id); err != nil {
		return false, err
	}
	enabled := false
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*webhookEndpointRow)(nil)).
			Set("disabled_at = NULL").Set("disabled_reason = ''").Set("failing_since = 0").Set("failures = 0").
			Where("project_id = ?", projectID).Where("id = ?", id).Where("disabled_at IS NOT NULL").
			Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		enabled = true
		return unparkDeliveries(ctx, tx, id, now)
	})
	if err != nil {
		return false, fmt.Errorf("enable webhook endpoint: %w", s.writeErr(err))
	}
	if enabled {
		s.notifyOutbox()
	}
	return enabled, nil
}

// WebhookDeliveries returns the latest limit deliveries of endpoint id of
// a project, newest first.
func (s *Webhooks) WebhookDeliveries(ctx context.Context, projectID, endpointID string, limit int) ([]webhook.Delivery, error) {
	var rows []webhookDeliveryRow
	err := s.db.NewSelect().Model(&rows).
		Where("endpoint_id = ?", endpointID).Where("project_id = ?", projectID).
		OrderExpr("created_at DESC, id DESC").Limit(limit).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("webhook deliveries of %s: %w", endpointID, err)
	}
	out := make([]webhook.Delivery, len(rows))
	for i := range rows {
		out[i] = rows[i].delivery()
	}
	return out, nil
}

// errBeingSent is a redelivery asked while an attempt is under way.
var errBeingSent = fault.New(fault.KindConflict, "this delivery is being sent right now: look again in a few seconds")

// RedeliverWebhook makes a delivery of endpoint endpointID pending again,
// due at now, whatever its state; webhook.ErrDeliveryNotFound for one the
// endpoint (of that project) does not have, a conflict fault while an
// attempt at it is under way.
func (s *Webhooks) RedeliverWebhook(ctx context.Context, projectID, endpointID, deliveryID string, now time.Time) error {
	res, err := s.db.NewUpdate().Model((*webhookDeliveryRow)(nil)).
		Set("state = ?", webhook.StatePending).
		Set("next_attempt_at = ?", now.UnixMilli()).
		Where("id = ?", deliveryID).Where("endpoint_id = ?", endpointID).Where("project_id = ?", projectID).
		Where("lease_until <= ?", now.UnixMilli()).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("redeliver webhook: %w", s.writeErr(err))
	}
	if n, _ := res.RowsAffected(); n == 1 {
		s.notifyOutbox()
		return nil
	}
	exists, err := s.db.NewSelect().Model((*webhookDeliveryRow)(nil)).
		Where("id = ?", deliveryID).Where("endpoint_id = ?", endpointID).Where("project_id = ?", projectID).Exists(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("redeliver webhook: %w", err)
	case exists:
		return errBeingSent
	}
	return fmt.Errorf("redeliver %s: %w", deliveryID, webhook.ErrDeliveryNotFound)
}

// EnqueueWebhook adds one delivery to the outbox (a test event), due at
// once.
func (s *Webhooks) EnqueueWebhook(ctx context.Context, d webhook.Delivery) error {
	row := webhookDeliveryRow{
		ID: d.EventID + "." + d.EndpointID, EventID: d.EventID, EndpointID: d.EndpointID, ProjectID: d.ProjectID,
		Type: d.Type, Wallet: d.Wallet, Signature: d.Signature, Payload: d.Payload, State: string(webhook.StatePending),
		NextAttemptAt: millis(d.CreatedAt), CreatedAt: utc(d.CreatedAt),
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("enqueue webhook: %w", s.writeErr(err))
	}
	s.notifyOutbox()
	return nil
}
