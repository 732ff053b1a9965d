package storage_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger/ranking"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// TestRankingFollowsTheLedger runs two processes on one database: one ranks
// ranged leaderboards in memory while the other confirms entries, before,
// between and during its queries. Every page equals the row-by-row one, and
// the ranking, built once, only ever caught up.
func TestRankingFollowsTheLedger(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ranker, confirmer := twoProcesses(t, backend)
			ctx := ctxT(t)
			g := newLedgerGen(uint64(time.Now().UnixNano()))
			projectID, _ := g.projects(t, confirmer)
			g.record(t, confirmer, projectID, 80, recording{})
			storage.RankIn(ranker.Rankings, true)
			g.checkPlanned(t, ranker, projectID, "first ranking", true)

			g.record(t, confirmer, projectID, 40, recording{})
			g.checkPlanned(t, ranker, projectID, "confirmed by the other process", true)

			// Queries while the other process confirms: no error, whatever
			// they see.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				g.record(t, confirmer, projectID, 30, recording{})
			}()
			from := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
			for range 50 {
				if _, err := ranker.Leaderboard(ctx, projectID, ledger.Filter{Start: &from, Limit: 5}); err != nil {
					t.Error(err)
				}
			}
			wg.Wait()
			g.checkPlanned(t, ranker, projectID, "confirmed during queries", true)
			if n := storage.RankingBuilds(ranker.Rankings); n != 1 {
				t.Errorf("built the ranking %d times, want once", n)
			}
		})
	}
}

// twoProcesses opens two migrated stores on one new database, as two
// processes of the service would.
func twoProcesses(t *testing.T, backend string) (a, b *storagetest.Store) {
	t.Helper()
	url, dir := "", ""
	if backend == "postgres" {
		url = storagetest.NewPostgresDatabase(t)
	} else {
		dir = t.TempDir()
	}
	open := func() *storagetest.Store {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, err := storage.Open(ctx, url, dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return storagetest.Rooms(s, storagetest.Options{})
	}
	return open(), open()
}

// TestRankingLimit: a project whose rows would take the in-memory rankings
// over their limit is ranked in SQL, with the same answers.
func TestRankingLimit(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		g := newLedgerGen(uint64(time.Now().UnixNano()))
		projectID, otherID := g.projects(t, s)
		g.record(t, s, projectID, 60, recording{})
		g.record(t, s, otherID, 60, recording{})
		st, err := s.Stats(ctxT(t), otherID)
		if err != nil {
			t.Fatal(err)
		}
		limited := func(rows int) {
			s.Rankings = storage.NewRankings(s.DB, storage.RankingsOptions{Budget: &storage.RankingBudget{Bytes: ranking.DefaultMaxBytes, Rows: rows}})
			storage.RankIn(s.Rankings, true)
		}
		limited(int(st.TotalTransactionCount)) // the other project's rows, exactly
		g.checkPlanned(t, s, otherID, "up to the limit", true)
		served := storage.RankedInMemory(s.Rankings)
		if served == 0 {
			t.Fatal("a project within the limit was not ranked in memory")
		}
		g.checkPlanned(t, s, projectID, "over the limit", true)
		if storage.RankedInMemory(s.Rankings) != served {
			t.Error("a project over the limit was ranked in memory")
		}
		limited(0)
		g.checkPlanned(t, s, otherID, "no rankings", true)
		if storage.RankedInMemory(s.Rankings) != 0 {
			t.Error("ranked in memory with a limit of 0")
		}
	})
}
