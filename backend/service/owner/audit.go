package owner

import (
	"context"
	"time"
)

// Action is what an audit entry records.
type Action string

// The audited actions.
const (
	ActionKeyCreated        Action = "api_key.created"
	ActionKeyRevoked        Action = "api_key.revoked"
	ActionMemberAdded       Action = "member.added"
	ActionMemberRoleChanged Action = "member.role_changed"
	ActionMemberRemoved     Action = "member.removed"
	ActionOriginAdded       Action = "origin.added"
	ActionOriginRemoved     Action = "origin.removed"
	ActionWebhookAdded      Action = "webhook.added"
	ActionWebhookRemoved    Action = "webhook.removed"
	ActionWebhookRotated    Action = "webhook.secret_rotated"
	ActionWebhookEnabled    Action = "webhook.enabled"
)

// KeyActions, MemberActions, OriginActions and WebhookActions are the
// actions on keys, on members, on browser origins and on webhook
// endpoints, as the console's pages list them. Treat them as read-only.
var (
	KeyActions     = []Action{ActionKeyCreated, ActionKeyRevoked}
	MemberActions  = []Action{ActionMemberAdded, ActionMemberRoleChanged, ActionMemberRemoved}
	OriginActions  = []Action{ActionOriginAdded, ActionOriginRemoved}
	WebhookActions = []Action{ActionWebhookAdded, ActionWebhookRemoved, ActionWebhookRotated, ActionWebhookEnabled}
)

// AuditEntry records who did what to a project's keys, members or browser
// origins, and when.
// The log outlives the owner who acted: it keeps their email.
type AuditEntry struct {
	ID        string
	ProjectID string
	// OwnerID and OwnerEmail are the owner who acted.
	OwnerID    string
	OwnerEmail string
	Action     Action
	// Key is the key acted on, in api_key.* entries.
	Key AuditKey
	// Member is the member acted on, in member.* entries.
	Member AuditMember
	// Origin is the browser origin added or removed, in origin.* entries.
	Origin string
	// Webhook is the endpoint acted on, in webhook.* entries.
	Webhook   AuditWebhook
	CreatedAt time.Time
}

// AuditWebhook is the webhook endpoint an entry is about: its id and its
// URL as shown (webhook.Redacted: no query).
type AuditWebhook struct {
	ID  string
	URL string
}

// AuditKey is the key an entry is about.
type AuditKey struct {
	ID     string
	Prefix string
	Name   string
}

// AuditMember is the member an entry is about, with the role they were given
// (or had, for a removal).
type AuditMember struct {
	ID    string
	Email string
	Role  Role
}

// AuditLog returns the latest limit entries of a project whose action is
// one of actions, newest first.
func (s *Service) AuditLog(ctx context.Context, projectID string, actions []Action, limit int) ([]AuditEntry, error) {
	return s.store.AuditLogActions(ctx, projectID, actions, limit)
}

// audit records what a did; a failure is logged, not returned: the action
// itself succeeded.
func (s *Service) audit(ctx context.Context, a Actor, e AuditEntry) {
	e.ProjectID, e.OwnerID, e.OwnerEmail, e.CreatedAt = a.Project.ID, a.Owner.ID, a.Owner.Email, s.now().UTC()
	if err := s.store.AddAudit(ctx, e); err != nil {
		s.log.Error("owner: audit", "action", string(e.Action), "project", e.ProjectID, "err", err)
	}
}
