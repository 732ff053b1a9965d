package assets

import (
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/rent"
)

// The rent an item returns (Item.Rent), apart from the wallet's own
// balance that comes back with it. An account's rent is its rent-exempt
// minimum for its data size under the Rent sysvar read now, capped by its
// lamports: a wrapped SOL account's balance, a stake account's principal,
// a nonce or buffer's lamports above their minimum are the wallet's own
// SOL. An excess rent withdrawal is all rent, as are the refunds of
// Metaplex and Core burns (rent-exempt minimums); a compressed NFT returns
// nothing. A cluster that does not serve the Rent sysvar is taken to have
// rent.Default, as the Metaplex and Core refunds are.

// rentSysvar is the Rent the state read, or rent.Default.
func (st clusterState) rentSysvar() rent.Sysvar {
	if st.hasRent {
		return st.rent
	}
	return rent.Default
}

// rentOf is the rent of it, an account of size bytes of data.
func rentOf(it Item, size uint64, r rent.Sysvar) uint64 {
	switch {
	case it.Type == TypeCNFT:
		return 0
	case it.Type == TypeExcessRent || it.Metaplex != nil || it.Core != nil:
		return it.Lamports
	}
	return min(it.Lamports, r.MinimumBalance(size))
}

// accountSize is the size of a's data: its space when the node says it
// (a scan slices a buffer's data), else the data's length.
func accountSize(a *rpc.Account) uint64 {
	if a.Space > 0 {
		return a.Space
	}
	return uint64(len(data(a)))
}

// withRent sets the Rent of token account items, index-aligned with owned.
func withRent(items []Item, owned []ownedAccount, r rent.Sysvar) {
	for i := range items {
		items[i].Rent = rentOf(items[i], owned[i].size, r)
	}
}
