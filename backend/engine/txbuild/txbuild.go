// Package txbuild builds the unsigned version-0 transactions (or version-1
// ones on request: v1.go) that reclaim the items a wallet selected, with
// exact integer money.
//
// Items arrive already resolved from the chain (assets.Item). Token accounts
// burn and close with the token programs; Metaplex NFTs burn with Token
// Metadata's BurnV1 and MPL Core assets with Core's BurnV1 (programs.go),
// whose refund discovery computed exactly. Compressed NFTs (cNFTs, items of
// type cnft whose Address is the asset id) burn with Bubblegum's burn (V1
// trees) or burn_v2 (V2 trees), which the CNFTPlanner given by
// WithCNFTPlanner builds from the indexer's proof when Build starts; they
// return nothing. Excess rent withdraws with WithdrawExcessLamports,
// program buffers close with the loader's Close, nonce accounts and
// stake accounts are withdrawn whole (programs.go: accountReclaim); each
// item's Lamports, which discovery read, is exactly what its instruction
// moves to the wallet. They are grouped by ledger type (token_account_closure,
// token_burn, nft_burn, excess_rent_withdrawal, program_buffer_closure,
// nonce_account_closure, stake_account_withdrawal) in order of first
// appearance and packed greedily, in
// request order (print editions that share an edition marker stay together:
// see packUnits), while the signed transaction stays within 1232 bytes less
// the caller's headroom (room for wallet guard instructions) and an estimate
// of its compute stays under the 1.4M limit. Every transaction stands alone:
// compute limit and price, the item instructions, then the donation and
// service fee transfers; the wallet is the fee payer and only signer.
//
// A transaction's compute need comes from a table of measured costs per
// instruction kind (costs.go) when it knows every instruction (closes,
// token burns, harvests, withdrawals, buffer closes, the compute budget and
// transfers); any other transaction (Metaplex, Core and Bubblegum burns) is
// simulated (sigVerify false, replaceRecentBlockhash, commitment processed)
// with the maximum limit. Its limit is then the need plus 10% and 1,000,
// plus the guard headroom (WithGuardHeadroomUnits) for the assertions a
// wallet may add. Priority
// levels low, medium and high pay the 25th, 50th and 75th nearest-rank
// percentile of getRecentPrioritizationFees over accounts that include the
// transaction's writable ones, at least 1 micro-lamport; none sets no price.
// The fees are asked per build, not per transaction (fees.go): a build of up
// to 125 closes asks once, together with the reads of its items. All
// transactions of one Build share one blockhash, taken at commitment
// confirmed: a confirmed block is practically never rolled back, and its
// hash stays valid about 13 seconds longer than a finalized one.
//
// Round trips: the blockhash, the recipients and the fees go out together
// (Prefetch, which a caller can start before it reads the items), then
// every simulation at once; every call waits for a slot of the request's
// rpclimit.Limit. With a fresh Poller (WithPoller) the blockhash and fees
// are not asked, and a build of closes and transfers simulates nothing: one
// round trip, the recipients' read beside the caller's read of the items.
//
// Money per transaction, in integer lamports: gross = what the items
// return, of which rent = the items' rent (assets.Item.Rent: the wallet's
// own SOL that comes back, wrapped SOL or a stake's principal, is not);
// donation = floor(rent * p) with p taken exactly from its decimal form;
// service fee = floor(rent * bps / 10000); network fee = 5000 per signature + ceil(price * limit / 1e6); net =
// gross - network fee - donation - service fee, which is exactly the wallet's
// balance change when the transaction lands, and must be positive, with one
// exception: a transaction whose items are all cNFTs has gross 0, donation 0
// and service fee 0 (no transfers), and net = -network fee, the price the
// caller chose to pay to burn them. A transaction with any other item (cNFTs
// share nft_burn transactions with NFTs and Core assets) must still have a
// positive net, or the build is refused. The
// donation wallet and treasury are read once: a transfer that would create
// one of them must reach the rent-exempt minimum of an empty account, in every
// transaction on its own, or the build is refused.
//
// Errors: *assets.ItemError is a mistake or impossibility in the request (the server
// answers 400); anything else is the cluster or the configuration failing
// (503).
package txbuild

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// Limits of a Solana transaction.
const (
	// MaxTransactionSize is the largest serialized signed transaction.
	MaxTransactionSize = 1232
	// MaxComputeUnits is the largest compute unit limit of a transaction.
	MaxComputeUnits = 1_400_000
)

// Priority fee levels.
const (
	PriorityNone   = "none"
	PriorityLow    = "low"
	PriorityMedium = "medium"
	PriorityHigh   = "high"
)

// Selected is an item and the action to take on it: one of its type's
// (assets.ActionsFor).
type Selected struct {
	Item   assets.Item
	Action assets.Action

	// burn is a cNFT's Bubblegum burn, planned by Build.
	burn solana.Instruction
	// at is the item's position in Params.Items, set by Build.
	at int
}

