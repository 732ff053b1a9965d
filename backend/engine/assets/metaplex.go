package assets

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
)

// Metaplex NFTs. An nft item whose mint has Metaplex metadata and a master or
// print edition is burned with Token Metadata's BurnV1 (package metaplex
// plans it: which accounts, what refund, whether the program would accept
// it now). Such items get Metaplex set, Lamports is the whole refund
// (unless the metadata cannot pay its rent back: then the burn would fail
// and Lamports stays the token account's), and burn is their one action
// when the program would accept it. Discovery only reads: the keys the
// planner lists join its own chunked reads.

// planMetaplex lists the nft items (not Core assets) whose BurnV1 to plan,
// and where each is in items.
func planMetaplex(items []Item, mints map[solana.PublicKey]mintInfo, metadataRead bool) (metaplex.BurnPlan, []int) {
	var nfts []metaplex.NFT
	var at []int
	for i, it := range items {
		if it.Type != TypeNFT || it.Core != nil {
			continue
		}
		nfts = append(nfts, metaplex.NFT{Holding: holdingOf(it), Metadata: mints[it.Mint].metaplex})
		at = append(at, i)
	}
	return metaplex.PlanBurns(nfts, metadataRead), at
}

// applyBurns sets Metaplex, Lamports and Actions on the items the plan
// burns, from accs (aligned with plan.Keys); at maps the plan's NFTs to
// items. Print editions' masters are looked for among items first.
func (d *Discoverer) applyBurns(ctx context.Context, plan metaplex.BurnPlan, at []int, accs []*rpc.Account, items []Item) error {
	if len(plan.Keys) == 0 {
		return nil
	}
	holdings := make([]metaplex.Holding, len(items))
	for i, it := range items {
		holdings[i] = holdingOf(it)
	}
	burns, err := plan.Burns(ctx, accs, holdings, burnReader{d})
	if err != nil {
		return err
	}
	for k, b := range burns {
		if b == nil {
			continue
		}
		it := &items[at[k]]
		it.Metaplex, it.Actions = &b.Accounts, []Action{}
		if b.Refundable {
			it.Lamports, it.Rent = b.Refund, b.Refund
		}
		if b.Burnable {
			it.Actions = append(it.Actions, ActionBurn)
		}
	}
	return nil
}

// holdingOf is a token account item as the burn planner sees it.
func holdingOf(it Item) metaplex.Holding {
	return metaplex.Holding{
		Token: it.Address, Mint: it.Mint, Owner: it.Owner, Lamports: it.Lamports, Amount: it.Amount,
		Frozen: it.IsFrozen, ForeignCloseAuthority: it.HasCloseAuthority,
	}
}

// burnReader reads for the burn planner through the Discoverer's chunked
// reads; it is a metaplex.Reader.
type burnReader struct{ d *Discoverer }

// Accounts implements metaplex.Reader with the chunked reads of discovery.
func (r burnReader) Accounts(ctx context.Context, keys []solana.PublicKey) ([]*rpc.Account, error) {
	return r.d.accounts(ctx, keys)
}

// Holdings implements metaplex.Reader: the wallet's token accounts, both
// token programs.
func (r burnReader) Holdings(ctx context.Context, owner solana.PublicKey) ([]metaplex.Holding, error) {
	owned, err := r.d.ownedTokenAccounts(ctx, owner)
	if err != nil {
		return nil, err
	}
	out := make([]metaplex.Holding, len(owned))
	for i, a := range owned {
		out[i] = metaplex.Holding{
			Token: a.address, Mint: a.state.Mint, Owner: a.state.Owner, Lamports: a.lamports, Amount: a.state.Amount,
			Frozen: a.state.Frozen, ForeignCloseAuthority: a.state.ForeignCloseAuthority(),
		}
	}
	return out, nil
}
