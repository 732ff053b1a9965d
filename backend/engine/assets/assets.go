// Package assets discovers the reclaimable items of a wallet on the cluster:
// its token accounts under SPL Token and Token-2022, their mints and on-chain
// metadata, classified as the contract's WalletItemTypes with the actions the
// token program would accept. It reads the cluster through the small RPC
// interface it declares; it knows nothing of HTTP or storage.
//
// Reads are batched: one getTokenAccountsByOwner per token program, then
// getMultipleAccounts in chunks of 100 keys for the mints (those an item
// needs: mints.go) together with their Metaplex metadata PDAs, and one more
// chunked read for the metadata of NFT collections. The number of calls grows with ceil(accounts / 100), never with
// the number of accounts. Calls that do not depend on each other go out
// together (both getTokenAccountsByOwner, every chunk of a read, the
// Sources), each waiting for a slot of the request's rpclimit.Limit, so a
// listing costs two round trips to the cluster (three with NFTs) whatever the
// wallet's size: a read of more chunks than the Limit has slots for goes out
// in JSON-RPC batches (fetch.go). A stream's first chunks need only the
// first round: they carry the empty accounts (Stream, StreamOptions.Early).
// Account data is read as base64 and parsed here, so a real cluster and the
// local validator give the same items.
//
// The actions each type can take are one table (actions.go: ActionsFor),
// which request validation shares; an item offers those of its type that the
// chain would accept now.
//
// Classification: a zero balance is empty_account (close); a wrapped SOL account
// with a balance is token (close: closing returns its lamports, and the token
// programs refuse Burn on native accounts); decimals 0 and supply 1 is nft
// (burn); any other balance is token (burn). Burn means burn then close. Actions
// hold only what the token program would accept from the owner now: a frozen
// account cannot burn (an empty frozen account still closes: CloseAccount does
// not check the frozen state), and an account whose close authority is another
// key offers nothing (the owner cannot close it, and a burn alone reclaims no
// rent). Such items are listed all the same, with no actions. Not checked yet:
// Token-2022 confidential-transfer balances and paused mints, which can also
// make the program refuse CloseAccount or Burn.
//
// Names: Metaplex Token Metadata first, then Token-2022's TokenMetadata extension
// on the mint; wrapped SOL without metadata is "Wrapped SOL" ("SOL"); otherwise
// Name, Symbol and URI are "" and the client chooses what to show. Token-2022
// metadata kept outside the mint (a metadata pointer to another account) is not
// followed.
// Collections are named only when the Metaplex collection is verified: anyone
// can claim an unverified one. ImageURI needs the off-chain JSON behind URI,
// which this package does not fetch.
//
// USD values come from a PriceSource, only for items of type token, and stay nil
// when no price is known; a failing source means no prices, never a failed list.
package assets

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// RPC is the part of solana-go's *rpc.Client that discovery calls.
type RPC interface {
	GetTokenAccountsByOwner(ctx context.Context, owner solana.PublicKey, conf *rpc.GetTokenAccountsConfig, opts *rpc.GetTokenAccountsOpts) (*rpc.GetTokenAccountsResult, error)
	GetMultipleAccountsWithOpts(ctx context.Context, accounts []solana.PublicKey, opts *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error)
	GetProgramAccountsWithOpts(ctx context.Context, program solana.PublicKey, opts *rpc.GetProgramAccountsOpts) (rpc.GetProgramAccountsResult, error)
}

// PriceSource gives USD prices per mint (base58). A mint without a known price is
// absent from the map. An error means no prices at all.
type PriceSource interface {
	Prices(ctx context.Context, mints []string) (map[string]float64, error)
}

// Source lists items that are not SPL token accounts: MPL Core assets,
// compressed NFTs from a DAS indexer, ZK-compressed tokens from Photon.
type Source interface {
	// Name names the source in errors ("das", "photon", ...).
	Name() string
	// Items lists the wallet's items of this source.
	Items(ctx context.Context, wallet solana.PublicKey) ([]Item, error)
}

// ImageFiller sets ImageURI from the metadata JSON behind each item's URI,
// within ctx's budget (backend/engine/assets/images).
type ImageFiller interface {
	Fill(ctx context.Context, items []Item)
}

// Discoverer lists and resolves a wallet's reclaimable items.
type Discoverer struct {
	rpc     RPC
	prices  PriceSource
	sources []Source
	images  ImageFiller
}

