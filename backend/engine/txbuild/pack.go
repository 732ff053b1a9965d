package txbuild

import (
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
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
	keys  int    // distinct addresses
	units uint64 // estimated compute units
}

// String words the limits for an item that does not fit them.
func (l limits) String() string {
	if l.keys < 256 {
		return fmt.Sprintf("%d bytes, %d addresses and %d compute units", l.bytes, l.keys, l.units)
	}
	return fmt.Sprintf("%d bytes and %d compute units", l.bytes, l.units)
}

// defaultLimits leave room for the compute margin (10% + 1,000) on top of an
// estimate, and for the caller's headroom bytes. A v0 transaction's keys
// are bounded by its bytes alone (its one-byte indexes allow 256 keys, more
// than 1,232 bytes hold).
func defaultLimits(headroom int) limits {
	return limits{bytes: MaxTransactionSize - headroom, keys: 256, units: (MaxComputeUnits-1_000)*10/11 - 1}
}

// frame is what surrounds the items of a transaction: the compute budget
// instructions before them, the transfers after.
type frame struct {
	// v1 leaves out the compute limit and price: a v1 message states them
	// in its config (v1.go).
	v1         bool
	units      uint32
	price      uint64 // micro-lamports; 0 leaves out SetComputeUnitPrice
	donation   uint64 // 0 leaves out the donation transfer
	donationTo solana.PublicKey
	fee        uint64 // 0 leaves out the service fee transfer
	treasury   solana.PublicKey
	// ref is the transaction's reference key (reference.go), the account
	// of the frame's last budget instruction; zero leaves it out.
	ref solana.PublicKey
}

// assemble compiles the v0 transaction for items within f, with one zeroed
// signature slot. owners[i] is the index in items of instruction i's item,
// -1 for the frame's instructions.
func assemble(wallet solana.PublicKey, blockhash solana.Hash, items []Selected, f frame) (*solana.Transaction, []int, error) {
	ixs, owners := instructionsOf(wallet, items, f)
	tx, err := compile(ixs, blockhash, wallet)
	if err != nil {
		return nil, nil, err
	}
	tx.Message.SetVersion(solana.MessageVersionV0)
	tx.Signatures = make([]solana.Signature, tx.Message.Header.NumRequiredSignatures)
	return tx, owners, nil
}

// instructionsOf are the instructions of a transaction of items within f,
// in order; owners[i] is the index in items of instruction i's item, -1
// for the frame's instructions.
func instructionsOf(wallet solana.PublicKey, items []Selected, f frame) (ixs []solana.Instruction, owners []int) {
	ixs = f.budget()
	owners = make([]int, len(ixs))
	for i := range owners {
		owners[i] = -1
	}
	for i, s := range items {
		for _, ix := range itemInstructions(s, wallet) {
			ixs = append(ixs, ix)
			owners = append(owners, i)
		}
	}
	for _, ix := range f.transfers(wallet) {
		ixs = append(ixs, ix)
		owners = append(owners, -1)
	}
	return ixs, owners
}

// budget are the frame's instructions before the items: the compute limit
// (always first) and the price when not 0, both left out of v1, and the
// reference key's instruction.
func (f frame) budget() []solana.Instruction {
	var ixs []solana.Instruction
	if !f.v1 {
		ixs = append(ixs, setComputeUnitLimit(f.units))
		if f.price != 0 {
			ixs = append(ixs, setComputeUnitPrice(f.price))
		}
	}
	if !f.ref.IsZero() && !f.refOnTransfer() {
		ixs = append(ixs, referenceInstruction(f.ref))
	}
	return ixs
}

// refOnTransfer reports whether the reference key rides on the first
// transfer, as Solana Pay's references do, read-only: in v1, where it saves
// the Compute Budget program's address (v1.go).
func (f frame) refOnTransfer() bool {
	return f.v1 && !f.ref.IsZero() && (f.donation > 0 || f.fee > 0)
}

// transfers are the frame's instructions after the items: the donation and
// the service fee, when not 0.
func (f frame) transfers(wallet solana.PublicKey) []solana.Instruction {
	var ixs []solana.Instruction
	var refs []solana.PublicKey
	if f.refOnTransfer() {
		refs = []solana.PublicKey{f.ref}
	}
	if f.donation > 0 {
		ixs = append(ixs, transfer(wallet, f.donationTo, f.donation, refs...))
		refs = nil
	}
	if f.fee > 0 {
		ixs = append(ixs, transfer(wallet, f.treasury, f.fee, refs...))
	}
	return ixs
}

// frameInstructions are every instruction of f, before and after the items.
func (r *request) frameInstructions(f frame) []solana.Instruction {
	return append(f.budget(), f.transfers(r.Wallet)...)
}

// sizingFrame has every instruction a transaction of r can have, with
// placeholder values of the final encoded size.
func (r *request) sizingFrame() frame {
	f := frame{v1: r.v1(), units: MaxComputeUnits, ref: sizingReference}
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

// estimateUnits is the compute estimate of one item's instructions.
func estimateUnits(s Selected) uint64 {
	switch {
	case s.Item.Type == assets.TypeCNFT:
		return unitsBubblegumBurn
	case s.Item.Type == assets.TypeExcessRent:
		return unitsWithdrawExcess
	case s.Item.Type == assets.TypeProgramBuffer:
		return unitsBufferClose
	case s.Item.Type == assets.TypeNonceAccount:
		return unitsNonceWithdraw
	case s.Item.Type == assets.TypeStakeAccount:
		return unitsStakeWithdraw
	case s.Item.Type == assets.TypeLookupTable:
		return unitsTable
	case s.Item.Type == assets.TypeMint:
		return unitsMintClose
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
// otherwise starts the next one. Sizes are counted (sizer), not compiled.
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
	frame := r.newSizer()
	frame.add(r.frameInstructions(r.sizingFrame()))
	var out []batch
	for _, t := range order {
		var cur []Selected
		var units uint64
		var size *sizer
		for _, u := range packUnits(groups[t]) {
			var est uint64
			var ixs []solana.Instruction
			for _, s := range u {
				est += estimateUnits(s)
				ixs = append(ixs, itemInstructions(s, r.Wallet)...)
			}
			if len(cur) > 0 {
				if bytes, keys := size.sizeWith(ixs); units+est <= lim.units && bytes <= lim.bytes && keys <= lim.keys {
					cur, units = append(cur, u...), units+est
					size.add(ixs)
					continue
				}
				out = append(out, batch{ledgerType: t, items: cur})
			}
			cur, units, size = slices.Clip(u), unitsFrame+est, frame.clone()
			size.add(ixs)
			if bytes, keys := size.size(); units <= lim.units && bytes <= lim.bytes && keys <= lim.keys {
				continue
			}
			if len(u) == 1 {
				return nil, itemError(u[0], "does not fit alone in a transaction of %s", lim)
			}
			return nil, itemError(u[len(u)-1], "%d selected print editions share the edition marker %s, so they burn in one transaction, and they do not fit one of %s: select fewer of them at once",
				len(u), u[0].Item.Metaplex.EditionMarker, lim)
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
