package storage_test

import (
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// A line of the submission log keeps how many tickets it stands for, and
// PruneAttempts deletes the lines older than a time, oldest first, at most
// limit at a time, of every project.
func TestPruneAttempts(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		var ids []string
		for _, name := range []string{"a", "b"} {
			p, err := s.CreateProject(ctx, project.Project{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		cutoff := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
		for i := range 7 {
			at := cutoff.Add(time.Duration(i-5) * time.Hour) // five before the cutoff, one at it, one after
			a := ledger.Attempt{ProjectID: ids[i%2], Payer: "P", Status: "failed", Code: "INVALID_TICKET", Message: "m", Tickets: i, CreatedAt: at}
			if err := s.LogAttempt(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		lines := func() []storage.AttemptLine {
			t.Helper()
			got, err := storage.Attempts(ctx, s.DB)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if got := lines(); len(got) != 7 || got[0].Tickets != 1 || got[6].Tickets != 6 {
			t.Fatalf("lines %+v: want 7, tickets 1 (for 0) to 6", got)
		}
		for _, want := range []struct{ deleted, left int }{{2, 5}, {2, 3}, {1, 2}, {0, 2}} {
			n, err := s.PruneAttempts(ctx, cutoff, 2)
			if err != nil || n != want.deleted {
				t.Fatalf("pruned %d (%v), want %d", n, err, want.deleted)
			}
			got := lines()
			if len(got) != want.left || !got[0].CreatedAt.Equal(cutoff.Add(time.Duration(2-want.left)*time.Hour)) {
				t.Fatalf("after pruning: %+v, want the %d newest", got, want.left)
			}
		}
	})
}
