package txbuild

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// request is a checked Params with what the checks derived.
type request struct {
	Params
	donation   *big.Rat      // exact DonationPercentage
	percentile int           // of recent prioritization fees; 0: no price
	types      []ledger.Type // of each item, index-aligned with Items
}

// check validates p. Mistakes of the request are *assets.ItemError; a configuration the
// server should never send (fee out of range, no treasury) is a plain error.
func (p Params) check() (*request, error) {
	if p.Wallet.IsZero() {
		return nil, requestError("no wallet")
	}
	if len(p.Items) == 0 {
		return nil, requestError("no items selected")
	}
	donation, err := parseFraction(p.DonationPercentage)
	if err != nil {
		return nil, requestError("%v", err)
	}
	if donation.Sign() > 0 {
		if p.DonationWallet == nil {
			return nil, requestError("a donation needs a donation wallet, and the project has none")
		}
		if p.DonationWallet.Equals(p.Wallet) {
			return nil, requestError("the donation wallet is the wallet itself")
		}
	}
	if p.ServiceFeeBPS < 0 || p.ServiceFeeBPS > 10_000 {
		return nil, fmt.Errorf("txbuild: service fee of %d basis points is not between 0 and 10000", p.ServiceFeeBPS)
	}
	if p.ServiceFeeBPS > 0 {
		if p.Treasury == nil {
			return nil, fmt.Errorf("txbuild: a service fee of %d basis points needs a treasury", p.ServiceFeeBPS)
		}
		if p.Treasury.Equals(p.Wallet) {
			return nil, requestError("the wallet is the service's treasury")
		}
	}
	if p.HeadroomBytes < 0 || p.HeadroomBytes >= MaxTransactionSize {
		return nil, fmt.Errorf("txbuild: headroom of %d bytes is not between 0 and %d", p.HeadroomBytes, MaxTransactionSize-1)
	}
	if p.Version != Version0 && p.Version != Version1 {
		return nil, requestError("transaction version %d is not 0 or 1", p.Version)
	}
	if p.PriorityLevel == "" {
		p.PriorityLevel = PriorityMedium
	}
	pct, ok := priorityPercentiles[p.PriorityLevel]
	if !ok {
		return nil, requestError("priority fee level %q is not one of none, low, medium, high", p.PriorityLevel)
	}
	r := &request{Params: p, donation: donation, percentile: pct, types: make([]ledger.Type, len(p.Items))}
	// The items are the request's copy (the caller's slice stays as it
	// was), each knowing its position for the errors that name it.
	r.Items = slices.Clone(p.Items)
	seen := make(map[solana.PublicKey]bool, len(p.Items))
	for i := range r.Items {
		r.Items[i].at = i
		s := r.Items[i]
		if seen[s.Item.Address] {
			return nil, itemError(s, "selected twice")
		}
		seen[s.Item.Address] = true
		if r.types[i], err = ledgerType(s, p.Wallet); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ledgerType checks that the token program would accept the action from the
// wallet and says which ledger type its transaction has.
func ledgerType(s Selected, wallet solana.PublicKey) (ledger.Type, error) {
	it := s.Item
	switch {
	case it.Address.IsZero():
		return "", requestError("an item has no address")
	case it.Type == assets.TypeZKCompressedToken:
		return "", itemError(s, "%s items cannot be reclaimed yet", it.Type)
	case it.Type == assets.TypeCNFT:
		return cnftLedgerType(s, wallet)
	case it.Type == assets.TypeLookupTable:
		return tableLedgerType(s, wallet)
	case it.Core != nil:
		return coreLedgerType(s, wallet)
	case reclaimedWhole[it.Type].ledger != "" || it.Type == assets.TypeExcessRent:
		return accountLedgerType(s, wallet)
	case !spltoken.IsProgram(it.TokenProgram):
		return "", itemError(s, "is not an SPL Token or Token-2022 account (program %s)", it.TokenProgram)
	case !it.Owner.Equals(wallet):
		return "", itemError(s, "is owned by %s, not by the wallet", it.Owner)
	case it.HasCloseAuthority:
		return "", itemError(s, "has a close authority other than the wallet, so the wallet cannot close it")
	case it.WithheldAmount > 0 && !it.TokenProgram.Equals(solana.Token2022ProgramID):
		return "", itemError(s, "has withheld transfer fees but is not a Token-2022 account")
	case len(it.Actions) > 0 && !slices.Contains(it.Actions, s.Action):
		return "", itemError(s, "action %q is not available for this item (available: %v)", s.Action, it.Actions)
	}
	switch s.Action {
	case assets.ActionClose:
		if !it.IsNative && it.Amount > 0 {
			return "", itemError(s, "holds %d base units of its token; burn them (action burn) to close it", it.Amount)
		}
		return ledger.TypeTokenAccountClosure, nil
	case assets.ActionBurn:
		switch {
		case it.IsNative:
			return "", itemError(s, "is wrapped SOL: close it (action close) and its balance returns with the rent")
		case it.IsFrozen && !(it.Metaplex != nil && it.Metaplex.Standard.Programmable()):
			// A pNFT's account is frozen by design: Token Metadata thaws it.
			return "", itemError(s, "is frozen: the token program refuses to burn from it")
		case it.Type == assets.TypeToken:
			return ledger.TypeTokenBurn, nil
		case it.Type == assets.TypeNFT:
			return ledger.TypeNFTBurn, nil
		}
		return "", itemError(s, "action burn is for token and nft items, not %s", it.Type)
	}
	return "", itemError(s, "action %q is not one of close, burn", s.Action)
}

// coreLedgerType checks an MPL Core asset: the wallet owns it, and burn is
// its one action.
func coreLedgerType(s Selected, wallet solana.PublicKey) (ledger.Type, error) {
	it := s.Item
	switch {
	case !it.TokenProgram.Equals(mplcore.ProgramID):
		return "", itemError(s, "is not an MPL Core asset (program %s)", it.TokenProgram)
	case !it.Owner.Equals(wallet):
		return "", itemError(s, "is owned by %s, not by the wallet", it.Owner)
	case s.Action != assets.ActionBurn:
		return "", itemError(s, "action %q is not available for an MPL Core asset (available: [burn])", s.Action)
	case len(it.Actions) > 0 && !slices.Contains(it.Actions, s.Action):
		return "", itemError(s, "action %q is not available for this item (available: %v)", s.Action, it.Actions)
	}
	return ledger.TypeNFTBurn, nil
}

// cnftLedgerType checks a cNFT selection as far as the item tells; the
// CNFTPlanner checks the leaf itself (owner, burnt, frozen, tree) with the
// indexer. Burn is its one action, and it returns nothing: an item claiming
// lamports is not one discovery or the server made.
func cnftLedgerType(s Selected, wallet solana.PublicKey) (ledger.Type, error) {
	it := s.Item
	switch {
	case !it.Owner.IsZero() && !it.Owner.Equals(wallet):
		return "", itemError(s, "is owned by %s, not by the wallet", it.Owner)
	case s.Action != assets.ActionBurn:
		return "", itemError(s, "action %q is not available for a compressed NFT (available: [burn])", s.Action)
	case it.Lamports != 0:
		return "", itemError(s, "a compressed NFT returns no lamports, but the item claims %d", it.Lamports)
	}
	return ledger.TypeNFTBurn, nil
}

// reclaimedWhole are the accounts whose every lamport their reclaim
// returns, by type: the program that owns them, their one action and the
// ledger type of their transactions.
var reclaimedWhole = map[assets.ItemType]struct {
	program solana.PublicKey
	action  assets.Action
	ledger  ledger.Type
}{
	assets.TypeProgramBuffer: {loaderv3.ProgramID, assets.ActionClose, ledger.TypeProgramBufferClosure},
	assets.TypeNonceAccount:  {solana.SystemProgramID, assets.ActionClose, ledger.TypeNonceAccountClosure},
	assets.TypeStakeAccount:  {stake.ProgramID, assets.ActionWithdraw, ledger.TypeStakeAccountWithdrawal},
	assets.TypeMint:          {solana.Token2022ProgramID, assets.ActionClose, ledger.TypeTokenAccountClosure},
}

// tableLedgerType checks a lookup_table item: an account of the Address
// Lookup Table program whose authority is the wallet, deactivated (it
// returns nothing now) or closed (it returns its lamports), as its actions
// offer now.
func tableLedgerType(s Selected, wallet solana.PublicKey) (ledger.Type, error) {
	it := s.Item
	switch {
	case !it.TokenProgram.Equals(lookuptable.ProgramID):
		return "", itemError(s, "a lookup_table is an account of %s, not of %s", lookuptable.ProgramID, it.TokenProgram)
	case !it.Owner.Equals(wallet):
		return "", itemError(s, "its authority is %s, not the wallet", it.Owner)
	case !slices.Contains(it.Actions, s.Action):
		return "", itemError(s, "action %q is not available for this lookup table now (available: %v)", s.Action, it.Actions)
	case s.Action == assets.ActionDeactivate:
		return ledger.TypeLookupTableReclaim, nil
	case s.Action != assets.ActionClose:
		return "", itemError(s, "action %q is not available for a lookup_table (available: [deactivate close])", s.Action)
	case it.Lamports == 0:
		return "", itemError(s, "a lookup_table returns lamports, but the item claims none")
	}
	return ledger.TypeLookupTableReclaim, nil
}

// accountLedgerType checks an excess_rent item (a token account or mint of
// a token program, the wallet its owner or mint authority) or an account
// reclaimed whole (reclaimedWhole): its action is its type's one, and it
// returns lamports.
func accountLedgerType(s Selected, wallet solana.PublicKey) (ledger.Type, error) {
	it := s.Item
	program, action, typ := solana.PublicKey{}, assets.ActionWithdrawExcess, ledger.Type(ledger.TypeExcessRentWithdrawal)
	if w, ok := reclaimedWhole[it.Type]; ok {
		program, action, typ = w.program, w.action, w.ledger
	}
	switch {
	case it.Type == assets.TypeExcessRent && !spltoken.IsProgram(it.TokenProgram):
		return "", itemError(s, "excess rent is withdrawn from SPL Token and Token-2022 accounts and mints, not from an account of %s", it.TokenProgram)
	case it.Type != assets.TypeExcessRent && !it.TokenProgram.Equals(program):
		return "", itemError(s, "a %s is an account of %s, not of %s", it.Type, program, it.TokenProgram)
	case !it.Owner.Equals(wallet):
		return "", itemError(s, "its authority is %s, not the wallet", it.Owner)
	case s.Action != action:
		return "", itemError(s, "action %q is not available for a %s (available: [%s])", s.Action, it.Type, action)
	case it.Lamports == 0:
		return "", itemError(s, "a %s returns lamports, but the item claims none", it.Type)
	}
	return typ, nil
}

// itemInstructions reclaims one item: harvest withheld Token-2022 fees, burn
// the whole balance when burning, close to the wallet. Excess rent, buffers,
// nonce and stake accounts take one instruction each (programs.go). Wrapped SOL is closed,
// never burned: closing returns its balance with its rent. A Metaplex NFT
// burns with Token Metadata's BurnV1 and an MPL Core asset with Core's BurnV1
// (programs.go): each closes what it burns to the wallet.
func itemInstructions(s Selected, wallet solana.PublicKey) []solana.Instruction {
	it := s.Item
	switch it.Type {
	case assets.TypeCNFT:
		return []solana.Instruction{s.burn}
	case assets.TypeExcessRent, assets.TypeProgramBuffer, assets.TypeNonceAccount, assets.TypeStakeAccount,
		assets.TypeLookupTable, assets.TypeMint:
		return []solana.Instruction{accountReclaim(s, wallet)}
	}
	if it.Core != nil {
		return []solana.Instruction{coreBurn(it, wallet)}
	}
	var ixs []solana.Instruction
	if it.WithheldAmount > 0 {
		ixs = append(ixs, spltoken.HarvestWithheldTokensToMint(it.Mint, it.Address))
	}
	if it.Metaplex != nil && s.Action == assets.ActionBurn {
		return append(ixs, metaplexBurn(it, wallet))
	}
	if s.Action == assets.ActionBurn && !it.IsNative {
		ixs = append(ixs, spltoken.BurnChecked(it.TokenProgram, it.Address, it.Mint, wallet, it.Amount, it.Decimals))
	}
	return append(ixs, spltoken.CloseAccount(it.TokenProgram, it.Address, wallet, wallet))
}
