package rollup

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestPlanRangeCountsEachInstantOnce checks on random ranges and random
// costs that the signed pieces of a plan count every instant of the range
// once and every other instant not at all (at each piece's ends, where a
// miscount would show, and around the range's), and that plans stay short.
func TestPlanRangeCountsEachInstantOnce(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	base := time.Date(2023, 12, 31, 0, 0, 0, 0, time.UTC)
	instant := func() time.Time {
		t := base.Add(time.Duration(r.Int64N(int64(4 * 365 * 24 * time.Hour)))).Truncate(time.Microsecond)
		switch r.IntN(4) {
		case 0:
			return t.Truncate(24 * time.Hour)
		case 1:
			return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		case 2:
			return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		}
		return t
	}
	bounds := func(p Piece) (time.Time, time.Time) {
		switch p.Kind {
		case Days:
			return DayStart(p.Lo), DayStart(p.Hi)
		case Months:
			return MonthStart(p.Lo), MonthStart(p.Hi)
		case Years:
			return YearStart(p.Lo), YearStart(p.Hi)
		}
		return p.From, p.To
	}
	for range 20_000 {
		from, to := instant(), instant()
		if !from.Before(to) {
			continue
		}
		c := Costs{PerDay: float64(1 + r.IntN(30_000)), Wallets: float64(1 + r.IntN(100_000))}
		ps := Plan(from, to, c)
		probes := []time.Time{from, to, from.Add(-time.Microsecond), to.Add(-time.Microsecond)}
		for _, p := range ps {
			lo, hi := bounds(p)
			if !lo.Before(hi) || p.Sign*p.Sign != 1 {
				t.Fatalf("[%v, %v): bad piece %+v", from, to, p)
			}
			probes = append(probes, lo, hi, lo.Add(-time.Microsecond), hi.Add(-time.Microsecond))
		}
		for _, at := range probes {
			n, want := 0, 0
			if !at.Before(from) && at.Before(to) {
				want = 1
			}
			for _, p := range ps {
				if lo, hi := bounds(p); !at.Before(lo) && at.Before(hi) {
					n += p.Sign
				}
			}
			if n != want {
				t.Fatalf("[%v, %v) with %+v: %v counted %d times by %+v", from, to, c, at, n, ps)
			}
		}
		if len(ps) > 7 {
			t.Fatalf("[%v, %v): %d pieces: %+v", from, to, len(ps), ps)
		}
	}
}

// TestBucketsOfTimes checks the Go buckets against the calendar, before
// 1970 too.
func TestBucketsOfTimes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		t                time.Time
		day, month, year int64
	}{
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), 0, 1970 * 12, 1970},
		{time.Date(1969, 12, 31, 23, 59, 59, 999_999_000, time.UTC), -1, 1969*12 + 11, 1969},
		{time.Date(2025, 6, 1, 12, 0, 0, 0, time.FixedZone("+14", 14*3600)), 20239, 2025*12 + 4, 2025}, // May 31 in UTC
	} {
		if d, m, y := DayOf(c.t), MonthOf(c.t), YearOf(c.t); d != c.day || m != c.month || y != c.year {
			t.Errorf("%v: day %d month %d year %d, want %d %d %d", c.t, d, m, y, c.day, c.month, c.year)
		}
		if !DayStart(c.day).Equal(c.t.UTC().Truncate(24*time.Hour)) || MonthStart(c.month).Month() != c.t.UTC().Month() {
			t.Errorf("%v: starts %v %v", c.t, DayStart(c.day), MonthStart(c.month))
		}
	}
}

// TestPlanRangeWidens: on a dense ledger (the 10M-row benchmark's: 27,000
// rows a day, 50,000 wallets) a month from noon to noon is the month with
// the two half days corrected, not 29 days of rollups; on a sparse one the
// days are cheaper than widening.
func TestPlanRangeWidens(t *testing.T) {
	t.Parallel()
	noon := func(d int) time.Time { return time.Date(2025, time.Month(d), 1, 12, 0, 0, 0, time.UTC) }
	dense := Plan(noon(6), noon(7), Costs{PerDay: 27_000, Wallets: 50_000})
	want := []Piece{
		{Kind: Months, Sign: 1, Lo: 2025*12 + 5, Hi: 2025*12 + 6},
		{Kind: Rows, Sign: -1, From: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), To: noon(6)},
		{Kind: Rows, Sign: 1, From: time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), To: noon(7)},
	}
	if !reflect.DeepEqual(dense, want) {
		t.Errorf("dense: %+v\nwant %+v", dense, want)
	}
	sparse := Plan(time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 17, 0, 0, 0, 0, time.UTC),
		Costs{PerDay: 2_700, Wallets: 50_000})
	if len(sparse) != 1 || sparse[0].Kind != Days {
		t.Errorf("sparse week: %+v", sparse)
	}
}