// WithImages makes listings fill ImageURI through f; it returns d.
func (d *Discoverer) WithImages(f ImageFiller) *Discoverer {
	d.images = f
	return d
}

// NewDiscoverer reads the cluster through rpc; prices may be nil (no USD
// values). Sources add items beyond the token accounts.
func NewDiscoverer(rpc RPC, prices PriceSource, sources ...Source) *Discoverer {
	return &Discoverer{rpc: rpc, prices: prices, sources: sources}
}

// Listing is every reclaimable item of a wallet.
type Listing struct {
	// Items in discovery order (see Stream): the TokenAccounts token accounts
	// by address, then by address the Sources' items and the cluster's other
	// items (excess rent, program buffers, nonce and stake accounts).
	Items []Item
	// TokenAccounts is how many of Items are SPL Token and Token-2022
	// accounts: the first ones.
	TokenAccounts int
	// Counts has one key per type of ItemTypes, zeros included.
	Counts map[ItemType]int
}

// ItemError is the engine's one error for a request it cannot serve as
// asked, the caller's fault and not the cluster's or an indexer's: the
// first address Resolve cannot build for, a cNFT the wallet cannot burn
// (cnft), an item that cannot take its action or money that does not add
// up (txbuild). Its Reason is safe to show to the client.
type ItemError struct {
	// Address is the item at fault (base58; a cNFT's asset id); "" when it
	// is not one item.
	Address string
	// Index is the item's position in the request (the addresses Resolve
	// was given, txbuild's Params.Items) when Address names one.
	Index int
	// Reason is a sentence for the client, e.g. "account not found".
	Reason string
}

// Error implements error: the address, when there is one, and the reason.
func (e *ItemError) Error() string {
	if e.Address == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s: %s", e.Address, e.Reason)
}

// Item is the address of the item at fault (base58); "" when it is not one
// item.
func (e *ItemError) Item() string { return e.Address }

// The reasons of ItemError.
const (
	reasonNotFound    = "account not found"
	reasonNotToken    = "not a token account of SPL Token or Token-2022" //nolint:gosec // G101: a reason for a person, not a credential ("token")
	reasonOtherWallet = "token account is owned by another wallet"
	// An account of the MPL Core program that is not an asset (a collection,
	// a burned asset's stub), and an asset of another owner.
	reasonNotCore         = "not an MPL Core asset"
	reasonOtherWalletCore = "MPL Core asset is owned by another wallet"
	// Excess rent, buffers, nonce and stake accounts.
	reasonOtherAuthority   = "its authority is another wallet"
	reasonNoRent           = "the cluster did not serve its Rent sysvar"
	reasonNoClock          = "the cluster did not serve its Clock sysvar"
	reasonNoWithdrawExcess = "its token program does not take WithdrawExcessLamports on this cluster (SPL Token before p-token)"
	reasonNoExcess         = "holds no lamports above its rent-exempt minimum"
	reasonNativeExcess     = "is wrapped SOL: close it (a token item) to take its balance and rent"
	reasonNotBuffer        = "not a buffer account of the upgradeable BPF loader"
	reasonNotNonce         = "not an initialized nonce account"
	reasonNotStake         = "not an initialized or delegated stake account"
	// Lookup tables and closable mints.
	reasonNotLookupTable      = "not an initialized address lookup table"
	reasonFrozenTable         = "the lookup table is frozen: it has no authority and can never be closed"
	reasonNotMint             = "not a Token-2022 mint"
	reasonOtherCloseAuthority = "the mint's close authority is not the wallet (Token-2022 MintCloseAuthority)"
	reasonMintHasSupply       = "the mint still has tokens in circulation: it closes only with a supply of 0"
	reasonClosableMint        = "the wallet can close the mint (a mint item), which returns its excess too"
)

// List reads every token account of wallet with its mint and metadata, and
// the Sources' items, in the order of Stream. Errors talking to the cluster
// are returned wrapped.
func (d *Discoverer) List(ctx context.Context, wallet solana.PublicKey) (Listing, error) {
	items := []Item{}
	n, err := d.discover(ctx, wallet, 0, 0, func(more []Item, _, _ bool) error {
		items = append(items, more...)
		return nil
	}, nil)
	if err != nil {
		return Listing{}, err
	}
	return Listing{Items: items, TokenAccounts: n, Counts: countItems(items)}, nil
}
