package ranking

import (
	"context"
	"testing"
)

// A range that ends before it starts holds no row, as in SQL: its page is
// empty, whether the rows are read one by one or from checkpoints, never
// a slice out of range (a panic on the request's goroutine).
func TestRankingsReversedRange(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	var rows []fakeRow
	for i := range 400 {
		rows = append(rows, fakeRow{payer: "w" + string(rune('a'+i%26)), typ: slots[i%3], at: int64(i), gross: 100})
	}
	src.add("prj_1", rows...)
	for _, every := range []int{0, 50} {
		rs := New(src)
		rs.Tune(Tuning{Inline: true, Every: every})
		for _, rng := range [][2]int64{{300, 100}, {399, 0}, {1000, -1000}, {101, 100}} {
			payers, gross, ok, err := rs.Page(context.Background(), "prj_1", rng[0], rng[1], "", 0, 10)
			if err != nil || !ok || payers != nil || gross != nil {
				t.Errorf("every %d, [%d, %d): %v %v, ok %v, %v; want an empty page", every, rng[0], rng[1], payers, gross, ok, err)
			}
		}
		rs.Stop()
	}
}
