package assets

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/feature"
	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/chain/nonce"
	"github.com/reclaim-sol/reclaim/backend/chain/rent"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// What a listing finds on the cluster beyond the token accounts and the
// Sources: excess rent (excess.go), program buffers, nonce and stake
// accounts (programaccounts.go). Their reads go out in the listing's first
// round trip, with the two getTokenAccountsByOwner:
//   - one getMultipleAccounts of the Rent sysvar, the Clock sysvar and the
//     p-token feature account (spltoken.PTokenFeature): read on every
//     request, never cached, so a rent cut shows at once;
//   - one getProgramAccounts per kind the wallet may be the authority of:
//     mints of Token-2022 (memcmp on the mint authority) and of SPL Token
//     (memcmp, dataSize 82; its items are dropped where p-token is not
//     active: the classic program refuses WithdrawExcessLamports), loader
//     buffers (memcmp on the Buffer state and authority, data sliced to
//     the 37 bytes of state: a buffer holds a whole program), nonce
//     accounts (dataSize 80, memcmp on the authority), stake accounts
//     (dataSize 200, memcmp on the withdrawer), address lookup tables
//     (memcmp on the authority, data sliced to the 56-byte header). The
//     Token-2022 mints also give the mints the wallet can close.
// Two reads depend on the first round's answers and go out in the
// second, beside the mints of the token accounts: the StakeHistory sysvar
// (16 KB), only when a stake account of the wallet was deactivated before
// the current epoch (how much of it still cools down depends on it), and
// the SlotHashes sysvar (20 KB), only when a lookup table of the wallet
// was deactivated. So a listing stays at two round trips.

// clusterState is what the first round reads of the cluster itself.
type clusterState struct {
	rent    rent.Sysvar
	hasRent bool
	clock   stake.Clock
	// hasClock is false where the cluster did not serve the Clock: no
	// stake account is then offered.
	hasClock bool
	// pToken is SPL Token's support of WithdrawExcessLamports.
	pToken bool
}

// stateKeys are read for clusterState, in this order.
var stateKeys = []solana.PublicKey{rent.Address, solana.SysVarClockPubkey, spltoken.PTokenFeature}

// stateOf reads clusterState from the accounts of stateKeys.
func stateOf(accs []*rpc.Account) clusterState {
	var st clusterState
	st.rent, st.hasRent = rent.Read(accs[0])
	st.clock, st.hasClock = stake.ParseClock(accs[1])
	_, st.pToken = feature.Active(accs[2])
	return st
}

// pending is a read in flight.
type pending[T any] struct {
	done chan struct{}
	v    T
	err  error
}

func start[T any](f func() (T, error)) *pending[T] {
	p := &pending[T]{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.v, p.err = f()
	}()
	return p
}

