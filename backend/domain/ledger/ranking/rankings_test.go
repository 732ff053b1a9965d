package ranking

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
)

const (
	closure = ledger.TypeTokenAccountClosure
	burn    = ledger.TypeTokenBurn
	nft     = ledger.TypeNFTBurn
)

// inlineRankings are rankings over src built and merged in the query that
// needs them.
func inlineRankings(t *testing.T, src Source, tune Tuning) *Rankings {
	t.Helper()
	rs := New(src)
	tune.Inline = true
	rs.Tune(tune)
	t.Cleanup(rs.Stop)
	return rs
}

// oneRow is a source of prj_1 with one row, wallet a's.
func oneRow() *fakeSource {
	src := newFakeSource()
	src.add("prj_1", fakeRow{payer: "a", typ: closure, at: 10, gross: 100})
	return src
}

// oneRanking is prj_1 of oneRow ranked inline, and what its ranking holds.
func oneRanking(t *testing.T) (*fakeSource, *Rankings, int64) {
	t.Helper()
	src := oneRow()
	rs := inlineRankings(t, src, Tuning{})
	page(t, rs, "prj_1", 0, 100, "", 0, 10)
	held, _ := rs.Held()
	return src, rs, held
}

// page is a page that must be ranked in memory.
func page(t *testing.T, rs *Rankings, projectID string, from, to int64, typ string, offset, limit int) ([]string, []int64) {
	t.Helper()
	payers, gross, ok, err := rs.Page(context.Background(), projectID, from, to, typ, offset, limit)
	if err != nil || !ok {
		t.Fatalf("[%d, %d) %q offset %d limit %d: ok %v, %v", from, to, typ, offset, limit, ok, err)
	}
	return payers, gross
}

// ranked is every wallet with rows of typ in [from, to), by gross
// descending then payer byte-wise: the leaderboard's order, summed row by
// row.
func rankedRows(rows []fakeRow, from, to int64, typ string) (payers []string, gross []int64) {
	sum := map[string]int64{}
	for _, r := range rows {
		if r.at >= 0 && r.at >= from && r.at < to && (typ == "" || r.typ == typ) {
			sum[r.payer] += r.gross
		}
	}
	for p := range sum {
		payers = append(payers, p)
	}
	slices.SortFunc(payers, func(a, b string) int {
		return cmp.Or(cmp.Compare(sum[b], sum[a]), strings.Compare(a, b))
	})
	for _, p := range payers {
		gross = append(gross, sum[p])
	}
	return payers, gross
}

