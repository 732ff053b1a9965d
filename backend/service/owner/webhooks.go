package owner

import (
	"context"
	"errors"

	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
)

// Webhooks manages a project's webhook endpoints (service/webhook.Service).
type Webhooks interface {
	Add(ctx context.Context, projectID, url string, events []string) (webhook.Endpoint, string, error)
	Remove(ctx context.Context, projectID, id string) (webhook.Endpoint, error)
	RotateSecret(ctx context.Context, projectID, id string) (webhook.Endpoint, string, error)
	Enable(ctx context.Context, projectID, id string) (bool, error)
	Endpoint(ctx context.Context, projectID, id string) (webhook.Endpoint, error)
	SendTest(ctx context.Context, projectID, id string) (webhook.Delivery, error)
	Redeliver(ctx context.Context, projectID, endpointID, deliveryID string) error
}

// errNoWebhooks is a Service built without Options.Webhooks.
var errNoWebhooks = errors.New("owner: no webhooks service")

func auditWebhook(e webhook.Endpoint) AuditWebhook {
	return AuditWebhook{ID: e.ID, URL: webhook.Redacted(e.URL)}
}

// AddWebhook adds an endpoint to a's project, and records it in the audit
// log; only owners may. It returns the endpoint and its signing secret, to
// be shown once.
func (s *Service) AddWebhook(ctx context.Context, a Actor, url string, events []string) (webhook.Endpoint, string, error) {
	if !a.Role.CanManage() {
		return webhook.Endpoint{}, "", ErrForbidden
	}
	if s.webhooks == nil {
		return webhook.Endpoint{}, "", errNoWebhooks
	}
	e, secret, err := s.webhooks.Add(ctx, a.Project.ID, url, events)
	if err != nil {
		return webhook.Endpoint{}, "", err
	}
	s.audit(ctx, a, AuditEntry{Action: ActionWebhookAdded, Webhook: auditWebhook(e)})
	return e, secret, nil
}

// RemoveWebhook removes an endpoint of a's project and its deliveries, and
// records it in the audit log; only owners may. Another project's endpoint
// is webhook.ErrNotFound.
func (s *Service) RemoveWebhook(ctx context.Context, a Actor, id string) error {
	if !a.Role.CanManage() {
		return ErrForbidden
	}
	if s.webhooks == nil {
		return errNoWebhooks
	}
	e, err := s.webhooks.Remove(ctx, a.Project.ID, id)
	if err != nil {
		return err
	}
	s.audit(ctx, a, AuditEntry{Action: ActionWebhookRemoved, Webhook: auditWebhook(e)})
	return nil
}

// RotateWebhookSecret gives an endpoint of a's project a new signing
// secret, returned to be shown once, and records it in the audit log; only
// owners may.
func (s *Service) RotateWebhookSecret(ctx context.Context, a Actor, id string) (webhook.Endpoint, string, error) {
	if !a.Role.CanManage() {
		return webhook.Endpoint{}, "", ErrForbidden
	}
	if s.webhooks == nil {
		return webhook.Endpoint{}, "", errNoWebhooks
	}
	e, secret, err := s.webhooks.RotateSecret(ctx, a.Project.ID, id)
	if err != nil {
		return webhook.Endpoint{}, "", err
	}
	s.audit(ctx, a, AuditEntry{Action: ActionWebhookRotated, Webhook: auditWebhook(e)})
	return e, secret, nil
}

// EnableWebhook enables a disabled endpoint of a's project, and records it
// in the audit log; only owners may.
func (s *Service) EnableWebhook(ctx context.Context, a Actor, id string) error {
	if !a.Role.CanManage() {
		return ErrForbidden
	}
	if s.webhooks == nil {
		return errNoWebhooks
	}
	enabled, err := s.webhooks.Enable(ctx, a.Project.ID, id)
	if err != nil || !enabled {
		return err
	}
	e, err := s.webhooks.Endpoint(ctx, a.Project.ID, id)
	if err == nil {
		s.audit(ctx, a, AuditEntry{Action: ActionWebhookEnabled, Webhook: auditWebhook(e)})
	}
	return nil
}

// SendTestWebhook sends a test event to an endpoint of a's project; only
// owners may.
func (s *Service) SendTestWebhook(ctx context.Context, a Actor, id string) error {
	if !a.Role.CanManage() {
		return ErrForbidden
	}
	if s.webhooks == nil {
		return errNoWebhooks
	}
	_, err := s.webhooks.SendTest(ctx, a.Project.ID, id)
	return err
}

// RedeliverWebhook sends a delivery of an endpoint of a's project again;
// only owners may.
func (s *Service) RedeliverWebhook(ctx context.Context, a Actor, endpointID, deliveryID string) error {
	if !a.Role.CanManage() {
		return ErrForbidden
	}
	if s.webhooks == nil {
		return errNoWebhooks
	}
	return s.webhooks.Redeliver(ctx, a.Project.ID, endpointID, deliveryID)
}
