package storage

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestPlanRangeTiles checks on random ranges that the pieces cover the range
// exactly once, each aligned to its kind, and are at most seven.
func TestPlanRangeTiles(t *testing.T) {
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
	for range 20_000 {
		from, to := instant(), instant()
		if !from.Before(to) {
			continue
		}
		ps := planRange(from, to)
		type span struct{ from, to time.Time }
		var spans []span
		for _, p := range ps {
			switch p.kind {
			case pieceRows:
				spans = append(spans, span{p.from, p.to})
			case pieceDays:
				spans = append(spans, span{dayStart(p.lo), dayStart(p.hi)})
			case pieceMonths:
				spans = append(spans, span{monthStart(p.lo), monthStart(p.hi)})
			case pieceYears:
				spans = append(spans, span{yearStart(p.lo), yearStart(p.hi)})
			}
			if p.kind != pieceRows && p.lo >= p.hi || p.kind == pieceRows && !p.from.Before(p.to) {
				t.Fatalf("[%v, %v): empty piece %+v", from, to, p)
			}
		}
		slices.SortFunc(spans, func(a, b span) int { return a.from.Compare(b.from) })
		at := from
		for _, sp := range spans {
			if !sp.from.Equal(at) {
				t.Fatalf("[%v, %v): pieces %+v leave a gap or overlap at %v", from, to, ps, at)
			}
			at = sp.to
		}
		if !at.Equal(to) || len(ps) > 7 {
			t.Fatalf("[%v, %v): pieces %+v", from, to, ps)
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
