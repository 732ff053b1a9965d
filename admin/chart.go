package admin

import (
	"strconv"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// chart is the daily history drawn as two server-rendered SVG bar charts.
type chart struct {
	Days []ledger.DailyTotal
}

// newChart spreads totals over n days from from (days without entries are
// zero).
func newChart(from time.Time, n int, totals []ledger.DailyTotal) chart {
	byDay := make(map[time.Time]ledger.DailyTotal, len(totals))
	for _, t := range totals {
		byDay[t.Day.UTC()] = t
	}
	c := chart{Days: make([]ledger.DailyTotal, n)}
	for i := range n {
		d := from.AddDate(0, 0, i)
		t := byDay[d]
		t.Day = d
		c.Days[i] = t
	}
	return c
}

// The SVG's coordinate space; it scales to the width of its container.
const (
	chartW      = 600.0
	chartH      = 140.0
	chartLabelH = 18.0
)

// bar is one day's rectangle.
type bar struct {
	X, Y, W, H string
	Title      string
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// bars lays out one bar per day of value(day), scaled to the largest.
func (c chart) bars(value func(ledger.DailyTotal) int64, label func(ledger.DailyTotal) string) []bar {
	var top int64
	for _, d := range c.Days {
		top = max(top, value(d))
	}
	slot := chartW / float64(len(c.Days))
	plotH := chartH - chartLabelH
	out := make([]bar, len(c.Days))
	for i, d := range c.Days {
		h := 0.0
		if top > 0 {
			h = plotH * float64(value(d)) / float64(top)
		}
		if value(d) > 0 && h < 1 {
			h = 1 // a day with activity is never invisible
		}
		out[i] = bar{
			X: ftoa(float64(i)*slot + slot*0.15), W: ftoa(slot * 0.7),
			Y: ftoa(plotH - h), H: ftoa(h),
			Title: d.Day.Format("Jan 2") + ": " + label(d),
		}
	}
	return out
}

func (c chart) grossBars() []bar {
	return c.bars(func(d ledger.DailyTotal) int64 { return d.GrossRebate },
		func(d ledger.DailyTotal) string { return sol(d.GrossRebate) + " SOL" })
}

func (c chart) countBars() []bar {
	return c.bars(func(d ledger.DailyTotal) int64 { return d.TransactionCount },
		func(d ledger.DailyTotal) string { return count(d.TransactionCount) + " transactions" })
}

// empty reports whether no day has a confirmed transaction.
func (c chart) empty() bool {
	for _, d := range c.Days {
		if d.TransactionCount > 0 {
			return false
		}
	}
	return true
}

// axis returns the labels under the first, middle and last day.
func (c chart) axis() []struct{ X, Anchor, Text string } {
	n := len(c.Days)
	if n == 0 {
		return nil
	}
	slot := chartW / float64(n)
	at := func(i int, anchor string) struct{ X, Anchor, Text string } {
		x := float64(i)*slot + slot/2
		switch anchor {
		case "start":
			x = 0
		case "end":
			x = chartW
		}
		return struct{ X, Anchor, Text string }{ftoa(x), anchor, c.Days[i].Day.Format("Jan 2")}
	}
	return []struct{ X, Anchor, Text string }{at(0, "start"), at(n/2, "middle"), at(n-1, "end")}
}

func (c chart) totalGross() int64 {
	var s int64
	for _, d := range c.Days {
		s += d.GrossRebate
	}
	return s
}

func (c chart) totalCount() int64 {
	var s int64
	for _, d := range c.Days {
		s += d.TransactionCount
	}
	return s
}
