package assets

import (
	"context"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
	"github.com/reclaim-sol/reclaim/backend/chain/nonce"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// Resolve reads the current state of exactly these items of wallet, for
// building, each as what the chain says it is: ResolveAs without types.
func (d *Discoverer) Resolve(ctx context.Context, wallet solana.PublicKey, addresses []solana.PublicKey) ([]Item, error) {
	return d.ResolveAs(ctx, wallet, addresses, nil)
}

// ResolveAs reads the current state of exactly these items of wallet, for
// building: items in the given order, without Metaplex display metadata,
// collections or prices (names from Token-2022's metadata extension come with
// the mint). types, when not nil, is index-aligned with addresses: the type
// each was selected as ("" for what the chain says); it matters for a token
// account selected as excess_rent, which resolves as its excess, not as the
// account. The mints of empty accounts are not read (a close needs nothing
// of them): such items have Decimals 0 and no name, so a selection of empty
// accounts resolves in one round trip. Token accounts of NFTs carry what a Token Metadata burn needs
// (one more chunked read for them; see metaplex.go), planned as burned
// together in the given order (metaplex.BurnPlan.Together). An address owned by
// the MPL Core program resolves as a Core asset (one more read, for the Rent
// sysvar, only when there is one); one owned by the upgradeable loader as a
// program buffer, by the System program as a nonce account, by the stake
// program as a stake account (excess.go, programaccounts.go). The Rent and
// Clock sysvars and the p-token feature come in the first read (every
// item's Rent needs the sysvar: rent.go), with the StakeHistory sysvar when
// types select a stake account, in one more read when a stake account not
// selected as one needs it.
// An address that does not exist, is none of these, belongs to another
// wallet or cannot be reclaimed now gives an *ItemError (the first one in
// order).
func (d *Discoverer) ResolveAs(ctx context.Context, wallet solana.PublicKey, addresses []solana.PublicKey, types []ItemType) ([]Item, error) {
	if types != nil && len(types) != len(addresses) {
		return nil, fmt.Errorf("resolve %d addresses with %d types", len(addresses), len(types))
	}
	ctx = rpclimit.Ensure(ctx)
	want := func(i int) ItemType {
		if types == nil {
			return ""
		}
		return types[i]
	}
	// The state comes with the addresses: every item's rent needs the Rent
	// sysvar (rent.go).
	cs := &stateReader{d: d, withState: true}
	keys := slices.Clone(addresses)
	for i := range addresses {
		switch want(i) {
		case TypeStakeAccount:
			cs.withHistory = true
		case TypeLookupTable:
			cs.withSlotHashes = true
		}
	}
	keys = append(keys, cs.keys()...)
	accs, err := d.accounts(ctx, keys)
	if err != nil {
		return nil, err
	}
	cs.set(accs[len(addresses):])
	accs = accs[:len(addresses)]

	items := make([]Item, len(addresses))
	var owned []ownedAccount
	var ownedAt []int
	var cores []coreAccount
	var coresAt []int
	for i, addr := range addresses {
		r, err := d.resolveOne(ctx, cs, wallet, i, addr, accs[i], want(i))
		switch {
		case err != nil:
			return nil, err
		case r.core != nil:
			cores, coresAt = append(cores, *r.core), append(coresAt, i)
		case r.owned != nil:
			owned, ownedAt = append(owned, *r.owned), append(ownedAt, i)
		default:
			items[i] = r.item
		}
	}
	tokens, err := d.resolveTokens(ctx, owned)
	if err != nil {
		return nil, err
	}
	coreList, err := coreItems(ctx, d, cores)
	if err != nil {
		return nil, err
	}
	withRent(tokens, owned, cs.st.rentSysvar())
	for k, it := range tokens {
		items[ownedAt[k]] = it
	}
	for k, it := range coreList {
		items[coresAt[k]] = it
	}
	return items, nil
}

// resolved is one address of ResolveAs: its item, or a token account or
// Core asset whose item needs more reads.
type resolved struct {
	item  Item
	owned *ownedAccount
	core  *coreAccount
}

// resolveOne reads the account a at addr (the i-th selection, selected as
// want) as ResolveAs does.
func (d *Discoverer) resolveOne(ctx context.Context, cs *stateReader, wallet solana.PublicKey, i int, addr solana.PublicKey, a *rpc.Account, want ItemType) (resolved, error) {
	fail := func(reason string) error { return &ItemError{Address: addr.String(), Index: i, Reason: reason} }
	if a == nil {
		return resolved{}, fail(reasonNotFound)
	}
	dt := data(a)
	var it Item
	var reason string
	switch {
	case a.Owner.Equals(mplcore.ProgramID):
		ca, err := mplcore.ParseAsset(dt)
		if err != nil {
			return resolved{}, fail(reasonNotCore)
		}
		if !ca.Owner.Equals(wallet) {
			return resolved{}, fail(reasonOtherWalletCore)
		}
		return resolved{core: &coreAccount{address: addr, asset: ca, size: uint64(len(dt))}}, nil
	case spltoken.IsProgram(a.Owner) && want == TypeExcessRent:
		st, err := cs.state(ctx)
		if err != nil {
			return resolved{}, err
		}
		it, reason = excessAt(addr, a, wallet, st)
	case a.Owner.Equals(loaderv3.ProgramID):
		it, reason = bufferOf(addr, a.Owner, a.Lamports, dt, wallet)
	case a.Owner.Equals(solana.SystemProgramID) && (len(dt) == nonce.Size || want == TypeNonceAccount):
		it, reason = nonceOf(addr, a.Owner, a.Lamports, dt, wallet)
	case a.Owner.Equals(stake.ProgramID):
		it, err := cs.stakeAt(ctx, i, addr, a, wallet)
		return resolved{item: it}, err
	case a.Owner.Equals(lookuptable.ProgramID):
		it, err := cs.tableAt(ctx, i, addr, a, wallet)
		return resolved{item: it}, err
	case a.Owner.Equals(solana.Token2022ProgramID) && want == TypeMint:
		it, reason = closableMintOf(addr, a.Owner, a.Lamports, dt, wallet)
	default:
		st, err := spltoken.ParseAccount(dt)
		if !spltoken.IsProgram(a.Owner) || err != nil {
			return resolved{}, fail(reasonNotToken)
		}
		if !st.Owner.Equals(wallet) {
			return resolved{}, fail(reasonOtherWallet)
		}
		return resolved{owned: &ownedAccount{address: addr, program: a.Owner, lamports: a.Lamports, size: uint64(len(dt)), state: st}}, nil
	}
	if reason != "" {
		return resolved{}, fail(reason)
	}
	it.Rent = rentOf(it, accountSize(a), cs.st.rentSysvar())
	return resolved{item: it}, nil
}

// resolveTokens gives the items of the selected token accounts, in order:
// their mints read, burns planned together.
func (d *Discoverer) resolveTokens(ctx context.Context, owned []ownedAccount) ([]Item, error) {
	// An empty account's type and actions do not depend on its mint, nor
	// does its close: its mint is not read.
	var held []ownedAccount
	for _, a := range owned {
		if a.state.Amount > 0 {
			held = append(held, a)
		}
	}
	mints, err := d.mints(ctx, held, false)
	if err != nil {
		return nil, err
	}
	tokens := make([]Item, len(owned))
	for i, a := range owned {
		var m mintInfo
		if a.state.Amount > 0 {
			m = mints[a.state.Mint]
		}
		tokens[i] = newItem(a, m)
	}
	if plan, at := planMetaplex(tokens, mints, false); len(plan.Keys) > 0 {
		// The selection burns together: prints sharing an edition marker
		// close it between them.
		plan.Together = true
		accs, err := d.accounts(ctx, plan.Keys)
		if err != nil {
			return nil, err
		}
		if err := d.applyBurns(ctx, plan, at, accs, tokens); err != nil {
			return nil, err
		}
	}
	return tokens, nil
}

// excessAt is the token account or mint a (at address) selected as
// excess_rent; reason says why it has none to withdraw.
func excessAt(address solana.PublicKey, a *rpc.Account, wallet solana.PublicKey, st clusterState) (Item, string) {
	d := data(a)
	acc, err := spltoken.ParseAccount(d)
	if err != nil {
		return mintOf(address, a.Owner, a.Lamports, d, wallet, st)
	}
	owned := ownedAccount{address: address, program: a.Owner, lamports: a.Lamports, size: uint64(len(d)), state: acc}
	switch {
	case !acc.Owner.Equals(wallet):
		return Item{}, reasonOtherWallet
	case acc.Native:
		return Item{}, reasonNativeExcess
	case !st.hasRent:
		return Item{}, reasonNoRent
	case !spltoken.WithdrawsExcess(a.Owner, st.pToken):
		return Item{}, reasonNoWithdrawExcess
	}
	it, ok := excessOf(owned, Item{Amount: acc.Amount, IsFrozen: acc.Frozen}, st, false)
	if !ok {
		return Item{}, reasonNoExcess
	}
	return it, ""
}

// stateReader reads the cluster's state for ResolveAs: with the addresses
// when their types ask for it, in a read of its own when an item needs it
// otherwise.
type stateReader struct {
	d                      *Discoverer
	withState, withHistory bool
	// withSlotHashes brings the SlotHashes sysvar along (a lookup table
	// was selected); hashes is what it read, nil when it did not.
	withSlotHashes bool
	read           bool
	st             clusterState
	history        stake.History
	hashes         lookuptable.SlotHashes
}

// keys are what the first read adds for the state.
func (r *stateReader) keys() []solana.PublicKey {
	var keys []solana.PublicKey
	if r.withState {
		keys = append(keys, stateKeys...)
	}
	if r.withHistory {
		keys = append(keys, solana.SysVarStakeHistoryPubkey)
	}
	if r.withSlotHashes {
		keys = append(keys, slotHashesAddress)
	}
	return keys
}

// set takes the accounts of keys.
func (r *stateReader) set(accs []*rpc.Account) {
	if r.withState {
		r.st, r.read = stateOf(accs[:len(stateKeys)]), true
	}
	if r.withHistory {
		r.history, _ = stake.ParseHistory(accs[len(stateKeys)])
	}
	if r.withSlotHashes {
		if a := accs[len(accs)-1]; a != nil {
			r.hashes, _ = lookuptable.ParseSlotHashes(data(a))
		}
	}
}

// state is the cluster's state, read now when the first read had not.
func (r *stateReader) state(ctx context.Context) (clusterState, error) {
	if !r.read {
		r.withState = true
		accs, err := r.d.accounts(ctx, r.keys())
		if err != nil {
			return clusterState{}, err
		}
		r.set(accs)
	}
	return r.st, nil
}

// stakeAt is the stake account a (at address, index at of the addresses)
// as an item of wallet, or an *ItemError saying why it cannot be withdrawn
// now.
func (r *stateReader) stakeAt(ctx context.Context, at int, address solana.PublicKey, a *rpc.Account, wallet solana.PublicKey) (Item, error) {
	fail := func(reason string) (Item, error) {
		return Item{}, &ItemError{Address: address.String(), Index: at, Reason: reason}
	}
	s, err := stake.Parse(data(a))
	if err != nil {
		return fail(reasonNotStake)
	}
	acc := stakeAccount{address: address, lamports: a.Lamports, size: accountSize(a), state: s}
	if !r.read {
		r.withHistory = true // the state's own read brings it along
	}
	st, err := r.state(ctx)
	if err != nil {
		return Item{}, err
	}
	if !r.withHistory && needsHistory([]stakeAccount{acc}, st) {
		accs, err := r.d.accounts(ctx, []solana.PublicKey{solana.SysVarStakeHistoryPubkey})
		if err != nil {
			return Item{}, err
		}
		r.history, _ = stake.ParseHistory(accs[0])
		r.withHistory = true
	}
	if !s.Withdrawer.Equals(wallet) {
		return fail(reasonOtherAuthority)
	}
	it, reason := stakeOf(acc, wallet, st, r.history)
	if reason != "" {
		return fail(reason)
	}
	return it, nil
}

// tableAt is the lookup table a (at address, index at of the addresses) as
// an item of wallet, or an *ItemError saying why it is none. A table
// deactivated needs the SlotHashes sysvar: read now when the first read
// did not bring it.
func (r *stateReader) tableAt(ctx context.Context, at int, address solana.PublicKey, a *rpc.Account, wallet solana.PublicKey) (Item, error) {
	fail := func(reason string) (Item, error) {
		return Item{}, &ItemError{Address: address.String(), Index: at, Reason: reason}
	}
	t, reason := tableOf(address, a, wallet)
	if reason != "" {
		return fail(reason)
	}
	st, err := r.state(ctx)
	if err != nil {
		return Item{}, err
	}
	if r.hashes == nil && needsSlotHashes([]tableAccount{t}) {
		if r.hashes, err = r.d.readSlotHashes(ctx); err != nil {
			return Item{}, err
		}
	}
	it, reason := tableItem(t, wallet, st, r.hashes)
	if reason != "" {
		return fail(reason)
	}
	return it, nil
}
