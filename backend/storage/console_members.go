package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// ListMembers returns the members of projectID, owners first, then by email.
func (s *Console) ListMembers(ctx context.Context, projectID string) ([]owner.Member, error) {
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

// ChangeMembership applies change to ownerID's membership of projectID and
// returns the membership as it was. It runs in one transaction that holds the
// project's membership lock: on Postgres a row lock on the project, on SQLite
// the write lock every transaction takes at BEGIN (_txlock=immediate). So
// change sees the project's owners as they are when it applies, and two
// owners demoting each other at once cannot leave the project ownerless.
// change returns the new role, or "" to remove the member; its error is
// returned and nothing changes. A non-member (or an unknown project) gives
// owner.ErrNotFound.
func (s *Console) ChangeMembership(ctx context.Context, projectID, ownerID string, change owner.MemberChange) (owner.Membership, error) {
	var before owner.Membership
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
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
		before = row.membership()
		owners, err := tx.NewSelect().Model((*membershipRow)(nil)).
			Where("project_id = ?", projectID).Where("role = ?", string(owner.RoleOwner)).Count(ctx)
		if err != nil {
			return fmt.Errorf("count owners: %w", err)
		}
		role, err := change(before, owners)
		switch {
		case err != nil:
			return err
		case role == "":
			_, err = tx.NewDelete().Model((*membershipRow)(nil)).
				Where("project_id = ?", projectID).Where("owner_id = ?", ownerID).Exec(ctx)
		case !owner.ValidRole(role):
			return fmt.Errorf("unknown role %q", role)
		case role != before.Role:
			_, err = tx.NewUpdate().Model((*membershipRow)(nil)).Set("role = ?", string(role)).
				Where("project_id = ?", projectID).Where("owner_id = ?", ownerID).Exec(ctx)
		}
		return err
	})
	if err != nil {
		return owner.Membership{}, fmt.Errorf("change membership of %s in %s: %w", ownerID, projectID, err)
	}
	return before, nil
}
