package storage

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
	bounds := func(p piece) (time.Time, time.Time) {
		switch p.kind {
		case pieceDays:
			return dayStart(p.lo), dayStart(p.hi)
		case pieceMonths:
			return monthStart(p.lo), monthStart(p.hi)
		case pieceYears:
			return yearStart(p.lo), yearStart(p.hi)
		}
		return p.from, p.to
	}
	for range 20_000 {
		from, to := instant(), instant()
		if !from.Before(to) {
			continue
		}
		c := rollupCosts{perDay: float64(1 + r.IntN(30_000)), wallets: float64(1 + r.IntN(100_000))}
		ps := planRange(from, to, c)
		probes := []time.Time{from, to, from.Add(-time.Microsecond), to.Add(-time.Microsecond)}
		for _, p := range ps {
			lo, hi := bounds(p)
			if !lo.Before(hi) || p.sign*p.sign != 1 {
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
					n += p.sign
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
		if d, m, y := dayOf(c.t), monthOf(c.t), yearOf(c.t); d != c.day || m != c.month || y != c.year {
			t.Errorf("%v: day %d month %d year %d, want %d %d %d", c.t, d, m, y, c.day, c.month, c.year)
		}
		if !dayStart(c.day).Equal(c.t.UTC().Truncate(24*time.Hour)) || monthStart(c.month).Month() != c.t.UTC().Month() {
			t.Errorf("%v: starts %v %v", c.t, dayStart(c.day), monthStart(c.month))
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
	dense := planRange(noon(6), noon(7), rollupCosts{perDay: 27_000, wallets: 50_000})
	want := []piece{
		{kind: pieceMonths, sign: 1, lo: 2025*12 + 5, hi: 2025*12 + 6},
		{kind: pieceRows, sign: -1, from: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), to: noon(6)},
		{kind: pieceRows, sign: 1, from: time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), to: noon(7)},
	}
	if !reflect.DeepEqual(dense, want) {
		t.Errorf("dense: %+v\nwant %+v", dense, want)
	}
	sparse := planRange(time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 17, 0, 0, 0, 0, time.UTC),
		rollupCosts{perDay: 2_700, wallets: 50_000})
	if len(sparse) != 1 || sparse[0].kind != pieceDays {
		t.Errorf("sparse week: %+v", sparse)
	}
}
