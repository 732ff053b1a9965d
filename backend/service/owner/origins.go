package owner

import (
	"context"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// AddOrigin lets browser pages served from origin call the API with a's
// project's session tokens, through project.Service's checks, and records it
// in the audit log; only owners may. It returns the origin as stored
// (normalized).
func (s *Service) AddOrigin(ctx context.Context, a Actor, origin string) (project.Origin, error) {
	if !a.Role.CanManage() {
		return project.Origin{}, ErrForbidden
	}
	o, err := s.projects.AddOrigin(ctx, a.Project.ID, origin)
	if err != nil {
		return project.Origin{}, err
	}
	s.audit(ctx, a, AuditEntry{Action: ActionOriginAdded, Origin: o.Origin})
	return o, nil
}

// RemoveOrigin stops a's project allowing origin, and records it in the
// audit log; only owners may. An origin the project does not list is
// project.ErrNotFound.
func (s *Service) RemoveOrigin(ctx context.Context, a Actor, origin string) error {
	if !a.Role.CanManage() {
		return ErrForbidden
	}
	norm, err := s.projects.RemoveOrigin(ctx, a.Project.ID, origin)
	if err != nil {
		return err
	}
	s.audit(ctx, a, AuditEntry{Action: ActionOriginRemoved, Origin: norm})
	return nil
}
