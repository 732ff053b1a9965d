package storage

import "time"

// A leaderboard over a time range reads the range as pieces: the ledger rows
// of the partial days at its ends, the day rollups of the whole days up to
// the first and from the last whole month, the month rollups up to the first
// and from the last whole year, and the year rollups between. Every
// confirmed row of the range is in exactly one piece, so the sums per wallet
// over the pieces are the sums over the rows.

type pieceKind int

const (
	pieceRows   pieceKind = iota // ledger rows confirmed in [from, to)
	pieceDays                    // reclaim_rollup_days, days [lo, hi)
	pieceMonths                  // reclaim_rollup_periods, months [lo, hi)
	pieceYears                   // reclaim_rollup_periods, years [lo, hi)
)

type piece struct {
	kind     pieceKind
	from, to time.Time // pieceRows
	lo, hi   int64     // the others
}

// ceilDay, ceilMonth and ceilYear are the first day, month and year that
// start at or after t.
func ceilDay(t time.Time) int64 {
	d := dayOf(t)
	if dayStart(d).Before(t) {
		d++
	}
	return d
}

func ceilMonth(t time.Time) int64 {
	m := monthOf(t)
	if monthStart(m).Before(t) {
		m++
	}
	return m
}

func ceilYear(t time.Time) int64 {
	y := yearOf(t)
	if yearStart(y).Before(t) {
		y++
	}
	return y
}

// planRange splits [from, to), from before to, into pieces.
func planRange(from, to time.Time) []piece {
	var ps []piece
	d0, d1 := ceilDay(from), dayOf(to) // whole days [d0, d1)
	if d0 >= d1 {
		return []piece{{kind: pieceRows, from: from, to: to}}
	}
	if t := dayStart(d0); from.Before(t) {
		ps = append(ps, piece{kind: pieceRows, from: from, to: t})
	}
	if t := dayStart(d1); t.Before(to) {
		ps = append(ps, piece{kind: pieceRows, from: t, to: to})
	}
	m0, m1 := ceilMonth(dayStart(d0)), monthOf(dayStart(d1)) // whole months [m0, m1)
	if m0 >= m1 {
		return append(ps, piece{kind: pieceDays, lo: d0, hi: d1})
	}
	if d := dayOf(monthStart(m0)); d0 < d {
		ps = append(ps, piece{kind: pieceDays, lo: d0, hi: d})
	}
	if d := dayOf(monthStart(m1)); d < d1 {
		ps = append(ps, piece{kind: pieceDays, lo: d, hi: d1})
	}
	y0, y1 := ceilYear(monthStart(m0)), yearOf(monthStart(m1)) // whole years [y0, y1)
	if y0 >= y1 {
		return append(ps, piece{kind: pieceMonths, lo: m0, hi: m1})
	}
	if m0 < y0*12 {
		ps = append(ps, piece{kind: pieceMonths, lo: m0, hi: y0 * 12})
	}
	if y1*12 < m1 {
		ps = append(ps, piece{kind: pieceMonths, lo: y1 * 12, hi: m1})
	}
	return append(ps, piece{kind: pieceYears, lo: y0, hi: y1})
}

// clipRange narrows [start, end) (nil: unbounded) to the days that have
// confirmed rows, [firstDay, lastDay], without changing which rows it holds:
// an end beyond them moves to the coarsest boundary (year, month, day) still
// beyond them, so the range reads as few pieces as it can. coversAll reports
// that the range holds every dated row.
func clipRange(start, end *time.Time, firstDay, lastDay int64) (from, to time.Time, coversAll bool) {
	lo, hi := dayStart(firstDay), dayStart(lastDay+1)
	startsBefore := start == nil || !start.After(lo)
	endsAfter := end == nil || !end.Before(hi)
	if startsBefore {
		for _, c := range []time.Time{yearStart(yearOf(lo)), monthStart(monthOf(lo)), lo} {
			if start == nil || !c.Before(*start) {
				from = c
				break
			}
		}
	} else {
		from = start.UTC()
	}
	if endsAfter {
		for _, c := range []time.Time{yearStart(ceilYear(hi)), monthStart(ceilMonth(hi)), hi} {
			if end == nil || !c.After(*end) {
				to = c
				break
			}
		}
	} else {
		to = end.UTC()
	}
	return from, to, startsBefore && endsAfter
}
