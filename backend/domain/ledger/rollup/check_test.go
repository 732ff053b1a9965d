package rollup

import (
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// A page summed in SQL holds the ranked page only with the same wallets, in
// the same order, with the same gross.
func TestPageCheckHolds(t *testing.T) {
	t.Parallel()
	c := &PageCheck{Payers: []string{"a", "b"}, Gross: []int64{10, 5}}
	for _, tc := range []struct {
		name    string
		entries []ledger.LeaderboardEntry
		want    bool
	}{
		{"same", []ledger.LeaderboardEntry{{Payer: "a", TotalGrossRebate: 10}, {Payer: "b", TotalGrossRebate: 5}}, true},
		{"shorter", []ledger.LeaderboardEntry{{Payer: "a", TotalGrossRebate: 10}}, false},
		{"order", []ledger.LeaderboardEntry{{Payer: "b", TotalGrossRebate: 5}, {Payer: "a", TotalGrossRebate: 10}}, false},
		{"gross", []ledger.LeaderboardEntry{{Payer: "a", TotalGrossRebate: 10}, {Payer: "b", TotalGrossRebate: 6}}, false},
	} {
		if got := c.Holds(tc.entries); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A month read from its ranking index is the base when its corrections cost
// less than it (many wallets), not when they cost more (few); a week of
// days has no base.
func TestBase(t *testing.T) {
	t.Parallel()
	noon := func(m int) time.Time { return time.Date(2025, time.Month(m), 1, 12, 0, 0, 0, time.UTC) }
	dense := Costs{PerDay: 27_000, Wallets: 500_000}
	ps := Plan(noon(6), noon(7), dense)
	if b := Base(ps, dense); b < 0 || ps[b].Kind != Months {
		t.Errorf("a month from noon to noon, many wallets: base %d of %+v", b, ps)
	}
	few := Costs{PerDay: 27_000, Wallets: 50_000} // the month's 50,000 rows cost less than its two half days
	if ps := Plan(noon(6), noon(7), few); Base(ps, few) != -1 {
		t.Errorf("a month from noon to noon, few wallets: base %d of %+v", Base(ps, few), ps)
	}
	week := Plan(time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 17, 0, 0, 0, 0, time.UTC), dense)
	if b := Base(week, dense); b != -1 {
		t.Errorf("a week: base %d of %+v", b, week)
	}
	if c := CostsOf(300, 40, 10, 12); c.PerDay != 100 || c.Wallets != 40 {
		t.Errorf("CostsOf: %+v", c)
	}
}
