package assets

import (
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/nonce"
	"github.com/reclaim-sol/reclaim/backend/chain/rent"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
)

// Program buffers, nonce accounts and stake accounts: accounts a wallet is
// the authority of that hold SOL it can take back whole, found by
// getProgramAccounts (cluster.go). Each item's Address is the account,
// Owner the wallet (its authority), TokenProgram the program that owns it,
// Mint unset, Lamports every lamport it holds: what its reclaim moves to
// the wallet.
//   - program_buffer (close): a buffer of the upgradeable loader whose
//     authority is the wallet; Close returns all its lamports. A buffer
//     without authority can never be closed and is not listed.
//   - nonce_account (close): an initialized durable nonce account whose
//     authority is the wallet; withdrawing the whole balance closes it (the
//     System program refuses only in the block whose blockhash it holds).
//   - stake_account (withdraw): a stake account whose withdraw authority is
//     the wallet with nothing staked any more (initialized and never
//     delegated, or a delegation fully deactivated: stake.Account.Staked is
//     0 at the cluster's Clock, under StakeHistory) and no lockup in force;
//     an active or cooling-down account is not listed. A lockup whose
//     custodian is the wallet is not used: such an account waits for its
//     lockup to pass.

// newAccountItem is the item of an account reclaimed whole.
func newAccountItem(t ItemType, address, wallet, program solana.PublicKey, lamports uint64) Item {
	return Item{Type: t, Address: address, Owner: wallet, TokenProgram: program, Lamports: lamports, Actions: ActionsFor(t)}
}

// bufferOf is the buffer at address as an item of wallet; reason says why
// it is none.
func bufferOf(address, owner solana.PublicKey, lamports uint64, d []byte, wallet solana.PublicKey) (Item, string) {
	b, err := loaderv3.ParseBuffer(d)
	switch {
	case !owner.Equals(loaderv3.ProgramID) || err != nil:
		return Item{}, reasonNotBuffer
	case b.Authority == nil || !b.Authority.Equals(wallet):
		return Item{}, reasonOtherAuthority
	}
	return newAccountItem(TypeProgramBuffer, address, wallet, owner, lamports), ""
}

// accountOf makes the item of an account a scan found, or says why there
// is none.
type accountOf func(address, owner solana.PublicKey, lamports uint64, d []byte) (Item, string)

// itemsOf are the items of the accounts res found, their rent under r;
// those of gives a reason for left out.
func itemsOf(res rpc.GetProgramAccountsResult, of accountOf, r rent.Sysvar) []Item {
	var out []Item
	for _, ka := range res {
		if ka != nil && ka.Account != nil {
			if it, reason := of(ka.Pubkey, ka.Account.Owner, ka.Account.Lamports, data(ka.Account)); reason == "" {
				it.Rent = rentOf(it, accountSize(ka.Account), r)
				out = append(out, it)
			}
		}
	}
	return out
}

// forWallet binds the wallet of an item maker.
func forWallet(f func(address, owner solana.PublicKey, lamports uint64, d []byte, wallet solana.PublicKey) (Item, string), wallet solana.PublicKey) accountOf {
	return func(address, owner solana.PublicKey, lamports uint64, d []byte) (Item, string) {
		return f(address, owner, lamports, d, wallet)
	}
}

// nonceOf is the nonce account at address as an item of wallet; reason
// says why it is none.
func nonceOf(address, owner solana.PublicKey, lamports uint64, d []byte, wallet solana.PublicKey) (Item, string) {
	n, err := nonce.Parse(d)
	switch {
	case !owner.Equals(solana.SystemProgramID) || err != nil:
		return Item{}, reasonNotNonce
	case !n.Authority.Equals(wallet):
		return Item{}, reasonOtherAuthority
	}
	return newAccountItem(TypeNonceAccount, address, wallet, owner, lamports), ""
}

// stakeAccount is a stake account of the wallet as read.
type stakeAccount struct {
	address  solana.PublicKey
	lamports uint64
	size     uint64
	state    stake.Account
}

// stakeAccounts are the stake accounts res found whose withdraw authority
// is wallet.
func stakeAccounts(res rpc.GetProgramAccountsResult, wallet solana.PublicKey) []stakeAccount {
	var out []stakeAccount
	for _, ka := range res {
		if ka == nil || ka.Account == nil || !ka.Account.Owner.Equals(stake.ProgramID) {
			continue
		}
		if s, err := stake.Parse(data(ka.Account)); err == nil && s.Withdrawer.Equals(wallet) {
			out = append(out, stakeAccount{address: ka.Pubkey, lamports: ka.Account.Lamports, size: accountSize(ka.Account), state: s})
		}
	}
	return out
}

// needsHistory reports whether deciding what of accs is still staked needs
// the StakeHistory sysvar: a delegation deactivated before the current
// epoch may still be cooling down.
func needsHistory(accs []stakeAccount, st clusterState) bool {
	for _, a := range accs {
		if d := a.state.Delegation; d != nil && st.hasClock && d.DeactivationEpoch != stake.NotDeactivated && st.clock.Epoch > d.DeactivationEpoch {
			return true
		}
	}
	return false
}

// stakeOf is a stake account as an item of wallet; reason says why it is
// none.
func stakeOf(a stakeAccount, wallet solana.PublicKey, st clusterState, h stake.History) (Item, string) {
	if !st.hasClock {
		return Item{}, reasonNoClock
	}
	if ok, why := a.state.Withdrawable(wallet, st.clock, h); !ok {
		return Item{}, "stake account cannot be withdrawn now: " + why
	}
	it := newAccountItem(TypeStakeAccount, a.address, wallet, stake.ProgramID, a.lamports)
	it.Rent = rentOf(it, a.size, st.rentSysvar())
	return it, ""
}

func stakeItems(accs []stakeAccount, wallet solana.PublicKey, st clusterState, h stake.History) []Item {
	return itemsWhere(accs, func(a stakeAccount) (Item, string) { return stakeOf(a, wallet, st, h) })
}

// itemsWhere are the items of accs that of makes (no reason given).
func itemsWhere[T any](accs []T, of func(T) (Item, string)) []Item {
	var out []Item
	for _, a := range accs {
		if it, reason := of(a); reason == "" {
			out = append(out, it)
		}
	}
	return out
}