// wait waits for the read, or ctx's end.
func (p *pending[T]) wait(ctx context.Context) (T, error) {
	select {
	case <-p.done:
		return p.v, p.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// programScan is one getProgramAccounts of the cluster scans.
type programScan struct {
	what    string // for errors: "token-2022 mints"
	program solana.PublicKey
	filters []rpc.RPCFilter
	slice   *rpc.DataSlice
}

func memcmp(offset uint64, b []byte) rpc.RPCFilter {
	return rpc.RPCFilter{Memcmp: &rpc.RPCFilterMemcmp{Offset: offset, Bytes: solana.Base58(b)}}
}

// The scans of a wallet's accounts, by kind.
func mintScan(program, wallet solana.PublicKey) programScan {
	s := programScan{what: "mints under " + program.String(), program: program,
		filters: []rpc.RPCFilter{memcmp(spltoken.MintAuthorityFilter, spltoken.MintAuthorityBytes(wallet))}}
	if program.Equals(solana.TokenProgramID) {
		s.filters = append(s.filters, rpc.RPCFilter{DataSize: spltoken.MintSize})
	}
	return s
}

func bufferScan(wallet solana.PublicKey) programScan {
	return programScan{what: "program buffers", program: loaderv3.ProgramID,
		filters: []rpc.RPCFilter{memcmp(0, loaderv3.AuthorityFilter(wallet))},
		slice:   &rpc.DataSlice{Offset: ptr[uint64](0), Length: ptr[uint64](loaderv3.BufferMetadataSize)}}
}

func nonceScan(wallet solana.PublicKey) programScan {
	return programScan{what: "nonce accounts", program: solana.SystemProgramID,
		filters: []rpc.RPCFilter{{DataSize: nonce.Size}, memcmp(nonce.AuthorityOffset, wallet[:])}}
}

func stakeScan(wallet solana.PublicKey) programScan {
	return programScan{what: "stake accounts", program: stake.ProgramID,
		filters: []rpc.RPCFilter{{DataSize: stake.Size}, memcmp(stake.WithdrawerOffset, wallet[:])}}
}

func ptr[T any](v T) *T { return &v }

// run makes the getProgramAccounts call of s (base64).
func (d *Discoverer) run(ctx context.Context, s programScan) (rpc.GetProgramAccountsResult, error) {
	res, err := rpclimit.Call(ctx, func(ctx context.Context) (rpc.GetProgramAccountsResult, error) {
		return d.rpc.GetProgramAccountsWithOpts(ctx, s.program, &rpc.GetProgramAccountsOpts{
			Commitment: commitment, Encoding: solana.EncodingBase64, Filters: s.filters, DataSlice: s.slice,
		})
	})
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", s.what, err)
	}
	return res, nil
}

// clusterRun is the cluster's reads of a listing, in the background.
type clusterRun struct {
	state   *pending[clusterState]
	items   *pending[[]Item]
	stopped sync.WaitGroup
}

// startCluster issues the first round's reads for wallet (each bounded by
// step), and those of the second as soon as their inputs are in; items
// gives the mints' excess, the buffers, the nonce and the stake accounts.
func (d *Discoverer) startCluster(ctx context.Context, wallet solana.PublicKey, step time.Duration) *clusterRun {
	r := &clusterRun{}
	scan := func(s programScan) *pending[rpc.GetProgramAccountsResult] {
		return start(func() (res rpc.GetProgramAccountsResult, err error) {
			err = within(ctx, step, func(ctx context.Context) (err error) {
				res, err = d.run(ctx, s)
				return err
			})
			return res, err
		})
	}
	r.state = start(func() (st clusterState, err error) {
		err = within(ctx, step, func(ctx context.Context) error {
			accs, err := d.accounts(ctx, stateKeys)
			if err != nil {
				return fmt.Errorf("read the Rent and Clock sysvars: %w", err)
			}
			st = stateOf(accs)
			return nil
		})
		return st, err
	})
	mints22, mints := scan(mintScan(solana.Token2022ProgramID, wallet)), scan(mintScan(solana.TokenProgramID, wallet))
	buffers, nonces, stakes := scan(bufferScan(wallet)), scan(nonceScan(wallet)), scan(stakeScan(wallet))
	tables := scan(lookupTableScan(wallet))
	history := d.startHistory(ctx, wallet, step, r.state, stakes)
	hashes := d.startSlotHashes(ctx, wallet, step, tables)
	r.items = start(func() ([]Item, error) {
		st, err := r.state.wait(ctx)
		if err != nil {
			return nil, err
		}
		var items []Item
		for _, p := range []*pending[rpc.GetProgramAccountsResult]{mints22, mints} {
			res, err := p.wait(ctx)
			if err != nil {
				return nil, err
			}
			items = append(items, mintExcessItems(res, wallet, st)...)
			if p == mints22 {
				items = append(items, itemsOf(res, forWallet(closableMintOf, wallet), st.rentSysvar())...)
			}
		}
		res, err := buffers.wait(ctx)
		if err != nil {
			return nil, err
		}
		items = append(items, itemsOf(res, forWallet(bufferOf, wallet), st.rentSysvar())...)
		if res, err = nonces.wait(ctx); err != nil {
			return nil, err
		}
		items = append(items, itemsOf(res, forWallet(nonceOf, wallet), st.rentSysvar())...)
		if res, err = stakes.wait(ctx); err != nil {
			return nil, err
		}
		h, err := history.wait(ctx)
		if err != nil {
			return nil, err
		}
		items = append(items, stakeItems(stakeAccounts(res, wallet), wallet, st, h)...)
		if res, err = tables.wait(ctx); err != nil {
			return nil, err
		}
		sh, err := hashes.wait(ctx)
		if err != nil {
			return nil, err
		}
		return append(items, tableItems(tableAccounts(res, wallet), wallet, st, sh)...), nil
	})
	// Nothing outlives the listing: wait for every read.
	all := []interface{ doneCh() chan struct{} }{r.state, mints22, buffers, nonces, stakes, tables, mints, history, hashes, r.items}
	r.stopped.Add(1)
	go func() {
		defer r.stopped.Done()
		for _, p := range all {
			<-p.doneCh()
		}
	}()
	return r
}

// startHistory reads the StakeHistory sysvar once the state and the stake
// accounts are in, only when a delegation needs it (needsHistory).
func (d *Discoverer) startHistory(ctx context.Context, wallet solana.PublicKey, step time.Duration, state *pending[clusterState], stakes *pending[rpc.GetProgramAccountsResult]) *pending[stake.History] {
	return start(func() (stake.History, error) {
		st, err := state.wait(ctx)
		if err != nil {
			return nil, err
		}
		res, err := stakes.wait(ctx)
		if err != nil || !needsHistory(stakeAccounts(res, wallet), st) {
			return nil, err
		}
		var h stake.History
		err = within(ctx, step, func(ctx context.Context) error {
			accs, err := d.accounts(ctx, []solana.PublicKey{solana.SysVarStakeHistoryPubkey})
			if err != nil {
				return fmt.Errorf("read the StakeHistory sysvar: %w", err)
			}
			h, _ = stake.ParseHistory(accs[0])
			return nil
		})
		return h, err
	})
}

// startSlotHashes reads the SlotHashes sysvar once the lookup tables are
// in, only when one was deactivated (needsSlotHashes).
func (d *Discoverer) startSlotHashes(ctx context.Context, wallet solana.PublicKey, step time.Duration, tables *pending[rpc.GetProgramAccountsResult]) *pending[lookuptable.SlotHashes] {
	return start(func() (lookuptable.SlotHashes, error) {
		res, err := tables.wait(ctx)
		if err != nil || !needsSlotHashes(tableAccounts(res, wallet)) {
			return nil, err
		}
		var h lookuptable.SlotHashes
		err = within(ctx, step, func(ctx context.Context) (err error) {
			h, err = d.readSlotHashes(ctx)
			return err
		})
		return h, err
	})
}

func (p *pending[T]) doneCh() chan struct{} { return p.done }

// wait waits until none of r's reads is in flight.
func (r *clusterRun) wait() { r.stopped.Wait() }