// The leaderboard's rules, on a ledger small enough to read: gross
// descending, ties by payer byte-wise (upper case before lower), [from, to)
// half open, one type or all, rows without a confirmation time counted but
// never ranked, a page past the end empty.
func TestRankingsPage(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	rows := []fakeRow{
		{payer: "carol", typ: closure, at: 100, gross: 2_039_280},
		{payer: "alice", typ: closure, at: 200, gross: 2_039_280},
		{payer: "Bob", typ: burn, at: 300, gross: 2_039_280},
		{payer: "bob", typ: nft, at: 300, gross: 2_039_280},
		{payer: "dave", typ: closure, at: 400, gross: 5_000_000},
		{payer: "alice", typ: burn, at: 500, gross: 1},
		{payer: "erin", typ: nft, at: -1, gross: 9_000_000}, // confirmed, no time
		{payer: "frank", typ: closure, at: 999, gross: 0},
	}
	src.add("prj_1", rows...)
	rs := inlineRankings(t, src, Tuning{})
	for _, c := range []struct {
		name          string
		from, to      int64
		typ           string
		offset, limit int
		payers        []string
		gross         []int64
	}{
		{"all time", math.MinInt64, math.MaxInt64, "", 0, 10,
			[]string{"dave", "alice", "Bob", "bob", "carol", "frank"},
			[]int64{5_000_000, 2_039_281, 2_039_280, 2_039_280, 2_039_280, 0}},
		{"first page", math.MinInt64, math.MaxInt64, "", 0, 2, []string{"dave", "alice"}, []int64{5_000_000, 2_039_281}},
		{"ties across pages", math.MinInt64, math.MaxInt64, "", 2, 2, []string{"Bob", "bob"}, []int64{2_039_280, 2_039_280}},
		{"last page, short", math.MinInt64, math.MaxInt64, "", 4, 10, []string{"carol", "frank"}, []int64{2_039_280, 0}},
		{"past the end", math.MinInt64, math.MaxInt64, "", 6, 10, nil, nil},
		{"far past the end", math.MinInt64, math.MaxInt64, "", 1 << 30, 10, nil, nil},
		{"from is in", 200, 301, "", 0, 10, []string{"Bob", "alice", "bob"}, []int64{2_039_280, 2_039_280, 2_039_280}},
		{"to is out", 100, 300, "", 0, 10, []string{"alice", "carol"}, []int64{2_039_280, 2_039_280}},
		{"an empty range", 300, 300, "", 0, 10, nil, nil},
		{"a reversed range", 500, 100, "", 0, 10, nil, nil},
		{"one type", math.MinInt64, math.MaxInt64, closure, 0, 10,
			[]string{"dave", "alice", "carol", "frank"}, []int64{5_000_000, 2_039_280, 2_039_280, 0}},
		{"one type, one row of several", 0, 1000, burn, 0, 10, []string{"Bob", "alice"}, []int64{2_039_280, 1}},
		{"a type with no rows", math.MinInt64, math.MaxInt64, ledger.TypeStakeAccountWithdrawal, 0, 10, nil, nil},
		{"a type unknown", math.MinInt64, math.MaxInt64, "airdrop", 0, 10, nil, nil},
		{"a wallet of zero gross still ranks", 999, 1000, "", 0, 10, []string{"frank"}, []int64{0}},
	} {
		payers, gross := page(t, rs, "prj_1", c.from, c.to, c.typ, c.offset, c.limit)
		if !slices.Equal(payers, c.payers) || !slices.Equal(gross, c.gross) {
			t.Errorf("%s: %v %v, want %v %v", c.name, payers, gross, c.payers, c.gross)
		}
	}
	if payers, _ := page(t, rs, "prj_empty", math.MinInt64, math.MaxInt64, "", 0, 10); payers != nil {
		t.Fatalf("a project without rows: %v", payers)
	}
	if rs.Builds() != 2 || rs.Served() != 16 {
		t.Fatalf("%d builds, %d served; want one build per project, every page served", rs.Builds(), rs.Served())
	}
}

// Pages taken one after another are the ranking cut in pieces: no wallet
// twice, none left out, at every page size, over checkpoints and a delta.
func TestRankingsPagination(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	var rows []fakeRow
	for i := range 2000 {
		rows = append(rows, fakeRow{payer: fmt.Sprintf("w%03d", i*7%211), typ: slots[i%3], at: int64(i), gross: int64(1000 * (i % 5))})
	}
	src.add("prj_1", rows[:1500]...)
	rs := inlineRankings(t, src, Tuning{Every: 100, MergeAt: 1 << 20})
	page(t, rs, "prj_1", 0, 1, "", 0, 1) // built of the first rows
	src.add("prj_1", rows[1500:]...)     // the rest in the delta
	for _, rng := range [][2]int64{{0, 2000}, {250, 1750}, {1400, 1600}} {
		wantPayers, wantGross := rankedRows(rows, rng[0], rng[1], "")
		for _, size := range []int{1, 7, 50, 500} {
			var payers []string
			var gross []int64
			for offset := 0; ; offset += size {
				p, g := page(t, rs, "prj_1", rng[0], rng[1], "", offset, size)
				if len(p) > size {
					t.Fatalf("page of %d: %d wallets", size, len(p))
				}
				payers, gross = append(payers, p...), append(gross, g...)
				if len(p) < size {
					break
				}
			}
			if !slices.Equal(payers, wantPayers) || !slices.Equal(gross, wantGross) {
				t.Fatalf("%v by pages of %d: %d wallets, want %d, in the leaderboard's order", rng, size, len(payers), len(wantPayers))
			}
		}
	}
}

