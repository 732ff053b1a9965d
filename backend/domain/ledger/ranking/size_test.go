package ranking

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger/ranking/rankingtest"
)

// rankingRows sizes TestRankingMemory's rankings; the figures of
// docs/decisions.md ("ranking memory") are those of
//
//	go test ./backend/domain/ledger/ranking -run TestRankingMemory -v -ranking.rows 1000000 -ranking.wallets 50000
var (
	rankingRows    = flag.Int("ranking.rows", 200_000, "rows of TestRankingMemory's rankings")
	rankingWallets = flag.Int("ranking.wallets", 0, "wallets of TestRankingMemory's ranking of few wallets (0: a 200th of its rows)")
)

// rankingTolerance is how far what a ranking counts may be from the heap it
// takes, measured: a twentieth.
const rankingTolerance = 0.05

// TestRankingMemory builds rankings of both shapes of ledger, many rows of
// few wallets and one wallet per row, and checks that what each counts
// (ranking.bytes, what the budget holds for it) is within rankingTolerance
// of the heap it takes (runtime.MemStats, after a collection), built and
// then after rows of new wallets were merged in. Not parallel: the heap is
// the process's.
func TestRankingMemory(t *testing.T) {
	n, few := *rankingRows, *rankingWallets
	if few == 0 {
		few = max(1, n/200)
	}
	for _, shape := range []struct {
		name    string
		wallets int
	}{
		{"many rows of few wallets", few},
		{"one wallet per row", n},
	} {
		t.Run(shape.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 2))
			next := 0 // wallets get their addresses in order of first row
			add := func(r *ranking, rows, wallets int) {
				for i := range rows {
					payer := fmt.Sprintf("%044d", next+i%wallets) // a new string each row, as read from the database
					if err := r.add(payer, ledger.Types[rnd.IntN(3)], rnd.Int64N(1<<40), 2039280+rnd.Int64N(1000)); err != nil {
						t.Fatal(err)
					}
				}
				next += wallets
			}
			var r *ranking
			measure := func(stage string, f func()) {
				measured := float64(rankingtest.HeapGrowth(f))
				if stage != "built" {
					measured += float64(r.charged) // what it held before
				}
				r.mu.Lock()
				r.charged = r.bytes()
				r.mu.Unlock()
				counted := float64(r.charged)
				rows := float64(r.count)
				t.Logf("%s, %d rows of %d wallets, %d checkpoints: counts %.1f bytes a row, the heap grew by %.1f",
					stage, r.count, len(r.payers), len(r.base.gross), counted/rows, measured/rows)
				if math.Abs(counted-measured) > rankingTolerance*measured {
					t.Errorf("%s: counts %.0f bytes, takes %.0f: more than %.0f%% apart", stage, counted, measured, 100*rankingTolerance)
				}
			}
			measure("built", func() {
				r = newRanking()
				add(r, n, shape.wallets)
				r.finish()
			})
			measure("merged with a tenth more rows of new wallets", func() {
				add(r, n/10, max(1, shape.wallets/10))
				r.merge()
			})
			runtime.KeepAlive(r)
		})
	}
}
