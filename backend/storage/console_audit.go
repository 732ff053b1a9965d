package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

type auditRow struct {
	bun.BaseModel `bun:"table:console_audit"`

	ID          string    `bun:"id,pk"`
	ProjectID   string    `bun:"project_id,notnull"`
	OwnerID     string    `bun:"owner_id,notnull"`
	OwnerEmail  string    `bun:"owner_email,notnull"`
	Action      string    `bun:"action,notnull"`
	KeyID       string    `bun:"key_id,notnull"`
	KeyPrefix   string    `bun:"key_prefix,notnull"`
	KeyName     string    `bun:"key_name,notnull"`
	MemberID    string    `bun:"member_id,notnull"`
	MemberEmail string    `bun:"member_email,notnull"`
	MemberRole  string    `bun:"member_role,notnull"`
	Origin      string    `bun:"origin,notnull"`
	WebhookID   string    `bun:"webhook_id,notnull"`
	WebhookURL  string    `bun:"webhook_url,notnull"`
	CreatedAt   time.Time `bun:"created_at,notnull"`
}

func (r *auditRow) entry() owner.AuditEntry {
	return owner.AuditEntry{
		ID: r.ID, ProjectID: r.ProjectID, OwnerID: r.OwnerID, OwnerEmail: r.OwnerEmail, Action: owner.Action(r.Action),
		Key:       owner.AuditKey{ID: r.KeyID, Prefix: r.KeyPrefix, Name: r.KeyName},
		Member:    owner.AuditMember{ID: r.MemberID, Email: r.MemberEmail, Role: owner.Role(r.MemberRole)},
		Origin:    r.Origin,
		Webhook:   owner.AuditWebhook{ID: r.WebhookID, URL: r.WebhookURL},
		CreatedAt: r.CreatedAt.UTC(),
	}
}

func auditEntries(rows []auditRow) []owner.AuditEntry {
	out := make([]owner.AuditEntry, len(rows))
	for i := range rows {
		out[i] = rows[i].entry()
	}
	return out
}

// AddAudit records e, with a new "aud_" ID when e.ID is empty and CreatedAt
// set to now when zero. A key entry fills the key columns, a member entry the
// member columns (migration 20260521000005), an origin entry the origin
// column (20260521000007), a webhook entry the webhook columns
// (20260521000015).
func (s *Console) AddAudit(ctx context.Context, e owner.AuditEntry) error {
	row := auditRow{
		ID: e.ID, ProjectID: e.ProjectID, OwnerID: e.OwnerID, OwnerEmail: e.OwnerEmail, Action: string(e.Action),
		KeyID: e.Key.ID, KeyPrefix: e.Key.Prefix, KeyName: e.Key.Name,
		MemberID: e.Member.ID, MemberEmail: e.Member.Email, MemberRole: string(e.Member.Role),
		Origin:    e.Origin,
		WebhookID: e.Webhook.ID, WebhookURL: e.Webhook.URL,
		CreatedAt: utc(e.CreatedAt),
	}
	if row.ID == "" {
		row.ID = NewID("aud")
	}
	if e.CreatedAt.IsZero() {
		row.CreatedAt = now()
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("add audit entry: %w", err)
	}
	return nil
}

// AuditLog returns the latest limit entries of a project, newest first.
func (s *Console) AuditLog(ctx context.Context, projectID string, limit int) ([]owner.AuditEntry, error) {
	var rows []auditRow
	err := s.db.NewSelect().Model(&rows).Where("project_id = ?", projectID).
		OrderExpr("created_at DESC, id DESC").Limit(limit).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("audit log of %s: %w", projectID, err)
	}
	return auditEntries(rows), nil
}

// AuditLogActions returns the latest limit entries of a project whose action
// is one of actions, newest first.
func (s *Console) AuditLogActions(ctx context.Context, projectID string, actions []owner.Action, limit int) ([]owner.AuditEntry, error) {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = string(a)
	}
	var rows []auditRow
	err := s.db.NewSelect().Model(&rows).Where("project_id = ?", projectID).Where("action IN (?)", bun.List(names)).
		OrderExpr("created_at DESC, id DESC").Limit(limit).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("audit log of %s: %w", projectID, err)
	}
	return auditEntries(rows), nil
}