// Rows confirmed after a ranking was built are read on the next page,
// once: a row the source sends again is not counted twice.
func TestRankingsCatchUp(t *testing.T) {
	t.Parallel()
	for _, resend := range []bool{false, true} {
		src := newFakeSource()
		src.add("prj_1", fakeRow{payer: "a", typ: closure, at: 10, gross: 100}, fakeRow{payer: "b", typ: closure, at: 20, gross: 200})
		rs := inlineRankings(t, src, Tuning{})
		if p, _ := page(t, rs, "prj_1", 0, 100, "", 0, 10); !slices.Equal(p, []string{"b", "a"}) {
			t.Fatalf("built: %v", p)
		}
		src.set(func(s *fakeSource) { s.resend = resend })
		src.add("prj_1", fakeRow{payer: "a", typ: burn, at: 30, gross: 150}, fakeRow{payer: "c", typ: nft, at: 40, gross: 10})
		p, g := page(t, rs, "prj_1", 0, 100, "", 0, 10)
		if !slices.Equal(p, []string{"a", "b", "c"}) || !slices.Equal(g, []int64{250, 200, 10}) {
			t.Fatalf("resend %v: %v %v, want a 250, b 200, c 10", resend, p, g)
		}
		if rs.Builds() != 1 {
			t.Fatalf("resend %v: %d builds, want the ranking caught up, not built again", resend, rs.Builds())
		}
	}
}

// A ranking that no longer counts what the project's totals count (a
// version of the service confirmed rows without counting them) is not
// used: the caller ranks, and the ranking is built again.
func TestRankingsCountDiffers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, rs, held := oneRanking(t)
	src.set(func(s *fakeSource) { s.projects["prj_1"].miscount = 1 })
	if _, _, ok, err := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || err != nil {
		t.Fatalf("a ranking behind the totals served a page: %v %v", ok, err)
	}
	if now, _ := rs.Held(); now != 0 || held == 0 {
		t.Fatalf("held %d, then %d: a ranking dropped gives its budget back", held, now)
	}
	// Built again at the next page, and refused while the totals differ.
	if _, _, ok, _ := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || rs.Builds() != 2 {
		t.Fatalf("ok %v after %d builds", ok, rs.Builds())
	}
	if err := rs.Warm(ctx, "prj_1"); err == nil || !strings.Contains(err.Error(), "1 confirmed rows, the totals count 2") {
		t.Fatalf("Warm of a project whose totals differ: %v", err)
	}
	src.set(func(s *fakeSource) { s.projects["prj_1"].miscount = 0 })
	if err := rs.Warm(ctx, "prj_1"); err != nil {
		t.Fatal(err)
	}
	page(t, rs, "prj_1", 0, 100, "", 0, 10)
}

// A failed build is not tried again by every page (each would read the
// whole ledger): the next page after the retry delay tries, Warm at once;
// a source that fails on a page is the page's error.
func TestRankingsSourceFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	down := errors.New("database is gone")
	src := oneRow()
	src.set(func(s *fakeSource) { s.err = down })
	rs := inlineRankings(t, src, Tuning{})
	for range 3 {
		if _, _, ok, err := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || err != nil {
			t.Fatalf("no ranking: ok %v, %v; want the caller to rank", ok, err)
		}
	}
	if rs.Builds() != 1 {
		t.Fatalf("%d builds within the retry delay, want 1", rs.Builds())
	}
	src.set(func(s *fakeSource) { s.err = nil })
	rs.mu.Lock()
	retry := rs.projects["prj_1"].retryAt
	rs.projects["prj_1"].retryAt = time.Time{} // the delay has passed
	rs.mu.Unlock()
	if d := time.Until(retry); d <= rankingRetry-time.Minute/2 || d > rankingRetry {
		t.Fatalf("retried in %v, want %v", d, rankingRetry)
	}
	page(t, rs, "prj_1", 0, 100, "", 0, 10)
	if rs.Builds() != 2 {
		t.Fatalf("%d builds, want the one after the delay", rs.Builds())
	}
	src.set(func(s *fakeSource) { s.err = down })
	if _, _, ok, err := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || !errors.Is(err, down) {
		t.Fatalf("catching up on a source down: ok %v, %v", ok, err)
	}
}

