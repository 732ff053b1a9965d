package storage_test

import (
	"errors"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// A project's own quota is set, replaced, listed and cleared; an unknown
// project has none, and a deleted one takes its quota with it.
func TestQuotas(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storage.Store) {
		t.Parallel()
		ctx := ctxT(t)
		for _, id := range []string{"prj_a", "prj_b"} {
			if _, err := s.CreateProject(ctx, project.Project{ID: id, Name: id}); err != nil {
				t.Fatal(err)
			}
		}
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
