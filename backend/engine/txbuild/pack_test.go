package txbuild

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// fullParams has every instruction a transaction can carry: a price and both
// transfers.
func fullParams(items []Selected, headroom int) Params {
	return Params{
		Wallet: wallet, Items: items, DonationPercentage: 0.1, DonationWallet: &donee,
		ServiceFeeBPS: 500, Treasury: &treasury, PriorityLevel: PriorityMedium, HeadroomBytes: headroom,
	}
}

// size is the serialized size of the signed transaction holding items,
// compiled.
func (r *request) size(items []Selected) (int, error) {
	tx, _, err := assemble(r.Wallet, solana.Hash{}, items, r.sizingFrame())
	if err != nil {
		return 0, err
	}
	b, err := tx.MarshalBinary()
	if err != nil {
		return 0, fmt.Errorf("txbuild: serialize transaction: %w", err)
	}
	return len(b), nil
}

func empties(n int) []Selected {
	out := make([]Selected, n)
	for i := range out {
		out[i] = empty(fmt.Sprintf("empty %d", i))
	}
	return out
}

func mustCheck(t *testing.T, p Params) *request {
	t.Helper()
	r, err := p.check()
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	return r
}

func counts(bs []batch) []int {
	out := make([]int, len(bs))
	for i, b := range bs {
		out[i] = len(b.items)
	}
	return out
}

func packed(t *testing.T, p Params) []int {
	t.Helper()
	bs, err := mustCheck(t, p).pack(defaultLimits(p.HeadroomBytes))
	if err != nil {
		t.Fatalf("pack: %v", err)
	}
	return counts(bs)
}

