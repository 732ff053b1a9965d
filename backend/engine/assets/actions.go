package assets

import "slices"

// ItemType is a WalletItemType of the contract.
type ItemType string

// The WalletItemTypes, in the contract's order.
const (
	TypeEmptyAccount      ItemType = "empty_account"
	TypeToken             ItemType = "token"
	TypeNFT               ItemType = "nft"
	TypeFungibleAsset     ItemType = "fungible_asset"
	TypeZKCompressedToken ItemType = "zk_compressed_token"
	TypeCNFT              ItemType = "cnft"
	// TypeExcessRent is the lamports of a token account or mint above its
	// rent-exempt minimum under the cluster's current Rent sysvar: what a
	// rent cut (SIMD-0437) leaves in every account made before it.
	TypeExcessRent ItemType = "excess_rent"
	// TypeProgramBuffer is a buffer account of the upgradeable BPF loader
	// whose authority is the wallet: the bytes of a program deploy that
	// failed or was abandoned.
	TypeProgramBuffer ItemType = "program_buffer"
	// TypeNonceAccount is a durable nonce account whose authority is the
	// wallet.
	TypeNonceAccount ItemType = "nonce_account"
	// TypeStakeAccount is a stake account whose withdraw authority is the
	// wallet, with nothing staked any more.
	TypeStakeAccount ItemType = "stake_account"
	// TypeLookupTable is an address lookup table whose authority is the
	// wallet (lookuptables.go): deactivated first, closed once the cluster
	// allows.
	TypeLookupTable ItemType = "lookup_table"
	// TypeMint is a Token-2022 mint the wallet can close: supply 0, its
	// MintCloseAuthority the wallet (closablemints.go).
	TypeMint ItemType = "mint"
)

// Action is a BurnerAction: what reclaiming does to an item.
type Action string

// The BurnerActions. Burn means burn then close: burning alone returns no
// rent.
const (
	ActionClose Action = "close"
	ActionBurn  Action = "burn"
	// ActionWithdrawExcess takes an account's excess rent out, leaving it
	// open with everything else unchanged (WithdrawExcessLamports).
	ActionWithdrawExcess Action = "withdraw_excess"
	// ActionWithdraw takes every lamport out of a stake account, which
	// closes it.
	ActionWithdraw Action = "withdraw"
	// ActionDeactivate deactivates a lookup table: it returns nothing
	// yet, and makes the table closable about 512 slots later.
	ActionDeactivate Action = "deactivate"
)

// itemTypes are the WalletItemTypes in the contract's order.
var itemTypes = []ItemType{TypeEmptyAccount, TypeToken, TypeNFT, TypeFungibleAsset, TypeZKCompressedToken, TypeCNFT,
	TypeExcessRent, TypeProgramBuffer, TypeNonceAccount, TypeStakeAccount, TypeLookupTable, TypeMint}

// actions is the one table of the actions each type can take: what a build
// request may select (validation), the most discovery offers (each item's
// Actions are those of its type that the chain would accept now), and what
// docs/decisions.md states (actions_test.go checks it). A token burns,
// except wrapped SOL, which closes (the token programs refuse Burn on
// native accounts; closing returns the balance with the rent). Fungible
// assets and ZK-compressed tokens are listed but take no action yet. A
// program buffer closes to the wallet, a nonce account closes (its whole
// balance withdrawn), a stake account is withdrawn whole. A lookup table is
// deactivated, then closed; a closable mint closes.
var actions = map[ItemType][]Action{
	TypeEmptyAccount:      {ActionClose},
	TypeToken:             {ActionBurn, ActionClose},
	TypeNFT:               {ActionBurn},
	TypeFungibleAsset:     {},
	TypeZKCompressedToken: {},
	TypeCNFT:              {ActionBurn},
	TypeExcessRent:        {ActionWithdrawExcess},
	TypeProgramBuffer:     {ActionClose},
	TypeNonceAccount:      {ActionClose},
	TypeStakeAccount:      {ActionWithdraw},
	TypeLookupTable:       {ActionDeactivate, ActionClose},
	TypeMint:              {ActionClose},
}

// ItemTypes lists every WalletItemType, in the contract's order; a
// listing's Counts has one key for each.
func ItemTypes() []ItemType { return slices.Clone(itemTypes) }

// Known reports whether t is one of ItemTypes.
func (t ItemType) Known() bool {
	_, ok := actions[t]
	return ok
}

// ActionsFor lists the actions an item of type t can take, in the order
// the contract lists them; empty for a type that takes none, nil for an
// unknown type.
func ActionsFor(t ItemType) []Action {
	a, ok := actions[t]
	if !ok {
		return nil
	}
	return slices.Clone(a)
}

// ValidAction reports whether an item of type t can take action a: what a
// build request's selection must satisfy before the chain is asked.
func ValidAction(t ItemType, a Action) bool {
	return slices.Contains(actions[t], a)
}

// safe is the one table of what "select all safe items" takes: for each
// type, the action that destroys nothing its owner could still want. An
// empty account closes (nothing in it), excess rent is withdrawn (the
// account stays open with all it holds), a program buffer, a nonce account
// and a stake account with nothing staked give back their lamports, and so
// do a deactivated lookup table's close and an empty mint's close (nothing
// can use either any more). Every burn is left out, and so is a token's
// close (wrapped SOL: its balance is the owner's wrapped SOL), and a lookup
// table's deactivation (it returns nothing now, costs a fee, and breaks
// every transaction that still uses the table).
var safe = map[ItemType]Action{
	TypeEmptyAccount:  ActionClose,
	TypeExcessRent:    ActionWithdrawExcess,
	TypeProgramBuffer: ActionClose,
	TypeNonceAccount:  ActionClose,
	TypeStakeAccount:  ActionWithdraw,
	TypeLookupTable:   ActionClose,
	TypeMint:          ActionClose,
}

// SafeAction is the action a select-all build takes on it, and whether it
// takes any: the item's type must have a safe action, and the item must
// offer it now (an empty account another key is the close authority of
// offers none).
func (it Item) SafeAction() (Action, bool) {
	a, ok := safe[it.Type]
	if !ok || !slices.Contains(it.Actions, a) {
		return "", false
	}
	return a, true
}
