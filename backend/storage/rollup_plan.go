package storage

import "time"

// A leaderboard over a time range reads the range as signed pieces: ledger
// rows of parts of days, and day, month and year rollups. Each level of the
// calendar either reads a part of the range as it is or widens it to the
// next level's boundary and subtracts what it added: [June 1 noon, July 1
// noon) is June, less the rows of June 1 before noon, plus those of July 1
// before noon. Every confirmed row of the range is counted once in all, every
// other row as often added as subtracted, so the sums per wallet are the sums
// over the range's rows, and a wallet is in the range when its count is
// above zero. A cost model (rollupCosts) picks the cheapest such plan.

type pieceKind int

const (
	pieceRows   pieceKind = iota // ledger rows confirmed in [from, to)
	pieceDays                    // reclaim_rollup_days, days [lo, hi)
	pieceMonths                  // reclaim_rollup_periods, months [lo, hi)
	pieceYears                   // reclaim_rollup_periods, years [lo, hi)
)

type piece struct {
	kind     pieceKind
	sign     int       // +1 or -1
	from, to time.Time // pieceRows
	lo, hi   int64     // the others
}

// rollupCosts estimates how many rows a piece reads, from the project's
// confirmed rows per day and its wallets: a day, month or year rollup holds
// at most one row per wallet and at most one per ledger row. Ledger rows cost
// more than rollup rows (read from the table, not from an index).
type rollupCosts struct {
	perDay, wallets float64
}

const ledgerRowCost = 2

// isBase reports whether p is one month or year, added: it can be read
// from its ranking index, page by page (leaderboardOverBase).
func (p piece) isBase() bool {
	return (p.kind == pieceMonths || p.kind == pieceYears) && p.hi == p.lo+1 && p.sign > 0
}

func (c rollupCosts) of(p piece) float64 {
	n := float64(p.hi - p.lo)
	switch p.kind {
	case pieceRows:
		return ledgerRowCost * c.perDay * p.to.Sub(p.from).Hours() / 24
	case pieceDays:
		return n * min(c.perDay, c.wallets)
	case pieceMonths:
		return n * min(30.44*c.perDay, c.wallets)
	default:
		return n * min(365.25*c.perDay, c.wallets)
	}
}

// The calendar levels: the boundaries of each, as instants, and the pieces
// of a span between two of them.
const (
	levelInstant = iota
	levelDay
	levelMonth
	levelYear
)

// floorAt and ceilAt are the boundaries of level at or before t, at or after
// t.
func floorAt(level int, t time.Time) time.Time {
	switch level {
	case levelDay:
		return dayStart(dayOf(t))
	case levelMonth:
		return monthStart(monthOf(t))
	case levelYear:
		return yearStart(yearOf(t))
	}
	return t
}

func ceilAt(level int, t time.Time) time.Time {
	f := floorAt(level, t)
	if f.Equal(t) {
		return f
	}
	switch level {
	case levelDay:
		return dayStart(dayOf(t) + 1)
	case levelMonth:
		return monthStart(monthOf(t) + 1)
	default:
		return yearStart(yearOf(t) + 1)
	}
}

// span is the piece of level covering [from, to), both boundaries of level.
func span(level int, sign int, from, to time.Time) piece {
	switch level {
	case levelInstant:
		return piece{kind: pieceRows, sign: sign, from: from, to: to}
	case levelDay:
		return piece{kind: pieceDays, sign: sign, lo: dayOf(from), hi: dayOf(to)}
	case levelMonth:
		return piece{kind: pieceMonths, sign: sign, lo: monthOf(from), hi: monthOf(to)}
	}
	return piece{kind: pieceYears, sign: sign, lo: yearOf(from), hi: yearOf(to)}
}

// planRange returns the cheapest plan of [from, to), from before to.
func planRange(from, to time.Time, c rollupCosts) []piece {
	ps, _ := planLevel(from, to, levelInstant, c)
	return ps
}

// planLevel plans [from, to), whose ends are boundaries of level: as one
// piece of level, or as a plan of the next level between boundaries of it
// next to each end, with what lies between them and the ends added or
// subtracted as pieces of level.
func planLevel(from, to time.Time, level int, c rollupCosts) ([]piece, float64) {
	whole := span(level, 1, from, to)
	best, cost := []piece{whole}, c.of(whole)
	if level == levelYear {
		return best, cost
	}
	next := level + 1
	type end struct {
		at   time.Time
		side []piece
	}
	ends := func(t time.Time, start bool) []end {
		lo, hi := floorAt(next, t), ceilAt(next, t)
		if lo.Equal(t) {
			return []end{{at: t}}
		}
		if start { // widen to lo and subtract [lo, t), or narrow to hi and add [t, hi)
			return []end{{lo, []piece{span(level, -1, lo, t)}}, {hi, []piece{span(level, 1, t, hi)}}}
		}
		return []end{{lo, []piece{span(level, 1, lo, t)}}, {hi, []piece{span(level, -1, t, hi)}}}
	}
	for _, a := range ends(from, true) {
		for _, b := range ends(to, false) {
			if !a.at.Before(b.at) {
				continue
			}
			inner, innerCost := planLevel(a.at, b.at, next, c)
			total := innerCost
			for _, p := range a.side {
				total += c.of(p)
			}
			for _, p := range b.side {
				total += c.of(p)
			}
			if total < cost {
				best = make([]piece, 0, len(inner)+2)
				best = append(append(append(best, inner...), a.side...), b.side...)
				cost = total
			}
		}
	}
	return best, cost
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
		for _, c := range []time.Time{floorAt(levelYear, lo), floorAt(levelMonth, lo), lo} {
			if start == nil || !c.Before(*start) {
				from = c
				break
			}
		}
	} else {
		from = start.UTC()
	}
	if endsAfter {
		for _, c := range []time.Time{ceilAt(levelYear, hi), ceilAt(levelMonth, hi), hi} {
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
