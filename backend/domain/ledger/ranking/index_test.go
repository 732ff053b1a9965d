package ranking

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSelectBest checks the quickselect against a full sort, on arrays large
// enough to partition, with ties in gross broken by payer.
func TestSelectBest(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(7, 11))
	for range 300 {
		n := rnd.IntN(2000)
		payers := make([]string, n)
		a := make([]ranked, n)
		for i := range a {
			payers[i] = fmt.Sprintf("%06d", rnd.IntN(1_000_000))
			a[i] = ranked{wallet: i, gross: int64(rnd.IntN(50))} // many ties
		}
		better := func(x, y ranked) bool {
			return x.gross > y.gross || x.gross == y.gross && (payers[x.wallet] < payers[y.wallet] ||
				payers[x.wallet] == payers[y.wallet] && x.wallet < y.wallet)
		}
		order := func(x, y ranked) int {
			if better(x, y) {
				return -1
			}
			return 1
		}
		want := slices.Clone(a)
		slices.SortFunc(want, order)
		k := rnd.IntN(n + 2)
		got := a[:selectBest(a, k, better)]
		slices.SortFunc(got, order)
		if !slices.Equal(got, want[:min(k, n)]) {
			t.Fatalf("n %d, k %d: the best k differ", n, k)
		}
	}
}

// TestRankingPage compares pages of a ranking (checkpoints every 50 rows,
// part of the rows in the delta, merged or not) with sums of every row.
func TestRankingPage(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 5))
	type row struct {
		payer, typ string
		at, gross  int64
	}
	var rows []row
	for range 5000 {
		rows = append(rows, row{fmt.Sprintf("w%03d", rnd.IntN(300)), slots[rnd.IntN(len(slots))],
			rnd.Int64N(1000), 1000 * rnd.Int64N(5)})
	}
	r := newRanking()
	r.every = 50
	for _, x := range rows[:4000] {
		if err := r.add(x.payer, x.typ, x.at, x.gross); err != nil {
			t.Fatal(err)
		}
	}
	r.finish()
	for i, x := range rows[4000:] {
		if err := r.add(x.payer, x.typ, x.at, x.gross); err != nil {
			t.Fatal(err)
		}
		if i == 500 {
			r.merge()
		}
	}
	for range 500 {
		from := rnd.Int64N(1100) - 50
		to := from + rnd.Int64N(1100)
		typ := ""
		if rnd.IntN(3) == 0 {
			typ = slots[rnd.IntN(len(slots))]
		}
		offset, limit := rnd.IntN(310), 1+rnd.IntN(50)
		sum, n := map[string]int64{}, map[string]int{}
		for _, x := range rows {
			if x.at >= from && x.at < to && (typ == "" || x.typ == typ) {
				sum[x.payer] += x.gross
				n[x.payer]++
			}
		}
		var want []string
		for p := range n {
			want = append(want, p)
		}
		slices.SortFunc(want, func(a, b string) int {
			if sum[a] != sum[b] {
				return int(sum[b] - sum[a])
			}
			return strings.Compare(a, b)
		})
		want = want[min(offset, len(want)):min(offset+limit, len(want))]
		got, gross, _ := r.page(from, to, typ, offset, limit, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("[%d, %d) type %q offset %d limit %d: %v, want %v", from, to, typ, offset, limit, got, want)
		}
		for i, p := range got {
			if gross[i] != sum[p] {
				t.Fatalf("%s: gross %d, want %d", p, gross[i], sum[p])
			}
		}
	}
}
