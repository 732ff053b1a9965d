package storage_test

import (
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// With a StatsTTL, a project's stats are read from the database once per
// time to live; a confirmation this store commits shows at once, one
// written elsewhere (another instance) within the time to live.
func TestStatsCache(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		clock := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
		s.Rankings = storage.NewRankings(s.DB, storage.RankingsOptions{StatsTTL: time.Second, Now: clock.Now})
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		count := func(want int64, why string) {
			t.Helper()
			st, err := s.Stats(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if st.TotalTransactionCount != want {
				t.Fatalf("%s: %d transactions, want %d", why, st.TotalTransactionCount, want)
			}
		}
		count(0, "no rows")
		// The relay's path: claimed, then confirmed by the tracker.
		if err := s.ClaimTicket(ctx, claimEntry(p.ID, "cache-1")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MarkSubmitted(ctx, "cache-1"); err != nil {
			t.Fatal(err)
		}
		count(0, "in flight")
		landed := ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5000}
		if changed, err := s.ConfirmEntry(ctx, "cache-1", landed, 7, clock.Now()); err != nil || !changed {
			t.Fatalf("confirm: %v %v", changed, err)
		}
		count(1, "a confirmation of this store, at once")

		// Another instance confirms: this one answers from memory until the
		// time to live has passed.
		if err := storage.AddToProjectTotals(ctx, s.DB, p.ID, 100); err != nil {
			t.Fatal(err)
		}
		count(1, "kept")
		clock.Advance(999 * time.Millisecond)
		count(1, "kept, within the time to live")
		clock.Advance(time.Millisecond)
		count(101, "read again once the time to live passed")

		e := claimEntry(p.ID, "cache-2")
		e.Status, e.ConfirmedAt = ledger.StatusConfirmed, new(clock.Now())
		if err := s.InsertEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
		count(102, "an entry inserted confirmed, at once")
	})
}

// BenchmarkStatsCached is GET /v1/stats's read when its project's stats
// are kept, from parallel callers, as serve's Rankings answers it:
//
//	go test -run '^$' -bench StatsCached -benchmem ./backend/storage/
func BenchmarkStatsCached(b *testing.B) {
	s := storagetest.SQLite(b)
	s.Rankings = storage.NewRankings(s.DB, storage.RankingsOptions{StatsTTL: time.Hour})
	p, err := s.CreateProject(b.Context(), project.Project{Name: "p"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Stats(b.Context(), p.ID); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Stats(b.Context(), p.ID); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