// Params is one build request.
type Params struct {
	// Wallet owns the items, pays the fees and receives the rebate.
	Wallet solana.PublicKey
	// Items in request order.
	Items []Selected
	// DonationPercentage is the fraction of each transaction's rent rebate
	// donated, from 0 to 1.
	DonationPercentage float64
	// DonationWallet receives donations; it must be set when there is one.
	DonationWallet *solana.PublicKey
	// ServiceFeeBPS is the operator's fee in basis points of the rent rebate.
	ServiceFeeBPS int
	// Treasury receives the service fee; it must be set when the fee is not 0.
	Treasury *solana.PublicKey
	// PriorityLevel is one of PriorityNone, PriorityLow, PriorityMedium and
	// PriorityHigh; "" means PriorityMedium.
	PriorityLevel string
	// HeadroomBytes are kept free in every transaction for instructions a
	// wallet may add when signing.
	HeadroomBytes int
	// Version of the transactions: Version0 (v0, 1,232 bytes) or Version1
	// (v1, 4,096 bytes and 64 addresses: v1.go).
	Version uint32
}

// Tx is one built transaction and its money, in lamports.
type Tx struct {
	// Version is the transaction's: Version0 or Version1.
	Version uint32
	// Transaction is unsigned, version 0, with one zeroed signature slot;
	// nil in a v1 build.
	Transaction *solana.Transaction
	// V1 is unsigned, version 1, with one zeroed signature slot; nil in a
	// v0 build.
	V1 *txv1.Transaction
	// Base64 is the serialized unsigned transaction.
	Base64 string
	// Message is the serialized message the wallet signs.
	Message []byte
	// MessageHash is the SHA-256 of Message.
	MessageHash [32]byte
	// Includes are the items in the transaction, in request order (print
	// editions sharing an edition marker follow the first of them: they
	// burn in one transaction).
	Includes []Selected
	// LedgerType is one of ledger.Types: close, burn of a token, burn of an
	// NFT, excess rent withdrawal, buffer or nonce closure, stake withdrawal.
	LedgerType ledger.Type
	// GrossRebate is what the included items' reclaims return to the wallet:
	// the lamports of the token accounts closed, the refund of the Metaplex
	// and Core burns, the excess rent withdrawn, the lamports of the
	// buffers, nonce and stake accounts emptied (see assets.Item.Lamports).
	GrossRebate uint64
	// RentRebate is the part of GrossRebate that is rent (the items'
	// assets.Item.Rent), the base of DonationAmount and ServiceFee;
	// GrossRebate - RentRebate (OwnBalance) is the wallet's own SOL that
	// comes back: wrapped SOL, a stake account's principal, a nonce or
	// buffer balance above its rent.
	RentRebate uint64
	// NetRebate is the change of the wallet's balance when the transaction
	// lands: GrossRebate - Fees - DonationAmount. It is positive, except in a
	// transaction of cNFT burns alone: they return nothing, so its NetRebate
	// is minus its NetworkFee.
	NetRebate int64
	// DonationAmount goes to the donation wallet.
	DonationAmount uint64
	// NetworkFee is SignatureFee per signature plus PriorityFee.
	NetworkFee uint64
	// PriorityFee is ceil(ComputeUnitPrice * ComputeUnits / 1e6).
	PriorityFee uint64
	// ServiceFee goes to the treasury.
	ServiceFee uint64
	// Fees is NetworkFee + ServiceFee.
	Fees uint64
	// ComputeUnits is the compute unit limit set: the simulated need plus a
	// margin.
	ComputeUnits uint32
	// ComputeUnitPrice is in micro-lamports per compute unit; 0 when no price
	// is set.
	ComputeUnitPrice uint64
	// Summary is what its ticket states about it beyond the money: the digest
	// of its instructions and the recipients of its transfers.
	Summary ticket.TxSummary
	// Burns are the tokens the transaction destroys, one per burned item in
	// Includes' order; nil when it burns nothing.
	Burns []Burn
}

// Burn is one item a transaction destroys: what a wallet holder must see
// before signing it.
type Burn struct {
	// Mint of the tokens burned; a Core asset's or a cNFT's own address.
	Mint solana.PublicKey
	// Amount is the raw amount burned: the token account's whole balance; 1
	// for a compressed NFT or a Core asset.
	Amount uint64
	// Decimals of the mint; 0 for a compressed NFT or a Core asset.
	Decimals uint8
	// Name and Symbol come from the item's metadata; "" when unknown.
	Name, Symbol string
	// Type is the item's type: token, nft or cnft.
	Type assets.ItemType
	// Address is the item burned: the token account, or the cNFT's or Core
	// asset's id.
	Address solana.PublicKey
}

// signers is the number of signatures the transaction needs.
func (t Tx) signers() uint8 {
	if t.V1 != nil {
		return t.V1.Message.Header.NumRequiredSignatures
	}
	return t.Transaction.Message.Header.NumRequiredSignatures
}

