package ranking

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// The in-memory ranking alone, on the benchmark ledgers' shape: 50,000
// wallets, 20 or 200 rows each over 2025 (1M or 10M rows), every wallet
// active in most months.
//
//	go test ./backend/domain/ledger/ranking -run '^$' -bench RankingPage -benchtime 50x
func BenchmarkRankingPage1M(b *testing.B)  { benchRankingPage(b, 20) }
func BenchmarkRankingPage10M(b *testing.B) { benchRankingPage(b, 200) }

func benchRankingPage(b *testing.B, perWallet int) {
	const wallets = 50_000
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := newRanking()
	rnd := rand.New(rand.NewPCG(1, 2))
	year := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for w := range wallets {
		payer := fmt.Sprintf("%044d", w)
		for range perWallet {
			at := year + rnd.Int64N(365*86400*1_000_000)
			_ = r.add(payer, ledger.Types[rnd.IntN(3)], at, 2039280*(1+rnd.Int64N(5))+rnd.Int64N(1000))
		}
	}
	r.finish()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.Logf("%d rows: %.1f bytes a row in memory", wallets*perWallet, float64(after.HeapAlloc-before.HeapAlloc)/float64(wallets*perWallet))
	at := func(s string) int64 { t, _ := time.Parse(time.RFC3339, s); return t.UnixMicro() }
	cases := []struct {
		name          string
		from, to      int64
		typ           string
		offset, limit int
	}{
		{"since June", at("2025-06-01T00:00:00Z"), at("2026-01-01T00:00:00Z"), "", 0, 100},
		{"noon to noon", at("2025-06-01T12:00:00Z"), at("2025-07-01T12:00:00Z"), "", 0, 100},
		{"one hour", at("2025-06-01T12:00:00Z"), at("2025-06-01T13:00:00Z"), "", 0, 100},
		{"one type, since June", at("2025-06-01T00:00:00Z"), at("2026-01-01T00:00:00Z"), ledger.TypeNFTBurn, 0, 100},
		{"year, deep page", at("2025-01-01T00:00:00Z"), at("2026-01-01T00:00:00Z"), "", 49_900, 100},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if p, _, _ := r.page(c.from, c.to, c.typ, c.offset, c.limit, nil); len(p) == 0 {
					b.Fatal("empty page")
				}
			}
		})
	}
}
