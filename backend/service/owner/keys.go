package owner

import (
	"context"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// CreateKey issues an API key named name for a's project, through the same
// project.Service the command line uses, and records it in the audit log;
// only owners may. It returns the key, to be shown once, and its record.
func (s *Service) CreateKey(ctx context.Context, a Actor, name string) (string, project.APIKey, error) {
	if !a.Role.CanManage() {
		return "", project.APIKey{}, ErrForbidden
	}
	key, k, err := s.projects.CreateKey(ctx, a.Project.ID, name)
	if err != nil {
		return "", project.APIKey{}, err
	}
	s.audit(ctx, a, AuditEntry{Action: ActionKeyCreated, Key: auditKey(k)})
	return key, k, nil
}

// RevokeKey revokes key keyID of a's project and returns it; only owners
// may. Revoking a revoked key changes nothing and records nothing; a key of
// another project is project.ErrNotFound.
func (s *Service) RevokeKey(ctx context.Context, a Actor, keyID string) (project.APIKey, error) {
	if !a.Role.CanManage() {
		return project.APIKey{}, ErrForbidden
	}
	k, revoked, err := s.projects.Revoke(ctx, a.Project.ID, keyID)
	if err != nil {
		return project.APIKey{}, err
	}
	if revoked {
		s.audit(ctx, a, AuditEntry{Action: ActionKeyRevoked, Key: auditKey(k)})
	}
	return k, nil
}

func auditKey(k project.APIKey) AuditKey {
	return AuditKey{ID: k.ID, Prefix: k.Prefix, Name: k.Name}
}
