package txbuild

import (
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/assets"
	"github.com/reclaim-sol/reclaim/backend/metaplex"
	"github.com/reclaim-sol/reclaim/backend/mplcore"
)

// The extension point for items that programs other than the token programs
// burn: discovery marks them (assets.Item.Metaplex, assets.Item.Core) with
// the accounts the burn needs, and sets Item.Lamports to exactly what the
// burn returns to the wallet, so the money rules hold unchanged. A new
// program adds a field to assets.Item, a case here and in itemInstructions,
// and an estimate in estimateUnits.

// Compute estimates of the Metaplex burns while packing (see pack.go): a
// Token Metadata BurnV1 runs the token program two or three times (thaw,
// burn, close) and closes up to four accounts; Core's BurnV1 validates the
// asset's plugins and shrinks it.
const (
	unitsMetaplexBurn = 150_000
	unitsCoreBurn     = 50_000
)

// metaplexBurn is Token Metadata's BurnV1 of an NFT held by wallet.
func metaplexBurn(it assets.Item, wallet solana.PublicKey) solana.Instruction {
	m := it.Metaplex
	return metaplex.BurnV1{
		Authority:          wallet,
		CollectionMetadata: m.CollectionMetadata,
		Metadata:           m.Metadata,
		Edition:            m.Edition,
		Mint:               it.Mint,
		Token:              it.Address,
		MasterEdition:      m.MasterEdition,
		MasterEditionMint:  m.MasterEditionMint,
		MasterEditionToken: m.MasterEditionToken,
		EditionMarker:      m.EditionMarker,
		TokenRecord:        m.TokenRecord,
		TokenProgram:       it.TokenProgram,
		Amount:             1,
	}.Instruction()
}

// coreBurn is MPL Core's BurnV1 of an asset owned by wallet, which pays and
// receives the refund.
func coreBurn(it assets.Item, wallet solana.PublicKey) solana.Instruction {
	return mplcore.BurnV1{Asset: it.Address, Collection: it.Core.Collection, Payer: wallet}.Instruction()
}
