package assets

import (
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// Excess rent. An account's rent-exempt minimum follows the cluster's Rent
// sysvar, but its lamports do not: when a rent cut (SIMD-0437) lowers the
// minimum, every account made before keeps what it was funded with, and
// WithdrawExcessLamports (spltoken) lets its authority take the difference
// out, the account staying open with its tokens. An item of type
// excess_rent (action withdraw_excess) is offered for each account of the
// wallet whose lamports exceed its minimum under the Rent sysvar read now,
// its Lamports the difference exactly:
//   - token accounts the wallet owns, of a program that takes the
//     instruction on this cluster (Token-2022; SPL Token where p-token is
//     active), not wrapped SOL (NativeNotSupported), and not when the
//     account itself offers close: closing returns everything, the excess
//     included, so an empty account is better closed. Its name, symbol,
//     mint and balance are the account's;
//   - mints whose mint authority is the wallet (found by getProgramAccounts),
//     of such a program. SPL Token (p-token) takes exactly 165- and 82-byte
//     accounts, which all of its accounts and mints are.
// Until a rent cut nothing exceeds its minimum (accounts are funded with it
// exactly), so nothing is listed; lamports sent to an account by mistake
// show too. No account is read for it beyond the listing's.

// excessOf is the excess_rent item of token account a, classified as it;
// ok is false when it has none to offer. listing leaves out the accounts
// that offer close.
func excessOf(a ownedAccount, it Item, st clusterState, listing bool) (Item, bool) {
	excess, ok := accountExcess(a, st)
	if !ok || listing && slices.Contains(it.Actions, ActionClose) {
		return Item{}, false
	}
	return Item{
		Type: TypeExcessRent, Address: a.address, Owner: a.state.Owner, Mint: a.state.Mint, TokenProgram: a.program,
		Name: it.Name, Symbol: it.Symbol, URI: it.URI, ImageURI: it.ImageURI, Lamports: excess, Rent: excess,
		Decimals: it.Decimals, Amount: it.Amount, UIBalance: it.UIBalance, Collection: it.Collection, IsFrozen: it.IsFrozen,
		Actions: []Action{ActionWithdrawExcess},
	}, true
}

// accountExcess is what WithdrawExcessLamports would move out of a now, when
// its program takes it (ok).
func accountExcess(a ownedAccount, st clusterState) (uint64, bool) {
	switch {
	case !st.hasRent || !spltoken.WithdrawsExcess(a.program, st.pToken) || a.state.Native:
		return 0, false
	case a.program.Equals(solana.TokenProgramID) && a.size != spltoken.AccountSize:
		return 0, false
	}
	return above(a.lamports, st.rent.MinimumBalance(a.size))
}

// above is lamports over minimum, when there are any.
func above(lamports, minimum uint64) (uint64, bool) {
	if lamports <= minimum {
		return 0, false
	}
	return lamports - minimum, true
}

// excessPage is the excess_rent items of one page of token accounts: owned
// and the items they classified as, index-aligned.
func excessPage(owned []ownedAccount, items []Item, st clusterState) []Item {
	var out []Item
	for i, a := range owned {
		if it, ok := excessOf(a, items[i], st, true); ok {
			out = append(out, it)
		}
	}
	return out
}

// mintOf is the mint at address (of program, with lamports and data) whose
// mint authority is wallet, as an excess_rent item; reason says why it is
// none.
func mintOf(address, program solana.PublicKey, lamports uint64, d []byte, wallet solana.PublicKey, st clusterState) (Item, string) {
	m, err := spltoken.ParseMint(d)
	switch {
	case !spltoken.IsProgram(program) || err != nil:
		return Item{}, reasonNotToken
	case m.MintAuthority == nil || !m.MintAuthority.Equals(wallet):
		return Item{}, reasonOtherAuthority
	case closableMint(program, m, wallet):
		return Item{}, reasonClosableMint
	case !st.hasRent:
		return Item{}, reasonNoRent
	case !spltoken.WithdrawsExcess(program, st.pToken) || program.Equals(solana.TokenProgramID) && len(d) != spltoken.MintSize:
		return Item{}, reasonNoWithdrawExcess
	}
	excess, ok := above(lamports, st.rent.MinimumBalance(uint64(len(d))))
	if !ok {
		return Item{}, reasonNoExcess
	}
	it := Item{
		Type: TypeExcessRent, Address: address, Owner: wallet, Mint: address, TokenProgram: program,
		Lamports: excess, Rent: excess, Decimals: m.Decimals, Actions: []Action{ActionWithdrawExcess},
	}
	if md := displayMetadata(m.Metadata); md != nil {
		it.Name, it.Symbol, it.URI = md.name, md.symbol, md.uri
	}
	return it, ""
}

// mintExcessItems are the excess_rent items of the mints res found.
func mintExcessItems(res rpc.GetProgramAccountsResult, wallet solana.PublicKey, st clusterState) []Item {
	return itemsOf(res, func(address, owner solana.PublicKey, lamports uint64, d []byte) (Item, string) {
		return mintOf(address, owner, lamports, d, wallet, st)
	}, st.rentSysvar())
}
