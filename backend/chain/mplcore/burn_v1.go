package mplcore

import (
	"github.com/gagliardetto/solana-go"
)

// discriminatorBurnV1 is BurnV1's instruction index.
const discriminatorBurnV1 = 12

// BurnV1 burns an uncompressed asset. Payer signs, pays and receives the
// refund; with no separate Authority the program takes the payer as the
// authority, which must be the owner (or a burn delegate).
type BurnV1 struct {
	Asset solana.PublicKey
	// Collection of the asset; nil when it has none.
	Collection *solana.PublicKey
	Payer      solana.PublicKey
}

// BurnAccounts are the accounts of an asset's BurnV1 beyond the asset and
// its payer: what discovery finds on the chain and the transaction builder
// passes on.
type BurnAccounts struct {
	// Collection of the asset; nil when it has none.
	Collection *solana.PublicKey
}

// BurnV1 is the burn of asset by its owner payer, with a's accounts.
func (a BurnAccounts) BurnV1(asset, payer solana.PublicKey) BurnV1 {
	return BurnV1{Asset: asset, Collection: a.Collection, Payer: payer}
}

// Instruction encodes b. Data: 12, then compression_proof None (0).
// Accounts, in order: asset (w), collection (w), payer (w, s), authority,
// system program, log wrapper; the absent optional accounts (collection
// when nil, authority, system program and log wrapper: none is needed to
// burn an uncompressed asset) are the program id, read-only, as Metaplex's
// clients pass them.
func (b BurnV1) Instruction() solana.Instruction {
	collection := solana.Meta(ProgramID)
	if b.Collection != nil {
		collection = solana.Meta(*b.Collection).WRITE()
	}
	return solana.NewInstruction(ProgramID, solana.AccountMetaSlice{
		solana.Meta(b.Asset).WRITE(),
		collection,
		solana.Meta(b.Payer).WRITE().SIGNER(),
		solana.Meta(ProgramID),
		solana.Meta(ProgramID),
		solana.Meta(ProgramID),
	}, []byte{discriminatorBurnV1, 0})
}
