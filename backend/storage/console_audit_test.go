package storage_test

import (
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// A key entry keeps the key, a member entry the member, each in fields of
// its own; entries written before the member columns existed (the member in
// the key columns) read as member entries once migrated.
func TestAuditEntryFields(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
		key := owner.AuditKey{ID: "key_1", Prefix: "ak_live_AbCd", Name: "backend"}
		member := owner.AuditMember{ID: "own_b", Email: "b@example.com", Role: owner.RoleViewer}
		old := owner.AuditKey{ID: "own_c", Prefix: "owner", Name: "c@example.com"} // before migration 5
		written := []owner.AuditEntry{
			{Action: owner.ActionKeyCreated, Key: key},
			{Action: owner.ActionMemberAdded, Member: member},
			{Action: owner.ActionMemberRoleChanged, Key: old},
		}
		for i, e := range written {
			e.ProjectID, e.OwnerID, e.OwnerEmail, e.CreatedAt = p.ID, "own_a", "a@example.com", t0.Add(time.Duration(i)*time.Minute)
			if err := s.AddAudit(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		if err := storage.MoveMemberAudit(ctx, s.DB); err != nil {
			t.Fatal(err)
		}
		got, err := s.AuditLog(ctx, p.ID, 10)
		if err != nil || len(got) != 3 {
			t.Fatalf("AuditLog = %+v, %v", got, err)
		}
		want := []struct {
			action owner.Action
			key    owner.AuditKey
			member owner.AuditMember
		}{
			{owner.ActionMemberRoleChanged, owner.AuditKey{}, owner.AuditMember{ID: "own_c", Email: "c@example.com", Role: owner.RoleOwner}},
			{owner.ActionMemberAdded, owner.AuditKey{}, member},
			{owner.ActionKeyCreated, key, owner.AuditMember{}},
		}
		for i, w := range want {
			e := got[i]
			if e.Action != w.action || e.Key != w.key || e.Member != w.member || e.OwnerID != "own_a" || e.OwnerEmail != "a@example.com" {
				t.Errorf("entry %d = %+v, want %s with key %+v and member %+v", i, e, w.action, w.key, w.member)
			}
		}
	})
}
