package assets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

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
// getTokenAccountsByOwner call each, in parallel), sorted by address. Accounts
// that do not parse as initialized token accounts are left out: nothing can be
// reclaimed from them.
func (d *Discoverer) ownedTokenAccounts(ctx context.Context, wallet solana.PublicKey) ([]ownedAccount, error) {
	return d.startOwned(ctx, wallet, 0)()
}

// startOwned starts ownedTokenAccounts' reads, one getTokenAccountsByOwner
// per token program, each under a deadline of step (none when 0), and
// returns once both have their slot and are about to send (or ctx ends;
// under a limit of one slot, once the first has it):
// calls started after it go out after them, so a provider that answers in
// the order requests come (the local validator answers one at a time)
// answers the token accounts, which a stream's first chunk waits for,
// before the listing's scans. The result waits for both and has the
// accounts sorted by address: each list is sorted as it arrives, while the
// other is still read, and the two are merged.
func (d *Discoverer) startOwned(ctx context.Context, wallet solana.PublicKey, step time.Duration) func() ([]ownedAccount, error) {
	results := make([][]ownedAccount, len(spltoken.Programs))
	errs := make([]error, len(spltoken.Programs))
	sent := make([]<-chan struct{}, len(spltoken.Programs))
	var wg sync.WaitGroup
	for i, program := range spltoken.Programs {
		pctx, out, done := rpclimit.Started(ctx)
		sent[i] = out
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer done()
			errs[i] = within(pctx, step, func(ctx context.Context) (err error) {
				results[i], err = rpclimit.Call(ctx, func(ctx context.Context) ([]ownedAccount, error) {
					return d.programTokenAccounts(ctx, wallet, program)
				})
				return err
			})
			if errs[i] == nil {
				sortByAddress(results[i], ownedKey)
			}
		}()
	}
	// Under a limit of fewer slots than reads, waiting for the last would
	// hold back the rest of the round (the Sources' indexers included) by
	// a whole call: it waits for the slots there are.
	wait := sent
	if l := rpclimit.From(ctx); l != nil && l.Size() < len(sent) {
		wait = sent[:l.Size()]
	}
	for _, out := range wait {
		select {
		case <-out:
		case <-ctx.Done():
		}
	}
	return func() ([]ownedAccount, error) {
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("get token accounts of %s under %s: %w", wallet, spltoken.Programs[i], err)
			}
		}
		out := results[0]
		for _, r := range results[1:] {
			out = mergeByAddress(out, r)
		}
		return out, nil
	}
}

func ownedKey(a ownedAccount) string { return a.key }

// mergeByAddress merges two lists sorted by address into one, as
// sortByAddress sorts a's accounts followed by b's: on equal addresses a's
// come first.
func mergeByAddress(a, b []ownedAccount) []ownedAccount {
	out := make([]ownedAccount, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].key < a[0].key {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
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

// maxBatch is the most getMultipleAccounts calls one HTTP request to the
// cluster carries (a JSON-RPC batch): 8 calls of 100 keys are about 40 KB
// of request, within the 50 KiB a Solana node accepts.
const maxBatch = 8

// chunkReader reads chunks of at most maxKeysPerCall keys into one result,
// each chunk's call issued as soon as read is called, so that a caller that
// derives keys (PDAs) chunk by chunk overlaps the derivation with the calls.
//
// A read of more chunks than ctx's rpclimit.Limit has slots would take
// several round trips: its calls then go out in JSON-RPC batches of up to
// maxBatch, as few per HTTP request as keep the requests within the
// Limit's slots (three quarters of them: a wallet of 10,000 empty accounts
// makes 151 calls, in 22 requests of up to 7 at the default 32), each
// request in one slot. This needs solana-go's
// client (any other RPC gets one call per chunk); a batch the cluster
// refuses is sent again as single calls.
type chunkReader struct {
	d        *Discoverer
	ctx      context.Context
	cancel   context.CancelFunc
	out      []*rpc.Account
	wg       sync.WaitGroup
	mu       sync.Mutex
	firstErr error
	batch    int         // calls per request
	client   *rpc.Client // what sends batches
	pending  []keyChunk
}

// keyChunk is one call's keys and where their accounts go in the result.
type keyChunk struct {
	start int
	keys  []solana.PublicKey
}

// reader reads n keys, in about calls chunks (the calls of a batch count
// once against the Limit).
func (d *Discoverer) reader(ctx context.Context, n int) *chunkReader {
	ctx, cancel := context.WithCancel(ctx)
	r := &chunkReader{d: d, ctx: ctx, cancel: cancel, out: make([]*rpc.Account, n), batch: 1}
	if client, ok := d.rpc.(*rpc.Client); ok {
		r.client = client
		if l := rpclimit.From(ctx); l != nil {
			// Chunks of 99 keys (a mint and its PDA never split), in
			// three quarters of the slots: the listing's first round
			// (nine calls) may still hold some.
			calls, slots := (n+maxKeysPerCall-2)/(maxKeysPerCall-1), max(1, l.Size()*3/4)
			r.batch = min(maxBatch, max(1, (calls+slots-1)/slots))
		}
	}
	return r
}

// read reads chunk into the result from index start on.
func (r *chunkReader) read(start int, chunk []solana.PublicKey) {
	r.pending = append(r.pending, keyChunk{start: start, keys: chunk})
	if len(r.pending) >= r.batch {
		r.send(r.pending)
		r.pending = nil
	}
}

// send issues one request for chunks.
func (r *chunkReader) send(chunks []keyChunk) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		var err error
		if len(chunks) == 1 {
			err = r.one(chunks[0])
		} else {
			err = r.batched(chunks)
		}
		if err != nil {
			r.mu.Lock()
			if r.firstErr == nil {
				r.firstErr = err
				r.cancel()
			}
			r.mu.Unlock()
		}
	}()
}