// Destructive reports whether the transaction burns anything.
func (t Tx) Destructive() bool { return len(t.Burns) > 0 }

// burnsOf lists what the items selected for burning destroy.
func burnsOf(items []Selected) []Burn {
	var out []Burn
	for _, s := range items {
		if s.Action != assets.ActionBurn {
			continue
		}
		it := s.Item
		b := Burn{Mint: it.Mint, Amount: it.Amount, Decimals: it.Decimals, Name: it.Name, Symbol: it.Symbol, Type: it.Type, Address: it.Address}
		if it.Type == assets.TypeCNFT || it.Core != nil {
			// One asset, named by its own id.
			b.Amount, b.Decimals, b.Mint = 1, 0, it.Address
		}
		out = append(out, b)
	}
	return out
}

// OwnBalance is the wallet's own SOL that comes back with the rent:
// GrossRebate - RentRebate.
func (t Tx) OwnBalance() uint64 { return t.GrossRebate - t.RentRebate }

// Result is the outcome of a Build.
type Result struct {
	Txs []Tx
	// Blockhash of every transaction.
	Blockhash solana.Hash
	// LastValidBlockHeight is the last block height at which they can land.
	LastValidBlockHeight uint64
}

// Totals sums a Result's transactions.
type Totals struct {
	ItemCount      int
	GrossRebate    uint64
	RentRebate     uint64
	NetRebate      int64
	DonationAmount uint64
	Fees           uint64
}

// OwnBalance is GrossRebate - RentRebate.
func (t Totals) OwnBalance() uint64 { return t.GrossRebate - t.RentRebate }

// Totals sums the transactions of r.
func (r Result) Totals() Totals {
	var t Totals
	for _, tx := range r.Txs {
		t.ItemCount += len(tx.Includes)
		t.GrossRebate += tx.GrossRebate
		t.RentRebate += tx.RentRebate
		t.NetRebate += tx.NetRebate
		t.DonationAmount += tx.DonationAmount
		t.Fees += tx.Fees
	}
	return t
}

// itemError is a request that cannot be built as asked because of item s
// (an *assets.ItemError naming it); requestError one that is not one
// item's: money that does not add up, a transfer the cluster would refuse.
func itemError(s Selected, format string, args ...any) *assets.ItemError {
	return &assets.ItemError{Address: s.Item.Address.String(), Index: s.at, Reason: fmt.Sprintf(format, args...)}
}

func requestError(format string, args ...any) *assets.ItemError {
	return &assets.ItemError{Reason: fmt.Sprintf(format, args...)}
}

// RPC is the part of the Solana JSON-RPC client (*rpc.Client) the builder
// uses.
type RPC interface {
	GetLatestBlockhash(ctx context.Context, commitment rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error)
	GetMultipleAccountsWithOpts(ctx context.Context, accounts []solana.PublicKey, opts *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error)
	GetMinimumBalanceForRentExemption(ctx context.Context, dataSize uint64, commitment rpc.CommitmentType) (uint64, error)
	GetRecentPrioritizationFees(ctx context.Context, accounts solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error)
	SimulateTransactionWithOpts(ctx context.Context, tx *solana.Transaction, opts *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error)
}

// CNFTPlanner builds the burn of a compressed NFT (cNFT) from an indexer's
// proof; *cnft.Planner is one. A selection the wallet cannot burn is a
// *assets.ItemError; an indexer or cluster failing is any other error.
type CNFTPlanner interface {
	BurnInstruction(ctx context.Context, wallet, assetID solana.PublicKey) (*solana.GenericInstruction, error)
}

// Builder builds reclaim transactions against one cluster.
type Builder struct {
	rpc  RPC
	cnft CNFTPlanner
	// guardUnits are added to every compute unit limit for wallet guards.
	guardUnits uint32
	// maxPrice is the highest compute unit price a wallet may set.
	maxPrice uint64
	// poller, when set, holds a fresh blockhash, fees and p-token state.
	poller *Poller
	// refs draws the reference keys (reference.go); nil: crypto/rand.
	refs *referenceSource
}

// Option configures a Builder.
type Option func(*Builder)

// WithCNFTPlanner lets the Builder burn cNFT items, with the instructions p
// builds. Without it, cNFT items are refused.
func WithCNFTPlanner(p CNFTPlanner) Option {
	return func(b *Builder) { b.cnft = p }
}

// NewBuilder returns a Builder that reads the cluster through rpc.
func NewBuilder(rpc RPC, opts ...Option) *Builder {
	b := &Builder{rpc: rpc, maxPrice: signedcheck.DefaultMaxPrice}
	for _, o := range opts {
		o(b)
	}
	return b
}

// BurnsCNFTs reports whether the Builder has a CNFTPlanner.
func (b *Builder) BurnsCNFTs() bool { return b.cnft != nil }