// Warm builds now, whatever the retry delay; it fails while another build
// is under way, and does nothing for a ranking that is built.
func TestRankingsWarm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := oneRow()
	rs := New(src)
	t.Cleanup(rs.Stop)
	started, hold := make(chan struct{}, 1), make(chan struct{})
	src.set(func(s *fakeSource) { s.started, s.hold = started, hold })
	// A page starts the build in the background and does not wait for it.
	if _, _, ok, err := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || err != nil {
		t.Fatalf("while building: ok %v, %v", ok, err)
	}
	<-started
	if err := rs.Warm(ctx, "prj_1"); err == nil || err.Error() != "the ranking of prj_1 is being built" {
		t.Fatalf("Warm while building: %v", err)
	}
	if _, _, ok, _ := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok {
		t.Fatal("a page served while the ranking is built")
	}
	src.set(func(s *fakeSource) { s.started, s.hold = nil, nil })
	close(hold)
	rs.wg.Wait()
	if err := rs.Warm(ctx, "prj_1"); err != nil {
		t.Fatal(err)
	}
	if p, _ := page(t, rs, "prj_1", 0, 100, "", 0, 10); !slices.Equal(p, []string{"a"}) || rs.Builds() != 1 {
		t.Fatalf("%v after %d builds", p, rs.Builds())
	}
}

// Stop ends the builds under way and waits for them: none outlives it.
func TestRankingsStop(t *testing.T) {
	t.Parallel()
	src := oneRow()
	started := make(chan struct{}, 1)
	src.set(func(s *fakeSource) { s.started, s.hold = started, make(chan struct{}) })
	rs := New(src)
	if _, _, ok, _ := rs.Page(context.Background(), "prj_1", 0, 100, "", 0, 10); ok {
		t.Fatal("served before it was built")
	}
	<-started
	rs.Stop() // returns: the build saw its context end
	rs.mu.Lock()
	slot := rs.projects["prj_1"]
	rs.mu.Unlock()
	if slot.building || slot.ready != nil || slot.retryAt.IsZero() {
		t.Fatalf("after Stop: %+v", *slot)
	}
	if held, _ := rs.Held(); held != 0 {
		t.Fatalf("a stopped build holds %d bytes", held)
	}
}

// Reset forgets every ranking and gives the budget back; a build under way
// meanwhile does not install its ranking in the slot forgotten.
func TestRankingsReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := oneRow()
	src.add("prj_2", fakeRow{payer: "b", typ: closure, at: 10, gross: 100})
	rs := inlineRankings(t, src, Tuning{})
	page(t, rs, "prj_1", 0, 100, "", 0, 10)
	if held, _ := rs.Held(); held == 0 {
		t.Fatal("a ranking holds nothing")
	}
	started, hold := make(chan struct{}, 1), make(chan struct{})
	src.set(func(s *fakeSource) { s.started, s.hold = started, hold })
	done := make(chan error, 1)
	go func() { done <- rs.Warm(ctx, "prj_2") }()
	<-started
	rs.Reset()
	close(hold)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "reset meanwhile") {
		t.Fatalf("a build across a reset: %v", err)
	}
	if held, rows := rs.Held(); held != 0 || rows != 0 {
		t.Fatalf("after Reset: %d bytes, %d rows held", held, rows)
	}
	src.set(func(s *fakeSource) { s.started, s.hold = nil, nil })
	page(t, rs, "prj_1", 0, 100, "", 0, 10)
	if rs.Builds() != 3 {
		t.Fatalf("%d builds, want prj_1 built again after the reset", rs.Builds())
	}
}

// A row the ranking cannot hold (a type it does not know, a gross over
// its packing) leaves the project to the caller, at build and at catch-up.
func TestRankingsRowsItCannotHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, bad := range []fakeRow{
		{payer: "x", typ: "airdrop", at: 20, gross: 1},
		{payer: "x", typ: closure, at: 20, gross: rowMaxGross + 1},
		{payer: "x", typ: closure, at: 20, gross: -1},
	} {
		src := oneRow()
		rs := inlineRankings(t, src, Tuning{})
		page(t, rs, "prj_1", 0, 100, "", 0, 10)
		src.add("prj_1", bad)
		if _, _, ok, err := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || err != nil {
			t.Fatalf("%+v at catch-up: ok %v, %v", bad, ok, err)
		}
		if err := rs.Warm(ctx, "prj_1"); !errors.Is(err, errUnranked) {
			t.Fatalf("%+v at build: %v", bad, err)
		}
		if held, _ := rs.Held(); held != 0 {
			t.Fatalf("%+v: %d bytes held by no ranking", bad, held)
		}
	}
}

