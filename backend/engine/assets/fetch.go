package assets

import (
	"context"
	"fmt"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// Cluster reads. getMultipleAccounts takes at most 100 keys per call, so every key
// list is read in chunks of 100: the number of calls grows with ceil(keys / 100).
// The chunks of a read go out together, each in a slot of the request's
// rpclimit.Limit, so a read costs one round trip as long as the Limit has a
// slot for each of its chunks.
const (
	maxKeysPerCall = 100
	commitment     = rpc.CommitmentConfirmed
)

// ownedAccount is a token account read from the cluster.
type ownedAccount struct {
	address  solana.PublicKey
	key      string // address in base58, set by discovery (Resolve leaves it empty)
	program  solana.PublicKey
	lamports uint64
	size     uint64 // data length: what its rent-exempt minimum is of
	state    spltoken.Account
}

// ownedTokenAccounts lists wallet's token accounts under both token programs (one
// getTokenAccountsByOwner call each, in parallel). Accounts that do not parse as
// initialized token accounts are left out: nothing can be reclaimed from them.
func (d *Discoverer) ownedTokenAccounts(ctx context.Context, wallet solana.PublicKey) ([]ownedAccount, error) {
	results := make([][]ownedAccount, len(spltoken.Programs))
	errs := make([]error, len(spltoken.Programs))
	var wg sync.WaitGroup
	for i, program := range spltoken.Programs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = rpclimit.Call(ctx, func(ctx context.Context) ([]ownedAccount, error) {
				return d.programTokenAccounts(ctx, wallet, program)
			})
		}()
	}
	wg.Wait()
	var out []ownedAccount
	for i, res := range results {
		if errs[i] != nil {
			return nil, fmt.Errorf("get token accounts of %s under %s: %w", wallet, spltoken.Programs[i], errs[i])
		}
		out = append(out, res...)
	}
	return out, nil
}

// accounts reads keys with getMultipleAccounts in chunks of maxKeysPerCall,
// all issued at once (each waits for a slot of ctx's rpclimit.Limit); the
// result is aligned with keys, nil where an account does not exist. The
// first failing chunk cancels the others.
func (d *Discoverer) accounts(ctx context.Context, keys []solana.PublicKey) ([]*rpc.Account, error) {
	r := d.reader(ctx, len(keys))
	for start := 0; start < len(keys); start += maxKeysPerCall {
		r.read(start, keys[start:min(start+maxKeysPerCall, len(keys))])
	}
	return r.wait()
}

// chunkReader reads chunks of at most maxKeysPerCall keys into one result,
// each chunk's call issued as soon as read is called, so that a caller that
// derives keys (PDAs) chunk by chunk overlaps the derivation with the calls.
type chunkReader struct {
	d        *Discoverer
	ctx      context.Context
	cancel   context.CancelFunc
	out      []*rpc.Account
	wg       sync.WaitGroup
	mu       sync.Mutex
	firstErr error
}

func (d *Discoverer) reader(ctx context.Context, n int) *chunkReader {
	ctx, cancel := context.WithCancel(ctx)
	return &chunkReader{d: d, ctx: ctx, cancel: cancel, out: make([]*rpc.Account, n)}
}

// read reads chunk into the result from index start on.
func (r *chunkReader) read(start int, chunk []solana.PublicKey) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		res, err := rpclimit.Call(r.ctx, func(ctx context.Context) (*rpc.GetMultipleAccountsResult, error) {
			return r.d.rpc.GetMultipleAccountsWithOpts(ctx, chunk,
				&rpc.GetMultipleAccountsOpts{Commitment: commitment, Encoding: solana.EncodingBase64})
		})
		if err == nil && (res == nil || len(res.Value) != len(chunk)) {
			err = fmt.Errorf("%d accounts for %d keys", lenValue(res), len(chunk))
		}
		if err != nil {
			r.mu.Lock()
			if r.firstErr == nil {
				r.firstErr = fmt.Errorf("get %d accounts: %w", len(chunk), err)
				r.cancel()
			}
			r.mu.Unlock()
			return
		}
		copy(r.out[start:], res.Value)
	}()
}

// wait waits for every chunk: the accounts, or the first error.
func (r *chunkReader) wait() ([]*rpc.Account, error) {
	r.wg.Wait()
	r.cancel()
	if r.firstErr != nil {
		return nil, r.firstErr
	}
	return r.out, nil
}

func lenValue(res *rpc.GetMultipleAccountsResult) int {
	if res == nil {
		return 0
	}
	return len(res.Value)
}

// data is an account's bytes (nil for a missing account).
func data(a *rpc.Account) []byte {
	if a == nil || a.Data == nil {
		return nil
	}
	return a.Data.GetBinary()
}
