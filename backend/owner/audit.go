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
)

// KeyActions and MemberActions are the actions on keys and on members, as
// the keys page and the members section list them. Treat them as read-only.
var (
	KeyActions    = []Action{ActionKeyCreated, ActionKeyRevoked}
	MemberActions = []Action{ActionMemberAdded, ActionMemberRoleChanged, ActionMemberRemoved}
)

// AuditEntry records who did what to a project's keys or members, and when.
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
	Member    AuditMember
	CreatedAt time.Time
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
