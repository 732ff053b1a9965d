package storage_test

import (
	"errors"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

func TestOrigins(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		a, err := s.CreateProject(ctx, project.Project{ID: "prj_a", Name: "A"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.CreateProject(ctx, project.Project{ID: "prj_b", Name: "B"})
		if err != nil {
			t.Fatal(err)
		}
		add := func(p, origin string, at time.Time) error {
			return s.AddOrigin(ctx, project.Origin{ProjectID: p, Origin: origin, CreatedAt: at})
		}
		for i, o := range []struct{ p, origin string }{
			{a.ID, "https://app.example"}, {a.ID, "http://localhost:5173"}, {b.ID, "https://app.example"},
		} {
			if err := add(o.p, o.origin, t0.Add(time.Duration(i)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		if err := add(a.ID, "https://app.example", t0); !errors.Is(err, project.ErrConflict) {
			t.Errorf("the same origin twice: %v, want ErrConflict", err)
		}
		if err := add("prj_nope", "https://app.example", t0); !errors.Is(err, project.ErrNotFound) {
			t.Errorf("an unknown project: %v, want ErrNotFound", err)
		}
		got, err := s.ListOrigins(ctx, a.ID)
		want := []project.Origin{
			{ProjectID: a.ID, Origin: "https://app.example", CreatedAt: t0.Truncate(time.Microsecond)},
			{ProjectID: a.ID, Origin: "http://localhost:5173", CreatedAt: t0.Add(time.Minute).Truncate(time.Microsecond)},
		}
		if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("ListOrigins = %+v, %v; want %+v", got, err, want)
		}
		if err := s.RemoveOrigin(ctx, a.ID, "https://app.example"); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveOrigin(ctx, a.ID, "https://app.example"); !errors.Is(err, project.ErrNotFound) {
			t.Errorf("remove again: %v, want ErrNotFound", err)
		}
		all, err := s.AllOrigins(ctx)
		if err != nil || len(all) != 2 || all[0].Origin != "http://localhost:5173" || all[1].ProjectID != b.ID {
			t.Errorf("AllOrigins = %+v, %v", all, err)
		}
		// An origin entry of the audit log keeps its origin.
		e := owner.AuditEntry{ProjectID: a.ID, OwnerID: "own_a", OwnerEmail: "a@example.com", Action: owner.ActionOriginAdded, Origin: "https://app.example", CreatedAt: t0}
		if err := s.AddAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
		log, err := s.AuditLogActions(ctx, a.ID, owner.OriginActions, 10)
		if err != nil || len(log) != 1 || log[0].Origin != e.Origin || log[0].Action != e.Action {
			t.Errorf("AuditLogActions = %+v, %v", log, err)
		}
	})
}
