package txbuild

import (
	"context"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// TestBuildListsBurns: each transaction lists what it burns, in includes'
// order, with the mint, raw amount, decimals and metadata discovery read: a
// token balance as read, a Core asset and a compressed NFT as 1 at 0
// decimals whatever the item says; a transaction of closes lists nothing
// and is not destructive.
func TestBuildListsBurns(t *testing.T) {
	t.Parallel()
	tok := token("t", 1_500_000)
	tok.Item.Name, tok.Item.Symbol = "USD Coin", "USDC"
	c := core("c", 2_900_000)
	c.Item.Amount, c.Item.Decimals, c.Item.Name = 0, 3, "Core One"
	items := []Selected{empty("e"), tok, c, cnftSelected("n")}
	res, err := NewBuilder(newFake(), WithCNFTPlanner(&fakePlanner{})).Build(context.Background(), Params{Wallet: wallet, Items: items, PriorityLevel: PriorityNone})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Burn{
		"t": {Mint: tok.Item.Mint, Amount: 1_500_000, Decimals: 6, Name: "USD Coin", Symbol: "USDC", Type: assets.TypeToken, Address: key("t")},
		"c": {Mint: key("c"), Amount: 1, Decimals: 0, Name: "Core One", Type: assets.TypeNFT, Address: key("c")},
		"n": {Mint: key("n"), Amount: 1, Decimals: 0, Type: assets.TypeCNFT, Address: key("n")},
	}
	seen := 0
	for _, tx := range res.Txs {
		var burned []Selected
		for _, s := range tx.Includes {
			if s.Action == assets.ActionBurn {
				burned = append(burned, s)
			}
		}
		if tx.Destructive() != (len(burned) > 0) || len(tx.Burns) != len(burned) {
			t.Fatalf("%s transaction: destructive %v, %d burns listed for %d burned items", tx.LedgerType, tx.Destructive(), len(tx.Burns), len(burned))
		}
		for i, b := range tx.Burns {
			var name string
			for n, w := range want {
				if w.Address == burned[i].Item.Address {
					name = n
				}
			}
			if b != want[name] {
				t.Errorf("burn of %q: %+v, want %+v", name, b, want[name])
			}
			seen++
		}
	}
	if seen != len(want) {
		t.Errorf("%d burns listed, want %d", seen, len(want))
	}
}
