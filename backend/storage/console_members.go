package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/owner"
)

// ListMembers returns the members of projectID, owners first, then by email.
func (s *Store) ListMembers(ctx context.Context, projectID string) ([]owner.Member, error) {
	var rows []struct {
		OwnerID   string    `bun:"owner_id"`
		Email     string    `bun:"email"`
		Role      string    `bun:"role"`
		CreatedAt time.Time `bun:"created_at"`
	}
	err := s.db.NewSelect().
		TableExpr("console_memberships AS m").
		ColumnExpr("m.owner_id, o.email, m.role, m.created_at").
		Join("JOIN console_owners AS o ON o.id = m.owner_id").
		Where("m.project_id = ?", projectID).
		OrderExpr("CASE WHEN m.role = ? THEN 0 ELSE 1 END, o.email ASC", string(owner.RoleOwner)).
		Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("members of %s: %w", projectID, err)
	}
	out := make([]owner.Member, len(rows))
	for i, r := range rows {
		out[i] = owner.Member{OwnerID: r.OwnerID, Email: r.Email, Role: owner.Role(r.Role), Since: r.CreatedAt.UTC()}
	}
	return out, nil
}

// SetMemberRole gives ownerID role in projectID and returns the membership as
// it was before. A non-member gives owner.ErrNotFound; demoting the project's
// last owner gives owner.ErrLastOwner and changes nothing.
func (s *Store) SetMemberRole(ctx context.Context, projectID, ownerID string, role owner.Role) (owner.Membership, error) {
	if !owner.ValidRole(role) {
		return owner.Membership{}, fmt.Errorf("set member role: unknown role %q", role)
	}
	var before owner.Membership
	err := s.changeMembership(ctx, projectID, ownerID, role != owner.RoleOwner, func(tx bun.Tx, m owner.Membership) error {
		before = m
		if m.Role == role {
			return nil
		}
		_, err := tx.NewUpdate().Model((*membershipRow)(nil)).Set("role = ?", string(role)).
			Where("project_id = ?", projectID).Where("owner_id = ?", ownerID).Exec(ctx)
		return err
	})
	if err != nil {
		return owner.Membership{}, fmt.Errorf("set role of %s in %s: %w", ownerID, projectID, err)
	}
	return before, nil
}

// RemoveMember takes ownerID out of projectID and returns the membership it
// had. A non-member gives owner.ErrNotFound; removing the project's last
// owner gives owner.ErrLastOwner and changes nothing.
func (s *Store) RemoveMember(ctx context.Context, projectID, ownerID string) (owner.Membership, error) {
	var before owner.Membership
	err := s.changeMembership(ctx, projectID, ownerID, true, func(tx bun.Tx, m owner.Membership) error {
		before = m
		_, err := tx.NewDelete().Model((*membershipRow)(nil)).
			Where("project_id = ?", projectID).Where("owner_id = ?", ownerID).Exec(ctx)
		return err
	})
	if err != nil {
		return owner.Membership{}, fmt.Errorf("remove %s from %s: %w", ownerID, projectID, err)
	}
	return before, nil
}

// changeMembership runs change on ownerID's membership of projectID in one
// transaction that holds the project's membership lock: on Postgres a row
// lock on the project, on SQLite the write lock every transaction takes at
// BEGIN (_txlock=immediate). When dropsOwner is set and the member is an
// owner, the project must keep another owner, or the change is refused with
// owner.ErrLastOwner. Two owners demoting each other at once therefore cannot
// leave the project ownerless.
func (s *Store) changeMembership(ctx context.Context, projectID, ownerID string, dropsOwner bool, change func(tx bun.Tx, m owner.Membership) error) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if s.postgres {
			var id string
			err := tx.NewSelect().Model((*projectRow)(nil)).Column("id").Where("id = ?", projectID).For("UPDATE").Scan(ctx, &id)
			if err != nil {
				return notFound(err, owner.ErrNotFound, "lock project")
			}
		}
		var row membershipRow
		err := tx.NewSelect().Model(&row).Where("project_id = ?", projectID).Where("owner_id = ?", ownerID).Scan(ctx)
		if err != nil {
			return notFound(err, owner.ErrNotFound, "membership")
		}
		m := owner.Membership{ProjectID: row.ProjectID, OwnerID: row.OwnerID, Role: owner.Role(row.Role), CreatedAt: row.CreatedAt.UTC()}
		if dropsOwner && m.Role == owner.RoleOwner {
			owners, err := tx.NewSelect().Model((*membershipRow)(nil)).
				Where("project_id = ?", projectID).Where("role = ?", string(owner.RoleOwner)).Count(ctx)
			if err != nil {
				return fmt.Errorf("count owners: %w", err)
			}
			if owners <= 1 {
				return owner.ErrLastOwner
			}
		}
		return change(tx, m)
	})
}
