package storage_test

import (
	"errors"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// A project's own quota is set, replaced, listed and cleared; an unknown
// project has none, and a deleted one takes its quota with it.
func TestQuotas(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		createProjects(t, s, "prj_a", "prj_b")
		if _, err := s.Quota(ctx, "prj_a"); !errors.Is(err, project.ErrNotFound) {
			t.Fatalf("a project without a quota: %v, want ErrNotFound", err)
		}
		if err := s.SetQuota(ctx, project.Quota{ProjectID: "prj_nope", RPS: 1, Burst: 1}); !errors.Is(err, project.ErrNotFound) {
			t.Fatalf("an unknown project: %v, want ErrNotFound", err)
		}
		at := t0.Truncate(time.Microsecond)
		for _, q := range []project.Quota{
			{ProjectID: "prj_a", RPS: 100, Burst: 200, UpdatedAt: at},
			{ProjectID: "prj_a", RPS: 500, Burst: 1500, UpdatedAt: at.Add(time.Minute)}, // replaces
			{ProjectID: "prj_b", RPS: 7, Burst: 9, UpdatedAt: at},
		} {
			if err := s.SetQuota(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		want := []project.Quota{
			{ProjectID: "prj_a", RPS: 500, Burst: 1500, UpdatedAt: at.Add(time.Minute)},
			{ProjectID: "prj_b", RPS: 7, Burst: 9, UpdatedAt: at},
		}
		got, err := s.Quotas(ctx)
		if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("Quotas = %+v, %v; want %+v", got, err, want)
		}
		if q, err := s.Quota(ctx, "prj_b"); err != nil || q != want[1] {
			t.Fatalf("Quota(prj_b) = %+v, %v", q, err)
		}
		if err := s.ClearQuota(ctx, "prj_a"); err != nil {
			t.Fatal(err)
		}
		if err := s.ClearQuota(ctx, "prj_a"); !errors.Is(err, project.ErrNotFound) {
			t.Fatalf("clearing twice: %v, want ErrNotFound", err)
		}
		if got, err := s.Quotas(ctx); err != nil || len(got) != 1 || got[0] != want[1] {
			t.Fatalf("after clearing prj_a: %+v, %v", got, err)
		}
	})
}

// The refusals' hourly counts add up across flushes (as instances add
// theirs), sum over a window, and forget the hours past keeping; one
// project's are its own.
func TestRefusals(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		createProjects(t, s, "prj_a", "prj_b")
		h := t0.Truncate(time.Hour)
		keep := h.Add(-48 * time.Hour)
		add := func(counts ...project.Refusals) {
			t.Helper()
			if err := s.AddRefusals(ctx, counts, keep); err != nil {
				t.Fatal(err)
			}
		}
		add(project.Refusals{ProjectID: "prj_a", Hour: h, Count: 5}, project.Refusals{ProjectID: "prj_a", Hour: h.Add(-30 * time.Hour), Count: 100},
			project.Refusals{ProjectID: "prj_b", Hour: h, Count: 1})
		add(project.Refusals{ProjectID: "prj_a", Hour: h, Count: 7}, project.Refusals{ProjectID: "prj_a", Hour: h.Add(-time.Hour), Count: 3})
		if n, err := s.RefusalsSince(ctx, "prj_a", h.Add(-23*time.Hour)); err != nil || n != 15 {
			t.Fatalf("prj_a's last 24 hours: %d, %v; want 15", n, err)
		}
		if n, err := s.RefusalsSince(ctx, "prj_a", h.Add(-47*time.Hour)); err != nil || n != 115 {
			t.Fatalf("prj_a's last 48 hours: %d, %v; want 115", n, err)
		}
		keep = h.Add(-24 * time.Hour)
		add(project.Refusals{ProjectID: "prj_b", Hour: h, Count: 1})
		if n, err := s.RefusalsSince(ctx, "prj_a", h.Add(-47*time.Hour)); err != nil || n != 15 {
			t.Fatalf("after pruning: %d, %v; want 15", n, err)
		}
		if n, err := s.RefusalsSince(ctx, "prj_b", h.Add(-23*time.Hour)); err != nil || n != 2 {
			t.Fatalf("prj_b: %d, %v; want 2", n, err)
		}
	})
}

// createProjects stores a project of each id.
func createProjects(t *testing.T, s *storagetest.Store, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, err := s.CreateProject(ctxT(t), project.Project{ID: id, Name: id}); err != nil {
			t.Fatal(err)
		}
	}
}
