package txbuild

import (
	"context"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/cnft"
)

// TestErrorsNameTheItemsPosition: an *assets.ItemError about one item carries its
// position in Params.Items, from every stage that can refuse one (the
// checks, cNFT planning, packing, the money, the simulation), so a caller
// names the selection without looking its address up.
func TestErrorsNameTheItemsPosition(t *testing.T) {
	t.Parallel()
	frozen := token("frozen", 5)
	frozen.Item.IsFrozen = true
	dust := empty("dust")
	dust.Item.Lamports = 5_000
	cases := []struct {
		name    string
		items   []Selected
		planner CNFTPlanner
		fake    func(*fakeRPC)
		index   int
		item    solana.PublicKey
	}{
		{name: "selected twice", items: []Selected{empty("a"), empty("b"), empty("a")}, index: 2, item: key("a")},
		{name: "check refuses", items: []Selected{empty("a"), empty("b"), frozen}, index: 2, item: key("frozen")},
		{name: "no planner", items: []Selected{empty("a"), cnftSelected("c1")}, index: 1, item: key("c1")},
		{
			name: "planner refuses", items: []Selected{empty("a"), cnftSelected("c1"), cnftSelected("c2")},
			planner: &fakePlanner{refuse: map[solana.PublicKey]string{key("c2"): cnft.ReasonFrozen}}, index: 2, item: key("c2"),
		},
		{
			name: "does not fit alone", items: []Selected{empty("a"), cnftSelected("c1"), cnftSelected("c2")},
			planner: &fakePlanner{proof: map[solana.PublicKey]int{key("c2"): 30}}, index: 2, item: key("c2"),
		},
		{name: "costs more than it returns", items: []Selected{token("t", 5), dust}, index: 1, item: key("dust")}, // alone in its transaction
		{
			name: "simulation", items: []Selected{core("a", 2_900_000), core("b", 2_900_000)}, index: 1, item: key("b"),
			fake: failSimulation(map[string]any{"InstructionError": []any{float64(4), map[string]any{"Custom": float64(11)}}}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake()
			if tc.fake != nil {
				tc.fake(f)
			}
			var opts []Option
			if tc.planner != nil {
				opts = append(opts, WithCNFTPlanner(tc.planner))
			}
			_, err := NewBuilder(f, opts...).Build(context.Background(), fullParams(tc.items, 0))
			var e *assets.ItemError
			if !errors.As(err, &e) || e.Item() != tc.item.String() || e.Index != tc.index {
				t.Fatalf("err = %v (index %d), want an *assets.ItemError naming %s at index %d", err, indexOf(e), tc.item, tc.index)
			}
		})
	}
}

func indexOf(e *assets.ItemError) int {
	if e == nil {
		return -1
	}
	return e.Index
}
