package txbuild

import (
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/assets"
	"github.com/reclaim-sol/reclaim/backend/ledger"
)

// Compute estimates used while packing, before simulation measures the real
// figure. On the e2e validator a transaction of 21 Token closures consumed
// 5,887 units, 19 closures mostly of Token-2022 accounts 21,658, and 4 burns
// with a harvest 10,630: a few hundred to about 2,000 units an item. The
// estimates are several times that, so the simulated need plus its margin fits
// the limit packing allowed for; at 1232 bytes they never bind in practice.
const (
	unitsFrame   = 2_000  // compute budget and transfer instructions
	unitsClose   = 10_000 // CloseAccount, Token or Token-2022
	unitsBurn    = 15_000 // BurnChecked
	unitsHarvest = 20_000 // HarvestWithheldTokensToMint, one account
)

// batch is the items of one transaction.
type batch struct {
	ledgerType ledger.Type
	items      []Selected
}

// limits bound one transaction while packing.
type limits struct {
	bytes int    // serialized signed size
	units uint64 // estimated compute units
}

// defaultLimits leave room for the compute margin (10% + 1,000) on top of an
// estimate, and for the caller's headroom bytes.
func defaultLimits(headroom int) limits {
	return limits{bytes: MaxTransactionSize - headroom, units: (MaxComputeUnits-1_000)*10/11 - 1}
}

// frame is what surrounds the items of a transaction: the compute budget
// instructions before them, the transfers after.
type frame struct {
	units      uint32
	price      uint64 // micro-lamports; 0 leaves out SetComputeUnitPrice
	donation   uint64 // 0 leaves out the donation transfer
	donationTo solana.PublicKey
	fee        uint64 // 0 leaves out the service fee transfer
	treasury   solana.PublicKey
}

// assemble compiles the v0 transaction for items within f, with one zeroed
// signature slot. owners[i] is the index in items of instruction i's item,
// -1 for the frame's instructions.
func assemble(wallet solana.PublicKey, blockhash solana.Hash, items []Selected, f frame) (*solana.Transaction, []int, error) {
	ixs := []solana.Instruction{setComputeUnitLimit(f.units)}
	owners := []int{-1}
	if f.price > 0 {
		ixs = append(ixs, setComputeUnitPrice(f.price))
		owners = append(owners, -1)
	}
	for i, s := range items {
		for _, ix := range itemInstructions(s, wallet) {
			ixs = append(ixs, ix)
			owners = append(owners, i)
		}
	}
	if f.donation > 0 {
		ixs = append(ixs, transfer(wallet, f.donationTo, f.donation))
		owners = append(owners, -1)
	}
	if f.fee > 0 {
		ixs = append(ixs, transfer(wallet, f.treasury, f.fee))
		owners = append(owners, -1)
	}
	tx, err := solana.NewTransaction(ixs, blockhash, solana.TransactionPayer(wallet))
	if err != nil {
		return nil, nil, fmt.Errorf("txbuild: compile transaction: %w", err)
	}
	tx.Message.SetVersion(solana.MessageVersionV0)
	tx.Signatures = make([]solana.Signature, tx.Message.Header.NumRequiredSignatures)
	return tx, owners, nil
}

// sizingFrame has every instruction a transaction of r can have, with
// placeholder values of the final encoded size.
func (r *request) sizingFrame() frame {
	f := frame{units: MaxComputeUnits}
	if r.percentile > 0 {
		f.price = 1
	}
	if r.donation.Sign() > 0 {
		f.donation, f.donationTo = 1, *r.DonationWallet
	}
	if r.ServiceFeeBPS > 0 {
		f.fee, f.treasury = 1, *r.Treasury
	}
	return f
}

// size is the serialized size of the signed transaction holding items.
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

// estimateUnits is the compute estimate of one item's instructions.
func estimateUnits(s Selected) uint64 {
	switch {
	case s.Item.Type == assets.TypeCNFT:
		return unitsBubblegumBurn
	case s.Item.Core != nil:
		return unitsCoreBurn
	case s.Item.Metaplex != nil && s.Action == assets.ActionBurn:
		u := uint64(unitsMetaplexBurn)
		if s.Item.WithheldAmount > 0 {
			u += unitsHarvest
		}
		return u
	}
	u := uint64(unitsClose)
	if s.Item.WithheldAmount > 0 {
		u += unitsHarvest
	}
	if s.Action == assets.ActionBurn && !s.Item.IsNative {
		u += unitsBurn
	}
	return u
}

// pack groups the items by ledger type, in order of first appearance, and
// fills transactions greedily in request order within each group: a unit
// (an item, or the prints sharing an edition marker: see packUnits) joins
// the current transaction if the transaction still fits lim with it, and
// otherwise starts the next one.
func (r *request) pack(lim limits) ([]batch, error) {
	var order []ledger.Type
	groups := map[ledger.Type][]Selected{}
	for i, s := range r.Items {
		t := r.types[i]
		if _, ok := groups[t]; !ok {
			order = append(order, t)
		}
		groups[t] = append(groups[t], s)
	}
	var out []batch
	for _, t := range order {
		var cur []Selected
		var units uint64
		for _, u := range packUnits(groups[t]) {
			var est uint64
			for _, s := range u {
				est += estimateUnits(s)
			}
			if len(cur) > 0 {
				next := append(slices.Clip(cur), u...) // a copy: cur stays as it is if next does not fit
				ok, err := r.fits(next, units+est, lim)
				if err != nil {
					return nil, err
				}
				if ok {
					cur, units = next, units+est
					continue
				}
				out = append(out, batch{ledgerType: t, items: cur})
			}
			cur, units = u, unitsFrame+est
			ok, err := r.fits(cur, units, lim)
			if err != nil {
				return nil, err
			}
			if !ok && len(u) == 1 {
				return nil, itemError(u[0].Item.Address, "does not fit alone in a transaction of %d bytes and %d compute units", lim.bytes, lim.units)
			}
			if !ok {
				return nil, itemError(u[len(u)-1].Item.Address, "%d selected print editions share the edition marker %s, so they burn in one transaction, and they do not fit one of %d bytes and %d compute units: select fewer of them at once",
					len(u), u[0].Item.Metaplex.EditionMarker, lim.bytes, lim.units)
			}
		}
		out = append(out, batch{ledgerType: t, items: cur})
	}
	return out, nil
}

// packUnits splits the items of a ledger group into packing units, in
// order: an item alone, or the print editions sharing an edition marker,
// together in their order at the place of the first of them. Their burns
// must land in one transaction: the last of them closes the marker when
// they clear its every bit, and its refund counts the marker's lamports
// (metaplex.BurnPlan.Together); in two transactions either could land last.
func packUnits(items []Selected) [][]Selected {
	var units [][]Selected
	at := map[solana.PublicKey]int{}
	for _, s := range items {
		if m := s.Item.Metaplex; m != nil && m.EditionMarker != nil && s.Action == assets.ActionBurn {
			if i, ok := at[*m.EditionMarker]; ok {
				units[i] = append(units[i], s)
				continue
			}
			at[*m.EditionMarker] = len(units)
		}
		units = append(units, []Selected{s})
	}
	return units
}

func (r *request) fits(items []Selected, units uint64, lim limits) (bool, error) {
	if units > lim.units {
		return false, nil
	}
	n, err := r.size(items)
	if err != nil {
		return false, err
	}
	return n <= lim.bytes, nil
}