// TestPackAtTheLimit sets the headroom so that 20 closures fill a transaction to
// the byte: they pack together, a 21st starts a second transaction, and one byte
// less of room pushes the 20th out.
func TestPackAtTheLimit(t *testing.T) {
	t.Parallel()
	items := empties(21)
	size, err := mustCheck(t, fullParams(items, 0)).size(items[:20])
	if err != nil {
		t.Fatal(err)
	}
	headroom := MaxTransactionSize - size
	t.Logf("20 closures: %d bytes; headroom %d", size, headroom)
	cases := []struct {
		name     string
		items    []Selected
		headroom int
		want     []int
	}{
		{"exactly at the limit", items[:20], headroom, []int{20}},
		{"one item more splits", items, headroom, []int{20, 1}},
		{"one byte less splits", items[:20], headroom + 1, []int{19, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := packed(t, fullParams(tc.items, tc.headroom)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("packed %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPackFillsTheSpace packs 100 closures with and without headroom: every
// transaction but the last is too full for one more item.
func TestPackFillsTheSpace(t *testing.T) {
	t.Parallel()
	items := empties(100)
	for _, headroom := range []int{0, 100, 200, 300} {
		t.Run(fmt.Sprintf("headroom %d", headroom), func(t *testing.T) {
			t.Parallel()
			t.Logf("headroom %d: %v", headroom, packedFull(t, items, headroom))
		})
	}
}

// packedFull packs items (of one type) with every frame instruction and
// headroom, checks every transaction stays within the limit and all but the
// last is too full for one more item, and returns their counts.
func packedFull(t *testing.T, items []Selected, headroom int) []int {
	t.Helper()
	r := mustCheck(t, fullParams(items, headroom))
	bs, err := r.pack(defaultLimits(headroom))
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	for i, b := range bs {
		next += len(b.items)
		size, _ := r.size(b.items)
		if size > MaxTransactionSize-headroom {
			t.Errorf("transaction %d is %d bytes, over %d", i, size, MaxTransactionSize-headroom)
		}
		if next < len(items) {
			if more, _ := r.size(append(b.items[:len(b.items):len(b.items)], items[next])); more <= MaxTransactionSize-headroom {
				t.Errorf("transaction %d (%d bytes) had room for another item (%d bytes)", i, size, more)
			}
		}
	}
	return counts(bs)
}

// TestPackGroupsByType keeps request order within each type and orders the types
// by first appearance.
func TestPackGroupsByType(t *testing.T) {
	t.Parallel()
	items := []Selected{nft("a"), empty("b"), token("c", 5), empty22("d"), nft("e"), token("f", 7)}
	bs, err := mustCheck(t, fullParams(items, 0)).pack(defaultLimits(0))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		typ   ledger.Type
		names []string
	}{
		{ledger.TypeNFTBurn, []string{"a", "e"}},
		{ledger.TypeTokenAccountClosure, []string{"b", "d"}},
		{ledger.TypeTokenBurn, []string{"c", "f"}},
	}
	if len(bs) != len(want) {
		t.Fatalf("%d transactions, want %d", len(bs), len(want))
	}
	for i, w := range want {
		if bs[i].ledgerType != w.typ || len(bs[i].items) != len(w.names) {
			t.Fatalf("transaction %d: %s with %d items, want %s with %d", i, bs[i].ledgerType, len(bs[i].items), w.typ, len(w.names))
		}
		for j, name := range w.names {
			if !bs[i].items[j].Item.Address.Equals(key(name)) {
				t.Errorf("transaction %d item %d is not %q", i, j, name)
			}
		}
	}
}

// TestPackComputeBudget splits on the compute estimate when it binds first.
func TestPackComputeBudget(t *testing.T) {
	t.Parallel()
	r := mustCheck(t, fullParams(empties(7), 0))
	bs, err := r.pack(limits{bytes: MaxTransactionSize, keys: 256, units: unitsFrame + 3*unitsClose})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(counts(bs)); got != "[3 3 1]" {
		t.Errorf("packed %s, want [3 3 1]", got)
	}
	burns := []Selected{token("x", 1), token("y", 1)}
	burns[1].Item.WithheldAmount = 10
	if got, want := estimateUnits(burns[0]), uint64(unitsClose+unitsBurn); got != want {
		t.Errorf("burn estimate %d, want %d", got, want)
	}
	if got, want := estimateUnits(burns[1]), uint64(unitsClose+unitsBurn+unitsHarvest); got != want {
		t.Errorf("harvest and burn estimate %d, want %d", got, want)
	}
	if lim := defaultLimits(0); uint64(computeLimit(lim.units)) >= MaxComputeUnits {
		t.Errorf("an estimate at the packing limit (%d) leaves no room for the margin", lim.units)
	}
}

// TestPackItemTooLarge refuses an item that fits no transaction.
func TestPackItemTooLarge(t *testing.T) {
	t.Parallel()
	_, err := mustCheck(t, fullParams(empties(1), 1000)).pack(defaultLimits(1000))
	var e *assets.ItemError
	if !errors.As(err, &e) || e.Item() != key("empty 0").String() {
		t.Fatalf("pack = %v, want an *assets.ItemError naming the item", err)
	}
}

// TestPackPrintsSharingAMarker: print editions sharing an edition marker
// pack as one unit at the place of the first of them (the last closes the
// marker only after the others burned); too many to fit one transaction
// are refused, naming the last.
func TestPackPrintsSharingAMarker(t *testing.T) {
	t.Parallel()
	printed := func(name, marker string) Selected {
		s := nft(name)
		m := key(marker)
		s.Item.Metaplex = &metaplex.BurnAccounts{Standard: metaplex.NonFungibleEdition, Metadata: key(name + " metadata"),
			Edition: key(name + " edition"), EditionMarker: &m}
		return s
	}
	items := []Selected{printed("a1", "marker a"), nft("x"), printed("b1", "marker b"), printed("a2", "marker a"), nft("y")}
	var got [][]solana.PublicKey
	for _, u := range packUnits(items) {
		var unit []solana.PublicKey
		for _, s := range u {
			unit = append(unit, s.Item.Address)
		}
		got = append(got, unit)
	}
	want := [][]solana.PublicKey{{key("a1"), key("a2")}, {key("x")}, {key("b1")}, {key("y")}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("units %v, want %v", got, want)
	}
	many := make([]Selected, 12)
	for i := range many {
		many[i] = printed(fmt.Sprintf("p%d", i), "one marker")
	}
	_, err := mustCheck(t, fullParams(many, 0)).pack(defaultLimits(0))
	var e *assets.ItemError
	if !errors.As(err, &e) || e.Address != many[11].Item.Address.String() {
		t.Fatalf("err = %v, want an *assets.ItemError naming the last print", err)
	}
}
