package storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

type ownerRow struct {
	bun.BaseModel `bun:"table:console_owners"`

	ID           string    `bun:"id,pk"`
	Email        string    `bun:"email,notnull"`
	PasswordHash string    `bun:"password_hash,notnull"`
	CreatedAt    time.Time `bun:"created_at,notnull"`
}

func (r *ownerRow) owner() owner.Owner {
	return owner.Owner{ID: r.ID, Email: r.Email, PasswordHash: r.PasswordHash, CreatedAt: r.CreatedAt.UTC()}
}

type membershipRow struct {
	bun.BaseModel `bun:"table:console_memberships"`

	ProjectID string    `bun:"project_id,pk"`
	OwnerID   string    `bun:"owner_id,pk"`
	Role      string    `bun:"role,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

func (r *membershipRow) membership() owner.Membership {
	return owner.Membership{ProjectID: r.ProjectID, OwnerID: r.OwnerID, Role: owner.Role(r.Role), CreatedAt: r.CreatedAt.UTC()}
}

// CreateOwner stores o with its email lowercased, a new "own_" ID when o.ID
// is empty and CreatedAt set to now when zero. A taken email gives
// owner.ErrConflict.
func (s *Console) CreateOwner(ctx context.Context, o owner.Owner) (owner.Owner, error) {
	row := ownerRow{ID: o.ID, Email: owner.NormalizeEmail(o.Email), PasswordHash: o.PasswordHash, CreatedAt: utc(o.CreatedAt)}
	if row.ID == "" {
		row.ID = NewID("own")
	}
	if o.CreatedAt.IsZero() {
		row.CreatedAt = now()
	}
	if row.Email == "" || row.PasswordHash == "" {
		return owner.Owner{}, errors.New("create owner: empty email or password hash")
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		if isUniqueViolation(err) {
			return owner.Owner{}, fmt.Errorf("create owner %s: %w", row.Email, owner.ErrConflict)
		}
		return owner.Owner{}, fmt.Errorf("create owner: %w", err)
	}
	return row.owner(), nil
}

// OwnerByEmail returns the owner with email (compared lowercased), or
// owner.ErrNotFound.
func (s *Console) OwnerByEmail(ctx context.Context, email string) (owner.Owner, error) {
	var row ownerRow
	err := s.db.NewSelect().Model(&row).Where("email = ?", owner.NormalizeEmail(email)).Scan(ctx)
	if err != nil {
		return owner.Owner{}, notFound(err, owner.ErrNotFound, "owner by email")
	}
	return row.owner(), nil
}

// OwnerByID returns the owner with id, or owner.ErrNotFound.
func (s *Console) OwnerByID(ctx context.Context, id string) (owner.Owner, error) {
	var row ownerRow
	err := s.db.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if err != nil {
		return owner.Owner{}, notFound(err, owner.ErrNotFound, "owner %s", id)
	}
	return row.owner(), nil
}

// CreateOwnedProject stores p (as CreateProject does) and makes ownerID its
// owner, in one transaction.
func (s *Console) CreateOwnedProject(ctx context.Context, p project.Project, ownerID string) (project.Project, error) {
	row := projectRow{ID: p.ID, Name: p.Name, DonationWallet: p.DonationWallet, CreatedAt: utc(p.CreatedAt)}
	if row.ID == "" {
		row.ID = NewID("prj")
	}
	if p.CreatedAt.IsZero() {
		row.CreatedAt = now()
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return err
		}
		m := membershipRow{ProjectID: row.ID, OwnerID: ownerID, Role: string(owner.RoleOwner), CreatedAt: row.CreatedAt}
		_, err := tx.NewInsert().Model(&m).Exec(ctx)
		return err
	})
	if err != nil {
		if isUniqueViolation(err) {
			return project.Project{}, fmt.Errorf("create project %s: %w", row.ID, project.ErrConflict)
		}
		return project.Project{}, fmt.Errorf("create project: %w", err)
	}
	return row.project(), nil
}

// AddMember gives ownerID role in projectID. An existing membership gives
// owner.ErrConflict; an unknown project or owner gives owner.ErrNotFound.
func (s *Console) AddMember(ctx context.Context, projectID, ownerID string, role owner.Role) error {
	if !owner.ValidRole(role) {
		return fmt.Errorf("add member: unknown role %q", role)
	}
	if _, err := s.getProject(ctx, projectID); err != nil {
		return fmt.Errorf("add member: %w", owner.ErrNotFound)
	}
	if _, err := s.OwnerByID(ctx, ownerID); err != nil {
		return fmt.Errorf("add member: %w", err)
	}
	m := membershipRow{ProjectID: projectID, OwnerID: ownerID, Role: string(role), CreatedAt: now()}
	if _, err := s.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("add member: %w", owner.ErrConflict)
		}
		return fmt.Errorf("add member: %w", err)
	}
	return nil
}

// Membership returns ownerID's role in projectID, or owner.ErrNotFound when
// the owner is not a member (or the project does not exist): the console
// cannot tell the two apart, so a tenant learns nothing of other projects.
func (s *Console) Membership(ctx context.Context, projectID, ownerID string) (owner.Membership, error) {
	var row membershipRow
	err := s.db.NewSelect().Model(&row).Where("project_id = ?", projectID).Where("owner_id = ?", ownerID).Scan(ctx)
	if err != nil {
		return owner.Membership{}, notFound(err, owner.ErrNotFound, "membership of %s in %s", ownerID, projectID)
	}
	return row.membership(), nil
}

// ProjectsOf returns the projects ownerID belongs to, by name.
func (s *Console) ProjectsOf(ctx context.Context, ownerID string) ([]owner.ProjectRole, error) {
	var rows []struct {
		projectRow `bun:",extend"`
		Role       string `bun:"role"`
	}
	err := s.db.NewSelect().
		TableExpr("projects AS p").
		ColumnExpr("p.id, p.name, p.donation_wallet, p.created_at, m.role").
		Join("JOIN console_memberships AS m ON m.project_id = p.id").
		Where("m.owner_id = ?", ownerID).
		OrderExpr("p.name ASC, p.id ASC").
		Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("projects of %s: %w", ownerID, err)
	}
	out := make([]owner.ProjectRole, len(rows))
	for i := range rows {
		out[i] = owner.ProjectRole{Project: rows[i].project(), Role: owner.Role(rows[i].Role)}
	}
	return out, nil
}

// UpdateProject sets the name and donation wallet of project id, or gives
// project.ErrNotFound.
func (s *Projects) UpdateProject(ctx context.Context, id, name, donationWallet string) (project.Project, error) {
	res, err := s.db.NewUpdate().Model((*projectRow)(nil)).
		Set("name = ?", name).
		Set("donation_wallet = ?", donationWallet).
		Where("id = ?", id).
		Exec(ctx)
	if err != nil {
		return project.Project{}, fmt.Errorf("update project %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return project.Project{}, fmt.Errorf("update project %s: %w", id, project.ErrNotFound)
	}
	return s.GetProject(ctx, id)
}