var (
	multipleOpts = &rpc.GetMultipleAccountsOpts{Commitment: commitment, Encoding: solana.EncodingBase64}
	// batchConfig is multipleOpts as the call's JSON names them.
	batchConfig = rpc.M{"commitment": commitment, "encoding": solana.EncodingBase64}
)

// one reads c in its own call.
func (r *chunkReader) one(c keyChunk) error {
	res, err := rpclimit.Call(r.ctx, func(ctx context.Context) (*rpc.GetMultipleAccountsResult, error) {
		return r.d.rpc.GetMultipleAccountsWithOpts(ctx, c.keys, multipleOpts)
	})
	return r.store(c, res, err)
}

func (r *chunkReader) store(c keyChunk, res *rpc.GetMultipleAccountsResult, err error) error {
	if err == nil && (res == nil || len(res.Value) != len(c.keys)) {
		err = fmt.Errorf("%d accounts for %d keys", lenValue(res), len(c.keys))
	}
	if err != nil {
		return fmt.Errorf("get %d accounts: %w", len(c.keys), err)
	}
	copy(r.out[c.start:], res.Value)
	return nil
}

// batched reads chunks in one JSON-RPC batch; when the cluster refuses or
// garbles the batch, each chunk again in its own call.
func (r *chunkReader) batched(chunks []keyChunk) error {
	results, err := rpclimit.Call(r.ctx, func(ctx context.Context) ([]*rpc.GetMultipleAccountsResult, error) {
		reqs := make(jsonrpc.RPCRequests, len(chunks))
		for i, c := range chunks {
			reqs[i] = &jsonrpc.RPCRequest{Method: "getMultipleAccounts", Params: []any{c.keys, batchConfig}}
		}
		answers, err := r.client.RPCCallBatch(ctx, reqs)
		if err != nil {
			return nil, err
		}
		return batchResults(answers, len(chunks))
	})
	if err != nil {
		if r.ctx.Err() != nil {
			return err
		}
		var errs []error
		for _, c := range chunks {
			errs = append(errs, r.one(c))
		}
		return errors.Join(errs...)
	}
	for i, c := range chunks {
		if err := r.store(c, results[i], nil); err != nil {
			return err
		}
	}
	return nil
}

// batchResults decodes a batch's answers, matched to the n requests by
// their ids (0 to n-1, as solana-go numbers them; a server may answer in
// any order). An error object in any answer fails the batch.
func batchResults(answers jsonrpc.RPCResponses, n int) ([]*rpc.GetMultipleAccountsResult, error) {
	out := make([]*rpc.GetMultipleAccountsResult, n)
	for _, a := range answers {
		if a == nil {
			continue
		}
		id, err := strconv.Atoi(fmt.Sprint(a.ID))
		if err != nil || id < 0 || id >= n || out[id] != nil {
			return nil, fmt.Errorf("batch answer with id %v", a.ID)
		}
		if a.Error != nil {
			return nil, a.Error
		}
		var res rpc.GetMultipleAccountsResult
		if err := json.Unmarshal(a.Result, &res); err != nil {
			return nil, fmt.Errorf("batch answer %d: %w", id, err)
		}
		out[id] = &res
	}
	for i, res := range out {
		if res == nil {
			return nil, fmt.Errorf("no answer to call %d of %d in the batch", i, n)
		}
	}
	return out, nil
}

// wait sends what read holds back, then waits for every chunk: the
// accounts, or the first error.
func (r *chunkReader) wait() ([]*rpc.Account, error) {
	if len(r.pending) > 0 {
		r.send(r.pending)
		r.pending = nil
	}
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
