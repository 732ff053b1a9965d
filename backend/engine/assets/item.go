package assets

import (
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
)

// Collection names an NFT's collection.
type Collection struct {
	Address string
	Name    string
}

// Item is one reclaimable item of a wallet, with the on-chain state the
// transaction builder needs.
type Item struct {
	// Type is one of ItemTypes.
	Type ItemType
	// Address is the token account (what an ItemSelection names).
	Address solana.PublicKey
	// Owner is the token account's owner (the wallet).
	Owner solana.PublicKey
	// Mint of the token account.
	Mint solana.PublicKey
	// TokenProgram owns the account: SPL Token or Token-2022.
	TokenProgram solana.PublicKey
	// Name, Symbol and URI come from on-chain metadata (Metaplex Token
	// Metadata, or Token-2022's metadata extension); "" when there is none,
	// except wrapped SOL, which is "Wrapped SOL" ("SOL") without metadata.
	Name, Symbol, URI string
	// ImageURI is from the metadata JSON behind URI; "" when unknown.
	ImageURI string
	// Lamports the item's reclaim returns to the wallet, read from the chain:
	// for a token account its lamports (what closing it returns); for a
	// Metaplex NFT burned with Token Metadata (Metaplex set), the refund of
	// every account BurnV1 closes (see metaplex.Refund); for an MPL Core
	// asset, what BurnV1 moves out of it (see mplcore.Refund).
	Lamports uint64
	// Rent is the part of Lamports that is rent, the base of a donation
	// and a service fee (rent.go): an account closed or emptied returns its
	// rent-exempt minimum under the cluster's current Rent sysvar, capped
	// by its lamports, and the rest is the wallet's own balance (wrapped
	// SOL, a stake account's principal, a buffer's or nonce's balance above
	// its rent); excess rent withdrawn and Metaplex and Core refunds are all
	// rent; a compressed NFT returns nothing.
	Rent uint64
	// Decimals of the mint.
	Decimals uint8
	// Amount is the raw token balance.
	Amount uint64
	// UIBalance is Amount in display units.
	UIBalance float64
	// USDValue of the balance; nil when no price is known.
	USDValue *float64
	// Collection of an NFT; nil when none.
	Collection *Collection
	// IsFrozen is true when the account is frozen.
	IsFrozen bool
	// IsNative is true for a wrapped SOL account: closing it returns its
	// whole balance, and it has no tokens to burn.
	IsNative bool
	// WithheldAmount is the Token-2022 transfer fee withheld in the account;
	// it must be harvested to the mint before the account can close.
	WithheldAmount uint64
	// HasCloseAuthority is true when a close authority other than the owner
	// is set: then the owner cannot close the account.
	HasCloseAuthority bool
	// Actions the token program would accept from the owner now.
	Actions []Action
	// Metaplex is set on an NFT that Token Metadata's BurnV1 burns (it has a
	// master or print edition): the accounts the burn needs beyond the token
	// account; nil for items the token program burns.
	Metaplex *metaplex.BurnAccounts
	// Core is set on an MPL Core asset (Address is the asset, TokenProgram
	// the Core program, Mint the asset too): the accounts its BurnV1 needs
	// beyond the asset; nil otherwise.
	Core *mplcore.BurnAccounts
	// LookupTable is set on a lookup_table item: its status and, while it
	// is deactivating, when it becomes closable.
	LookupTable *LookupTable
}