// The budget: zero bytes or zero rows ranks nothing in memory (and builds
// nothing); a project over it is left to the caller and tried again only
// after the longer delay; what is held is given back when dropped.
func TestRankingsBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := newFakeSource()
	var rows []fakeRow
	for i := range 3000 {
		rows = append(rows, fakeRow{payer: fmt.Sprintf("w%04d", i), typ: closure, at: int64(i), gross: 1})
	}
	src.add("big", rows...)
	src.add("small", rows[:10]...)

	for name, set := range map[string]func(*Rankings){
		"no bytes": func(rs *Rankings) { rs.SetBudget(0) },
		"no rows":  func(rs *Rankings) { rs.SetRowLimit(0) },
		"off":      func(rs *Rankings) { rs.Tune(Tuning{Inline: true, Off: true}) },
	} {
		rs := inlineRankings(t, src, Tuning{})
		set(rs)
		if _, _, ok, err := rs.Page(ctx, "small", 0, 100, "", 0, 10); ok || err != nil || rs.Builds() != 0 || src.readCount() != 0 {
			t.Fatalf("%s: ok %v, %v, %d builds, %d reads", name, ok, err, rs.Builds(), src.readCount())
		}
	}

	// Room for the small project, not the big one.
	rs := inlineRankings(t, src, Tuning{})
	rs.SetBudget(64 << 10)
	page(t, rs, "small", 0, 100, "", 0, 10)
	small, _ := rs.Held()
	if err := rs.Warm(ctx, "big"); !errors.Is(err, errRankingFull) {
		t.Fatalf("a project over the budget: %v", err)
	}
	if held, _ := rs.Held(); held != small || held > 64<<10 {
		t.Fatalf("held %d after a build over the budget, want %d", held, small)
	}
	rs.mu.Lock()
	retry := time.Until(rs.projects["big"].retryAt)
	rs.mu.Unlock()
	if retry <= rankingRetry || retry > rankingFullRetry {
		t.Fatalf("a full budget retried in %v, want %v", retry, rankingFullRetry)
	}
	if _, _, ok, _ := rs.Page(ctx, "big", 0, 100, "", 0, 10); ok || rs.Builds() != 2 {
		t.Fatalf("ok %v, %d builds: a project over the budget is not built again at once", ok, rs.Builds())
	}
	page(t, rs, "small", 0, 100, "", 0, 10) // still served

	// The deprecated bound on rows, on top.
	rs = inlineRankings(t, src, Tuning{})
	rs.SetRowLimit(2999)
	if err := rs.Warm(ctx, "big"); !errors.Is(err, errRankingFull) {
		t.Fatalf("a project over the row limit: %v", err)
	}
	rs.SetRowLimit(3009)
	page(t, rs, "small", 0, 100, "", 0, 10)
	if _, rows := rs.Held(); rows != 10 {
		t.Fatalf("%d rows held, want 10", rows)
	}
	if err := rs.Warm(ctx, "big"); !errors.Is(err, errRankingFull) {
		t.Fatalf("two projects over the row limit together: %v", err)
	}
}

// A page takes its working memory from the budget while it runs: with no
// room for it the caller ranks, and the ranking stays.
func TestRankingsPageOverBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, rs, held := oneRanking(t)
	rs.SetBudget(held + pageBytes - 1)
	if _, _, ok, err := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || err != nil {
		t.Fatalf("a page over the budget: ok %v, %v", ok, err)
	}
	rs.SetBudget(held + pageBytes)
	page(t, rs, "prj_1", 0, 100, "", 0, 10)
	if now, _ := rs.Held(); now != held || rs.Builds() != 1 {
		t.Fatalf("held %d after pages, want %d; %d builds", now, held, rs.Builds())
	}
}

