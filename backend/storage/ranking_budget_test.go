package storage_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger/ranking/rankingtest"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// rankingBudget is TestRankingBudget's RECLAIM_RANKING_MAX_BYTES. A
// throwaway wallet takes about 95 bytes in a ranking (120 before issue 19,
// which counted only rows, at "about 20 bytes each"): its 12,000 take
// 1.1 MB (1.4 MB), over twice the budget.
const (
	rankingBudget = 512 << 10
	throwaways    = 12_000
)

// TestRankingBudget is the attack of issue 19: a tenant adds cheap
// throwaway wallets, one row each, to its own project, whose ranking every
// instance builds. Under a budget of 2 MiB, neither a ranking built with
// them nor one they join later takes the store's heap past the budget:
// the project is ranked in SQL, with the same answers, and a project that
// fits is still ranked in memory. Not parallel: the heap is the process's.
func TestRankingBudget(t *testing.T) {
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		// Seeding 26,000 rows and ranking them in SQL take seconds alone,
		// and much longer on a server busy with other tests.
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		s.Rankings = storage.NewRankings(s.DB, storage.RankingsOptions{Budget: &storage.RankingBudget{Bytes: rankingBudget, Rows: -1}})
		storage.RankInline(s.Rankings)
		var ids []string
		for _, name := range []string{"fits", "attacker"} {
			p, err := s.CreateProject(ctx, project.Project{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		fits, attacker := ids[0], ids[1]
		seq := 0
		rows := func(projectID string, n, wallets int) []ledger.Entry {
			es := make([]ledger.Entry, n)
			for i := range es {
				seq++
				at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seq) * time.Minute)
				es[i] = ledger.Entry{
					ID: fmt.Sprintf("tx_%d", seq), ProjectID: projectID, Payer: fmt.Sprintf("%044d", seq%wallets), Type: ledger.TypeTokenAccountClosure,
					GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5000, Fees: 5000, ItemCount: 1,
					Signature: fmt.Sprintf("sig-%d", seq), TicketJTI: fmt.Sprintf("jti-%d", seq),
					Status: ledger.StatusConfirmed, CreatedAt: at, ConfirmedAt: &at,
				}
				if wallets == n {
					es[i].Payer = fmt.Sprintf("throwaway%035d", seq)
				}
			}
			return es
		}
		// board checks a page of a range that starts amid the project's
		// rows (a range that holds all of them is read from the totals of
		// all time, without a ranking).
		board := func(projectID string, from time.Time) {
			t.Helper()
			f := ledger.Filter{Start: &from, Limit: 10, Offset: 3}
			got, err := s.Leaderboard(ctx, projectID, f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := storage.LeaderboardFromRows(ctx, s.Rankings, projectID, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("leaderboard of %s: %v, rows give %v", projectID, got, want)
			}
		}
		check := func(stage string, grew int64) {
			t.Helper()
			held, _ := storage.RankingHeld(s.Rankings)
			t.Logf("%s: rankings hold %d bytes, the heap grew by %d (budget %d)", stage, held, grew, rankingBudget)
			if held > rankingBudget || grew > rankingBudget {
				t.Fatalf("%s: rankings hold %d bytes, the heap grew by %d: over the budget of %d", stage, held, grew, rankingBudget)
			}
		}

		// A project of 2,000 rows of 20 wallets fits, and is ranked in
		// memory.
		// record records rows and returns a time amid them; the rows are
		// garbage by the time the heap is measured.
		record := func(es []ledger.Entry) time.Time {
			t.Helper()
			start := time.Now()
			if err := storage.InsertCounted(ctx, s.DB, es); err != nil {
				t.Fatal(err)
			}
			t.Logf("recorded %d rows in %v", len(es), time.Since(start))
			return *es[len(es)/2].ConfirmedAt
		}
		legit := record(rows(fits, 2_000, 20))
		served := storage.RankedInMemory(s.Rankings)
		board(fits, legit)
		if storage.RankedInMemory(s.Rankings) == served {
			t.Fatal("a project within the budget was not ranked in memory")
		}

		// Built with its throwaway wallets: ranked in SQL.
		junk := record(rows(attacker, throwaways, throwaways))
		served, builds := storage.RankedInMemory(s.Rankings), storage.RankingBuilds(s.Rankings)
		check("built with throwaway wallets", rankingtest.HeapGrowth(func() { board(attacker, junk) }))
		if storage.RankingBuilds(s.Rankings) != builds+1 {
			t.Fatal("no ranking of the project of throwaway wallets was tried")
		}
		if storage.RankedInMemory(s.Rankings) != served {
			t.Error("the project of throwaway wallets was ranked in memory")
		}

		// Joined later by throwaway wallets: the ranking that fit is let go.
		record(rows(fits, throwaways, throwaways))
		served = storage.RankedInMemory(s.Rankings)
		check("joined by throwaway wallets", rankingtest.HeapGrowth(func() { board(fits, legit) }))
		if storage.RankedInMemory(s.Rankings) != served {
			t.Error("the project joined by throwaway wallets was ranked in memory")
		}
	})
}
