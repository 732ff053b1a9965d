package metaplex

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// BurnV1 discriminators: the Burn instruction, then its V1 variant.
const (
	discriminatorBurn = 41
	burnArgsV1        = 0
)

// BurnV1 burns an NFT (any token standard) held by Authority and closes its
// accounts to Authority. Optional accounts are nil when absent; an absent
// account is passed as the program id (read-only), as Metaplex's clients do.
type BurnV1 struct {
	// Authority is the holder: signer, and where the rent goes.
	Authority solana.PublicKey
	// CollectionMetadata is the metadata of a verified collection: required
	// when the NFT's collection is verified (a sized collection's size is
	// decremented).
	CollectionMetadata *solana.PublicKey
	Metadata           solana.PublicKey
	// Edition is the NFT's master edition or, for a print, its edition.
	Edition solana.PublicKey
	Mint    solana.PublicKey
	// Token is the holder's token account.
	Token solana.PublicKey
	// For prints only: the parent master edition, its mint, a token account
	// holding it, and the edition marker of the print's number.
	MasterEdition      *solana.PublicKey
	MasterEditionMint  *solana.PublicKey
	MasterEditionToken *solana.PublicKey
	EditionMarker      *solana.PublicKey
	// TokenRecord of the token account: pNFTs only.
	TokenRecord *solana.PublicKey
	// TokenProgram owns Mint and Token: SPL Token or Token-2022.
	TokenProgram solana.PublicKey
	// Amount burned: 1 for every non-fungible standard.
	Amount uint64
}

// BurnAccounts are the accounts of an NFT's BurnV1 beyond its holder, mint,
// token account and token program: what discovery finds on the chain and
// the transaction builder passes on. The optional accounts are nil when
// absent.
type BurnAccounts struct {
	Standard TokenStandard
	Metadata solana.PublicKey
	// Edition is the master edition, or a print's edition.
	Edition            solana.PublicKey
	CollectionMetadata *solana.PublicKey
	TokenRecord        *solana.PublicKey
	MasterEdition      *solana.PublicKey
	MasterEditionMint  *solana.PublicKey
	MasterEditionToken *solana.PublicKey
	EditionMarker      *solana.PublicKey
}

// BurnV1 is the burn of one NFT (amount 1) of mint held in token by
// authority, with a's accounts.
func (a BurnAccounts) BurnV1(authority, mint, token, tokenProgram solana.PublicKey) BurnV1 {
	return BurnV1{
		Authority:          authority,
		CollectionMetadata: a.CollectionMetadata,
		Metadata:           a.Metadata,
		Edition:            a.Edition,
		Mint:               mint,
		Token:              token,
		MasterEdition:      a.MasterEdition,
		MasterEditionMint:  a.MasterEditionMint,
		MasterEditionToken: a.MasterEditionToken,
		EditionMarker:      a.EditionMarker,
		TokenRecord:        a.TokenRecord,
		TokenProgram:       tokenProgram,
		Amount:             1,
	}
}

// Instruction encodes b. Data: 41, 0, amount (u64 LE). Accounts, in order:
// authority (w, s), collection metadata (w), metadata (w), edition (w),
// mint (w), token (w), master edition (w), master edition mint, master
// edition token, edition marker (w), token record (w), system program,
// sysvar instructions, SPL token program.
func (b BurnV1) Instruction() solana.Instruction {
	data := binary.LittleEndian.AppendUint64([]byte{discriminatorBurn, burnArgsV1}, b.Amount)
	return solana.NewInstruction(ProgramID, solana.AccountMetaSlice{
		solana.Meta(b.Authority).WRITE().SIGNER(),
		optional(b.CollectionMetadata, true),
		solana.Meta(b.Metadata).WRITE(),
		solana.Meta(b.Edition).WRITE(),
		solana.Meta(b.Mint).WRITE(),
		solana.Meta(b.Token).WRITE(),
		optional(b.MasterEdition, true),
		optional(b.MasterEditionMint, false),
		optional(b.MasterEditionToken, false),
		optional(b.EditionMarker, true),
		optional(b.TokenRecord, true),
		solana.Meta(solana.SystemProgramID),
		solana.Meta(solana.SysVarInstructionsPubkey),
		solana.Meta(b.TokenProgram),
	}, data)
}

// optional is the meta of an optional account: the program id, read-only,
// when it is absent.
func optional(key *solana.PublicKey, writable bool) *solana.AccountMeta {
	if key == nil {
		return solana.Meta(ProgramID)
	}
	m := solana.Meta(*key)
	if writable {
		m.WRITE()
	}
	return m
}