// A delta grown large is merged into the base, inline or in the
// background; pages agree with the rows before, during and after; the
// budget then holds what the ranking holds. With no room for the merge,
// the delta waits and pages are still right.
func TestRankingsMerge(t *testing.T) {
	t.Parallel()
	var rows []fakeRow
	for i := range 1200 {
		rows = append(rows, fakeRow{payer: fmt.Sprintf("w%02d", i%37), typ: slots[i%3], at: int64(i * 13 % 1200), gross: int64(i % 9)})
	}
	for _, c := range []struct {
		name   string
		inline bool
		room   bool
	}{{"inline", true, true}, {"background", false, true}, {"no room", true, false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := newFakeSource()
			src.add("prj_1", rows[:600]...)
			rs := New(src)
			t.Cleanup(rs.Stop)
			rs.Tune(Tuning{Inline: c.inline, Every: 64, MergeAt: 100})
			if err := rs.Warm(context.Background(), "prj_1"); err != nil {
				t.Fatal(err)
			}
			if !c.room {
				held, _ := rs.Held()
				rs.SetBudget(held + 37*pageBytes + 24<<10) // the delta's rows and a page, not a new base
			}
			for n := 600; n < len(rows); n += 150 {
				src.add("prj_1", rows[n:n+150]...)
				for _, rng := range [][2]int64{{0, 1200}, {100, 900}, {650, 700}} {
					wantP, wantG := rankedRows(rows[:n+150], rng[0], rng[1], "")
					p, g := page(t, rs, "prj_1", rng[0], rng[1], "", 0, 100)
					if !slices.Equal(p, wantP) || !slices.Equal(g, wantG) {
						t.Fatalf("%d rows, %v: the page differs from the rows", n+150, rng)
					}
				}
				rs.wg.Wait()
			}
			rs.mu.Lock()
			r := rs.projects["prj_1"].ready
			rs.mu.Unlock()
			r.mu.RLock()
			defer r.mu.RUnlock()
			base, delta := len(r.base.rows), len(r.delta)
			if c.room && (delta >= 100 || base < 1100 || len(r.base.gross) == 0) {
				t.Fatalf("%d rows in the base (%d checkpoints), %d in the delta: not merged", base, len(r.base.gross), delta)
			}
			if !c.room && (base != 600 || delta != 600 || r.merging) {
				t.Fatalf("%d rows in the base, %d in the delta, merging %v: merged over the budget", base, delta, r.merging)
			}
			if held, _ := rs.Held(); held != r.charged || r.charged != r.bytes() {
				t.Fatalf("budget holds %d, the ranking is charged %d and holds %d", held, r.charged, r.bytes())
			}
		})
	}
}

// The delay before a failed build is tried again runs on the owner's clock
// (WithClock): a page a second before it does not build, a page once that
// clock reaches it does, whatever the machine's clock says; a build over
// the budget waits the longer delay by the same clock.
func TestRankingsRetryTimedByTheOwnersClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := clocktest.New(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	src := oneRow()
	src.set(func(s *fakeSource) { s.err = errors.New("database is gone") })
	rs := New(src, WithClock(clock.Now))
	rs.Tune(Tuning{Inline: true})
	t.Cleanup(rs.Stop)
	if _, _, ok, err := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || err != nil || rs.Builds() != 1 {
		t.Fatalf("a failed build: ok %v, %v, %d builds", ok, err, rs.Builds())
	}
	src.set(func(s *fakeSource) { s.err = nil })
	retriedAfter(t, rs, clock, rankingRetry)

	// Over the budget: rankingFullRetry by the same clock.
	rs = New(src, WithClock(clock.Now))
	rs.Tune(Tuning{Inline: true})
	t.Cleanup(rs.Stop)
	rs.SetBudget(1)
	if err := rs.Warm(ctx, "prj_1"); !errors.Is(err, errRankingFull) {
		t.Fatalf("a build over the budget: %v", err)
	}
	rs.SetBudget(DefaultMaxBytes)
	retriedAfter(t, rs, clock, rankingFullRetry)
}

// retriedAfter checks that prj_1's build, failed once, is not tried again
// by a page a second before delay has passed on clock, and is by a page
// once it has.
func retriedAfter(t *testing.T, rs *Rankings, clock *clocktest.Clock, delay time.Duration) {
	t.Helper()
	ctx := context.Background()
	clock.Advance(delay - time.Second)
	if _, _, ok, _ := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); ok || rs.Builds() != 1 {
		t.Fatalf("a second before %v by the owner's clock: ok %v, %d builds, want none again", delay, ok, rs.Builds())
	}
	clock.Advance(time.Second)
	if _, _, ok, _ := rs.Page(ctx, "prj_1", 0, 100, "", 0, 10); !ok || rs.Builds() != 2 {
		t.Fatalf("once the owner's clock passed %v: ok %v, %d builds, want it built and ranked", delay, ok, rs.Builds())
	}
}
