package owner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// MemberChange decides what becomes of membership m of a project that has
// owners owners: the role to give, or "" to remove the member. A MemberStore
// calls it inside the transaction that holds the project's membership lock,
// so two changes at once see each other's result; its error aborts the
// change, which then changes nothing.
type MemberChange func(m Membership, owners int) (Role, error)

// ChangeRole is the change that gives a member role. An unknown role is
// an invalid fault; demoting the project's last owner is ErrLastOwner.
func ChangeRole(role Role) MemberChange {
	return func(m Membership, owners int) (Role, error) {
		if !ValidRole(role) {
			return "", errInvalidRole
		}
		return role, keepOwner(m, owners, role)
	}
}

// Removal is the change that takes a member out of their project; removing
// its last owner is ErrLastOwner.
func Removal(m Membership, owners int) (Role, error) {
	return "", keepOwner(m, owners, "")
}

// keepOwner is the rule that a project keeps an owner: m, one of owners
// owners, may become to unless that leaves none.
func keepOwner(m Membership, owners int, to Role) error {
	if m.Role == RoleOwner && to != RoleOwner && owners <= 1 {
		return ErrLastOwner
	}
	return nil
}

var errInvalidRole = fault.Invalid("role", "choose a role: owner or viewer")

// Actor returns o acting in project projectID, with their role in it. A
// project o does not belong to is ErrNotFound, whether it exists or not, so
// a tenant learns nothing of the others.
func (s *Service) Actor(ctx context.Context, o Owner, projectID string) (Actor, error) {
	m, err := s.store.Membership(ctx, projectID, o.ID)
	if err != nil {
		return Actor{}, err
	}
	p, err := s.projects.Get(ctx, m.ProjectID)
	if errors.Is(err, project.ErrNotFound) {
		return Actor{}, fmt.Errorf("project %s: %w", projectID, ErrNotFound)
	}
	if err != nil {
		return Actor{}, err
	}
	return Actor{Owner: o, Project: p, Role: m.Role}, nil
}

// ProjectsOf returns the projects ownerID belongs to, with their role, by
// name.
func (s *Service) ProjectsOf(ctx context.Context, ownerID string) ([]ProjectRole, error) {
	return s.store.ProjectsOf(ctx, ownerID)
}

// CreateProject creates a project (with project.New's checks) whose first
// owner is o, atomically. The console and `reclaim project create --owner`
// both use it.
func (s *Service) CreateProject(ctx context.Context, o Owner, name, donationWallet string) (project.Project, error) {
	p, err := project.New(name, donationWallet, s.now())
	if err != nil {
		return project.Project{}, err
	}
	return s.store.CreateOwnedProject(ctx, p, o.ID)
}

// UpdateProject sets the name and donation wallet of a's project; only its
// owners may.
func (s *Service) UpdateProject(ctx context.Context, a Actor, name, donationWallet string) (project.Project, error) {
	if !a.Role.CanManage() {
		return project.Project{}, ErrForbidden
	}
	return s.projects.Update(ctx, a.Project.ID, name, donationWallet)
}

// Members returns the members of a project, owners first, then by email.
func (s *Service) Members(ctx context.Context, projectID string) ([]Member, error) {
	return s.store.ListMembers(ctx, projectID)
}

// Share gives the console account with email a role in project projectID
// and returns the account. An unknown email is ErrNoAccount, an unknown
// project project.ErrNotFound, a member already ErrConflict. `reclaim
// project share` uses it; the console adds members through AddMember.
func (s *Service) Share(ctx context.Context, projectID, email string, role Role) (Owner, error) {
	if !ValidRole(role) {
		return Owner{}, errInvalidRole
	}
	email = strings.TrimSpace(email)
	if err := ValidateEmail(email); err != nil {
		return Owner{}, err
	}
	o, err := s.OwnerByEmail(ctx, email)
	if err != nil {
		return Owner{}, err
	}
	err = s.store.AddMember(ctx, projectID, o.ID, role)
	if errors.Is(err, ErrNotFound) {
		return Owner{}, fmt.Errorf("share %s: %w", projectID, project.ErrNotFound)
	}
	if err != nil {
		return Owner{}, err
	}
	return o, nil
}

// AddMember shares a's project with the account whose email is email, as
// Share does, and records it in the audit log; only owners may.
func (s *Service) AddMember(ctx context.Context, a Actor, email string, role Role) (Owner, error) {
	if !a.Role.CanManage() {
		return Owner{}, ErrForbidden
	}
	m, err := s.Share(ctx, a.Project.ID, email, role)
	if err != nil {
		return Owner{}, err
	}
	s.audit(ctx, a, AuditEntry{Action: ActionMemberAdded, Member: AuditMember{ID: m.ID, Email: m.Email, Role: role}})
	return m, nil
}

// SetRole gives member memberID of a's project role, and records a change in
// the audit log; only owners may. A non-member is ErrNotFound, an unknown
// role an invalid fault, demoting the last owner ErrLastOwner.
func (s *Service) SetRole(ctx context.Context, a Actor, memberID string, role Role) error {
	m, before, err := s.changeMember(ctx, a, memberID, ChangeRole(role))
	if err != nil {
		return err
	}
	if before.Role != role {
		s.audit(ctx, a, AuditEntry{Action: ActionMemberRoleChanged, Member: AuditMember{ID: m.ID, Email: m.Email, Role: role}})
	}
	return nil
}

// RemoveMember takes member memberID out of a's project and records it in
// the audit log; only owners may. A non-member is ErrNotFound, the last
// owner ErrLastOwner.
func (s *Service) RemoveMember(ctx context.Context, a Actor, memberID string) error {
	m, before, err := s.changeMember(ctx, a, memberID, Removal)
	if err != nil {
		return err
	}
	s.audit(ctx, a, AuditEntry{Action: ActionMemberRemoved, Member: AuditMember{ID: m.ID, Email: m.Email, Role: before.Role}})
	return nil
}

// changeMember applies change to memberID's membership of a's project and
// returns the member with the membership as it was.
func (s *Service) changeMember(ctx context.Context, a Actor, memberID string, change MemberChange) (Owner, Membership, error) {
	if !a.Role.CanManage() {
		return Owner{}, Membership{}, ErrForbidden
	}
	m, err := s.store.OwnerByID(ctx, memberID)
	if err != nil {
		return Owner{}, Membership{}, err
	}
	before, err := s.store.ChangeMembership(ctx, a.Project.ID, memberID, change)
	if err != nil {
		return Owner{}, Membership{}, err
	}
	return m, before, nil
}
