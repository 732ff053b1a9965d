// Package rollup plans how a leaderboard over a time range is read: which
// ledger rows and day, month and year rollups to add and subtract, at what
// estimated cost, and whether one month or year is best read from its
// ranking index with the rest as corrections. It knows no SQL: storage
// turns a plan into statements, and the in-memory rankings (package
// ranking) check the pages summed from it (PageCheck).
package rollup

import "time"

// A leaderboard over a time range reads the range as signed pieces: ledger
// rows of parts of days, and day, month and year rollups. Each level of the
// calendar either reads a part of the range as it is or widens it to the
// next level's boundary and subtracts what it added: [June 1 noon, July 1
// noon) is June, less the rows of June 1 before noon, plus those of July 1
// before noon. Every confirmed row of the range is counted once in all, every
// other row as often added as subtracted, so the sums per wallet are the sums
// over the range's rows, and a wallet is in the range when its count is
// above zero. A cost model (Costs) picks the cheapest such plan.

// Kind is what a piece reads.
type Kind int

// The kinds of pieces.
const (
	Rows   Kind = iota // ledger rows confirmed in [From, To)
	Days               // day rollups, days [Lo, Hi)
	Months             // month rollups, months [Lo, Hi)
	Years              // year rollups, years [Lo, Hi)
)

// Piece is one signed part of a plan.
type Piece struct {
	Kind     Kind
	Sign     int       // +1 or -1
	From, To time.Time // Rows
	Lo, Hi   int64     // the others: buckets (DayOf, MonthOf, YearOf)
}

// Costs estimates how many rows a piece reads, from the project's
// confirmed rows per day and its wallets: a day, month or year rollup holds
// at most one row per wallet and at most one per ledger row. Ledger rows cost
// more than rollup rows (read from the table, not from an index).
type Costs struct {
	PerDay, Wallets float64
}

// CostsOf are the costs of a project's ledger of rows confirmed rows and
// wallets, dated from day firstDay to day lastDay (DayOf).
func CostsOf(rows, wallets, firstDay, lastDay int64) Costs {
	return Costs{PerDay: float64(rows) / float64(lastDay-firstDay+1), Wallets: float64(wallets)}
}

const ledgerRowCost = 2

// IsBase reports whether p is one month or year, added: it can be read
// from its ranking index, page by page.
func (p Piece) IsBase() bool {
	return (p.Kind == Months || p.Kind == Years) && p.Hi == p.Lo+1 && p.Sign > 0
}

// Of is the estimated cost of reading p.
func (c Costs) Of(p Piece) float64 {
	n := float64(p.Hi - p.Lo)
	switch p.Kind {
	case Rows:
		return ledgerRowCost * c.PerDay * p.To.Sub(p.From).Hours() / 24
	case Days:
		return n * min(c.PerDay, c.Wallets)
	case Months:
		return n * min(30.44*c.PerDay, c.Wallets)
	default:
		return n * min(365.25*c.PerDay, c.Wallets)
	}
}

// Base is the index in ps of the month or year best read from its ranking
// index page by page, with the other pieces as its corrections: the
// costliest base piece, when the corrections cost less than it. It is -1
// when summing every piece is cheaper.
func Base(ps []Piece, c Costs) int {
	base, total := -1, 0.0
	for i, p := range ps {
		total += c.Of(p)
		if p.IsBase() && (base < 0 || c.Of(p) > c.Of(ps[base])) {
			base = i
		}
	}
	if base >= 0 && total-c.Of(ps[base]) < c.Of(ps[base]) {
		return base
	}
	return -1
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
		return DayStart(DayOf(t))
	case levelMonth:
		return MonthStart(MonthOf(t))
	case levelYear:
		return YearStart(YearOf(t))
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
		return DayStart(DayOf(t) + 1)
	case levelMonth:
		return MonthStart(MonthOf(t) + 1)
	default:
		return YearStart(YearOf(t) + 1)
	}
}

// span is the piece of level covering [from, to), both boundaries of level.
func span(level int, sign int, from, to time.Time) Piece {
	switch level {
	case levelInstant:
		return Piece{Kind: Rows, Sign: sign, From: from, To: to}
	case levelDay:
		return Piece{Kind: Days, Sign: sign, Lo: DayOf(from), Hi: DayOf(to)}
	case levelMonth:
		return Piece{Kind: Months, Sign: sign, Lo: MonthOf(from), Hi: MonthOf(to)}
	}
	return Piece{Kind: Years, Sign: sign, Lo: YearOf(from), Hi: YearOf(to)}
}

// Plan returns the cheapest plan of [from, to), from before to.
func Plan(from, to time.Time, c Costs) []Piece {
	ps, _ := planLevel(from, to, levelInstant, c)
	return ps
}

// planLevel plans [from, to), whose ends are boundaries of level: as one
// piece of level, or as a plan of the next level between boundaries of it
// next to each end, with what lies between them and the ends added or
// subtracted as pieces of level.
func planLevel(from, to time.Time, level int, c Costs) ([]Piece, float64) {
	whole := span(level, 1, from, to)
	best, cost := []Piece{whole}, c.Of(whole)
	if level == levelYear {
		return best, cost
	}
	next := level + 1
	type end struct {
		at   time.Time
		side []Piece
	}
	ends := func(t time.Time, start bool) []end {
		lo, hi := floorAt(next, t), ceilAt(next, t)
		if lo.Equal(t) {
			return []end{{at: t}}
		}
		if start { // widen to lo and subtract [lo, t), or narrow to hi and add [t, hi)
			return []end{{lo, []Piece{span(level, -1, lo, t)}}, {hi, []Piece{span(level, 1, t, hi)}}}
		}
		return []end{{lo, []Piece{span(level, 1, lo, t)}}, {hi, []Piece{span(level, -1, t, hi)}}}
	}
	for _, a := range ends(from, true) {
		for _, b := range ends(to, false) {
			if !a.at.Before(b.at) {
				continue
			}
			inner, innerCost := planLevel(a.at, b.at, next, c)
			total := innerCost
			for _, p := range a.side {
				total += c.Of(p)
			}
			for _, p := range b.side {
				total += c.Of(p)
			}
			if total < cost {
				best = make([]Piece, 0, len(inner)+2)
				best = append(append(append(best, inner...), a.side...), b.side...)
				cost = total
			}
		}
	}
	return best, cost
}

// Clip narrows [start, end) (nil: unbounded) to the days that have
// confirmed rows, [firstDay, lastDay], without changing which rows it holds:
// an end beyond them moves to the coarsest boundary (year, month, day) still
// beyond them, so the range reads as few pieces as it can. coversAll reports
// that the range holds every dated row.
func Clip(start, end *time.Time, firstDay, lastDay int64) (from, to time.Time, coversAll bool) {
	lo, hi := DayStart(firstDay), DayStart(lastDay+1)
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
