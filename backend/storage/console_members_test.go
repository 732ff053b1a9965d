package storage_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

func TestMembers(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		mk := func(email string) owner.Owner {
			o, err := s.CreateOwner(ctx, owner.Owner{Email: email, PasswordHash: "h"})
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
		alice, bob, carol := mk("alice@example.com"), mk("bob@example.com"), mk("carol@example.com")
		p, err := s.CreateOwnedProject(ctx, project.Project{Name: "Acme"}, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.CreateOwnedProject(ctx, project.Project{Name: "Other"}, carol.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddMember(ctx, p.ID, carol.ID, owner.RoleViewer); err != nil {
			t.Fatal(err)
		}
		if err := s.AddMember(ctx, p.ID, bob.ID, owner.RoleViewer); err != nil {
			t.Fatal(err)
		}
		emails := func() []string {
			t.Helper()
			ms, err := s.ListMembers(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, m := range ms {
				if m.Since.IsZero() || m.OwnerID == "" {
					t.Errorf("member %+v lacks its id or date", m)
				}
				out = append(out, m.Email+":"+string(m.Role))
			}
			return out
		}
		if got := emails(); !slices.Equal(got, []string{"alice@example.com:owner", "bob@example.com:viewer", "carol@example.com:viewer"}) {
			t.Errorf("members = %v, want owners first, then by email", got)
		}

		// The last owner can be neither demoted nor removed.
		if _, err := s.ChangeMembership(ctx, p.ID, alice.ID, owner.ChangeRole(owner.RoleViewer)); !errors.Is(err, owner.ErrLastOwner) {
			t.Errorf("demote the last owner: err = %v, want ErrLastOwner", err)
		}
		if _, err := s.ChangeMembership(ctx, p.ID, alice.ID, owner.Removal); !errors.Is(err, owner.ErrLastOwner) {
			t.Errorf("remove the last owner: err = %v, want ErrLastOwner", err)
		}
		// Keeping the role of the last owner is no demotion.
		if before, err := s.ChangeMembership(ctx, p.ID, alice.ID, owner.ChangeRole(owner.RoleOwner)); err != nil || before.Role != owner.RoleOwner {
			t.Errorf("alice owner again: %+v, %v", before, err)
		}
		before, err := s.ChangeMembership(ctx, p.ID, bob.ID, owner.ChangeRole(owner.RoleOwner))
		if err != nil || before.Role != owner.RoleViewer {
			t.Fatalf("promote bob: %+v, %v", before, err)
		}
		// With two owners, one may go.
		if before, err := s.ChangeMembership(ctx, p.ID, alice.ID, owner.ChangeRole(owner.RoleViewer)); err != nil || before.Role != owner.RoleOwner {
			t.Fatalf("demote alice beside bob: %+v, %v", before, err)
		}
		if _, err := s.ChangeMembership(ctx, p.ID, bob.ID, owner.Removal); !errors.Is(err, owner.ErrLastOwner) {
			t.Errorf("remove bob, now the last owner: err = %v, want ErrLastOwner", err)
		}
		if before, err := s.ChangeMembership(ctx, p.ID, carol.ID, owner.Removal); err != nil || before.Role != owner.RoleViewer {
			t.Errorf("remove carol: %+v, %v", before, err)
		}
		if got := emails(); !slices.Equal(got, []string{"bob@example.com:owner", "alice@example.com:viewer"}) {
			t.Errorf("members = %v", got)
		}
		if _, err := s.Membership(ctx, other.ID, carol.ID); err != nil {
			t.Errorf("carol lost her own project: %v", err)
		}

		// Non-members, unknown projects and roles.
		if _, err := s.ChangeMembership(ctx, p.ID, carol.ID, owner.Removal); !errors.Is(err, owner.ErrNotFound) {
			t.Errorf("remove a non-member: err = %v, want ErrNotFound", err)
		}
		if _, err := s.ChangeMembership(ctx, p.ID, carol.ID, owner.ChangeRole(owner.RoleOwner)); !errors.Is(err, owner.ErrNotFound) {
			t.Errorf("set the role of a non-member: err = %v, want ErrNotFound", err)
		}
		if _, err := s.ChangeMembership(ctx, "prj_nope", alice.ID, owner.ChangeRole(owner.RoleOwner)); !errors.Is(err, owner.ErrNotFound) {
			t.Errorf("unknown project: err = %v, want ErrNotFound", err)
		}
		if _, err := s.ChangeMembership(ctx, p.ID, alice.ID, owner.ChangeRole("admin")); err == nil {
			t.Error("unknown role accepted")
		}
		if ms, err := s.ListMembers(ctx, "prj_nope"); err != nil || len(ms) != 0 {
			t.Errorf("members of an unknown project: %v, %v", ms, err)
		}
	})
}

// Two owners demoting (or removing) each other at once leave one owner, never
// none: the last-owner rule holds under concurrency.
func TestLastOwnerRuleIsAtomic(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		for round := range 10 {
			a, err := s.CreateOwner(ctx, owner.Owner{Email: "a" + string(rune('0'+round)) + "@example.com", PasswordHash: "h"})
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.CreateOwner(ctx, owner.Owner{Email: "b" + string(rune('0'+round)) + "@example.com", PasswordHash: "h"})
			if err != nil {
				t.Fatal(err)
			}
			p, err := s.CreateOwnedProject(ctx, project.Project{Name: "Race"}, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AddMember(ctx, p.ID, b.ID, owner.RoleOwner); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			wg.Go(func() { _, errs[0] = s.ChangeMembership(ctx, p.ID, a.ID, owner.ChangeRole(owner.RoleViewer)) })
			wg.Go(func() { _, errs[1] = s.ChangeMembership(ctx, p.ID, b.ID, owner.Removal) })
			wg.Wait()
			ms, err := s.ListMembers(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			owners := 0
			for _, m := range ms {
				if m.Role == owner.RoleOwner {
					owners++
				}
			}
			refused := 0
			for _, err := range errs {
				if errors.Is(err, owner.ErrLastOwner) {
					refused++
				} else if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			if owners != 1 || refused != 1 {
				t.Fatalf("round %d: %d owners left, %d changes refused; want 1 and 1", round, owners, refused)
			}
		}
	})
}

func TestAuditLogActions(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
		for i, a := range []owner.Action{"api_key.created", "member.added", "api_key.revoked", "member.removed"} {
			if err := s.AddAudit(ctx, owner.AuditEntry{ProjectID: p.ID, OwnerEmail: "a@example.com", Action: a, Key: owner.AuditKey{ID: "x"}, CreatedAt: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.AuditLogActions(ctx, p.ID, []owner.Action{"member.added", "member.removed"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Action != "member.removed" || got[1].Action != "member.added" {
			t.Errorf("member entries = %+v, want removed then added", got)
		}
		if got, _ := s.AuditLogActions(ctx, p.ID, []owner.Action{"api_key.created", "api_key.revoked"}, 1); len(got) != 1 || got[0].Action != "api_key.revoked" {
			t.Errorf("latest key entry = %+v", got)
		}
	})
}
