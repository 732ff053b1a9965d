package txbuild

import (
	"context"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// Prioritization fees. getRecentPrioritizationFees answers, for each recent
// slot, the fee a transaction had to pay to write-lock all the accounts
// asked about: the highest of the block's minimum and of each account's own
// figure in that slot. A query over more accounts than a transaction writes
// therefore never answers less than the transaction's own query, and the
// slot-by-slot maximum of several queries is the answer of one query over
// all their accounts.
//
// A build asks before its items are read, together with them (see Prefetch):
// one query per 125 selected accounts in request order, each with the
// wallet, the donation wallet and the treasury, so a build of up to 125
// items asks once. A transaction whose writable accounts are all among those
// (closes, wrapped SOL) is priced from the queries holding its accounts;
// one that writes others (the mint of a burn or a harvest, the accounts of
// Metaplex, Core and Bubblegum burns) is priced, after packing, by one
// query per group of such transactions whose writable accounts number at
// most 128.

// With a Poller (poller.go) whose answer is fresh, a build asks nothing
// before packing: the Poller's query, over the accounts every build writes
// (the treasury) or over none, stands for the wallet, the recipients and
// the selected accounts too. Its answer is, slot by slot, the highest of
// the block's minimum and the treasury's figure; the build's own query
// could only answer more where the wallet, its token accounts or the
// project's donation wallet were write-locked by prioritized transactions
// of others in the last 150 slots, and only their owner (and Reclaim's own
// transactions) writes them. Transactions writing other accounts (a burn's
// mint, Metaplex, Core and Bubblegum accounts, which others do write) are
// priced by their own query after packing, as without a Poller.

// maxFeeAccounts is the most accounts one getRecentPrioritizationFees takes.
const maxFeeAccounts = 128

// feeQuery is one getRecentPrioritizationFees call in flight.
type feeQuery struct {
	done chan struct{}
	fees []rpc.PriorizationFeeResult
	err  error
}

// askFees starts a query over accounts.
func (b *Builder) askFees(ctx context.Context, accounts []solana.PublicKey) *feeQuery {
	q := &feeQuery{done: make(chan struct{})}
	go func() {
		defer close(q.done)
		q.fees, q.err = rpclimit.Call(ctx, func(ctx context.Context) ([]rpc.PriorizationFeeResult, error) {
			return b.rpc.GetRecentPrioritizationFees(ctx, accounts)
		})
		if q.err != nil {
			q.err = fmt.Errorf("txbuild: recent prioritization fees: %w", q.err)
		}
	}()
	return q
}

// feeBook is the queries a build asked before its items were read.
type feeBook struct {
	// common are in every query: the wallet and the transfer recipients.
	common []solana.PublicKey
	// of is the query holding each selected account.
	of      map[solana.PublicKey]*feeQuery
	queries []*feeQuery
	// polled is set when the one query is the Poller's (polledBook).
	polled bool
}

// holdItems lets a polled book price the accounts of items too, which a
// caller that prefetched before it knew them (select-all) did not name.
func (fb *feeBook) holdItems(items []Selected) {
	if fb == nil || !fb.polled {
		return
	}
	for _, k := range writtenBy(items) {
		if _, ok := fb.of[k]; !ok {
			fb.of[k] = fb.queries[0]
		}
	}
}

// askAhead queries the fees of common and of written, in chunks that fill
// queries of maxFeeAccounts with common in each.
func (b *Builder) askAhead(ctx context.Context, common, written []solana.PublicKey) *feeBook {
	fb := &feeBook{common: common, of: map[solana.PublicKey]*feeQuery{}}
	per := maxFeeAccounts - len(common)
	var todo []solana.PublicKey
	for _, k := range written {
		if _, dup := fb.of[k]; !dup && !slices.Contains(common, k) {
			fb.of[k] = nil
			todo = append(todo, k)
		}
	}
	for start := 0; start < len(todo); start += per {
		chunk := todo[start:min(start+per, len(todo))]
		q := b.askFees(ctx, append(slices.Clone(common), chunk...))
		fb.queries = append(fb.queries, q)
		for _, k := range chunk {
			fb.of[k] = q
		}
	}
	return fb
}

// polledBook is the book of a build priced from the Poller's query q: it
// holds the build's wallet, recipients and written accounts (see fees.go's
// note on the Poller).
func polledBook(common, written []solana.PublicKey, q *feeQuery) *feeBook {
	fb := &feeBook{common: common, of: make(map[solana.PublicKey]*feeQuery, len(written)), queries: []*feeQuery{q}, polled: true}
	for _, k := range written {
		fb.of[k] = q
	}
	return fb
}

// cover returns the queries that hold every key of writable, or false when
// a key is in none of them.
func (fb *feeBook) cover(writable []solana.PublicKey) ([]*feeQuery, bool) {
	var qs []*feeQuery
	for _, k := range writable {
		if slices.Contains(fb.common, k) {
			continue
		}
		q := fb.of[k]
		if q == nil {
			return nil, false
		}
		if !slices.Contains(qs, q) {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		if len(fb.queries) == 0 {
			return nil, false
		}
		qs = fb.queries[:1] // only common accounts: any query holds them
	}
	return qs, true
}

// groupFees queries, after packing, the fees of the transactions cover
// leaves out: in order, in groups whose writable accounts number at most
// maxFeeAccounts, one query each. It returns the query of each such
// transaction, by index.
func (b *Builder) groupFees(ctx context.Context, writable [][]solana.PublicKey, uncovered []int) map[int]*feeQuery {
	out := map[int]*feeQuery{}
	var group []int
	var accounts []solana.PublicKey
	flush := func() {
		if len(group) == 0 {
			return
		}
		q := b.askFees(ctx, accounts)
		for _, i := range group {
			out[i] = q
		}
		group, accounts = nil, nil
	}
	for _, i := range uncovered {
		union := slices.Clone(accounts)
		for _, k := range writable[i] {
			if !slices.Contains(union, k) {
				union = append(union, k)
			}
		}
		if len(union) > maxFeeAccounts {
			flush()
			union = slices.Clone(writable[i])
		}
		group, accounts = append(group, i), union
	}
	flush()
	return out
}

// priceFrom is the compute unit price for percentile pct from the slot by
// slot maximum of qs, at least 1 micro-lamport; it waits for qs.
func priceFrom(ctx context.Context, qs []*feeQuery, pct int) (uint64, error) {
	bySlot := map[uint64]uint64{}
	var fees []uint64
	for _, q := range qs {
		select {
		case <-q.done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		if q.err != nil {
			return 0, q.err
		}
		for _, f := range q.fees {
			if len(qs) == 1 {
				fees = append(fees, f.PrioritizationFee)
				continue
			}
			bySlot[f.Slot] = max(bySlot[f.Slot], f.PrioritizationFee)
		}
	}
	for _, f := range bySlot {
		fees = append(fees, f)
	}
	return max(percentile(fees, pct), 1), nil
}

// writableOf lists the accounts a transaction of items within f writes:
// the fee payer and every account an instruction marks writable.
func writableOf(wallet solana.PublicKey, items []Selected, f frame) []solana.PublicKey {
	out := []solana.PublicKey{wallet}
	add := func(ixs []solana.Instruction) {
		for _, ix := range ixs {
			for _, m := range ix.Accounts() {
				if m.IsWritable && !slices.Contains(out, m.PublicKey) {
					out = append(out, m.PublicKey)
				}
			}
		}
	}
	add(f.budget())
	for _, s := range items {
		add(itemInstructions(s, wallet))
	}
	add(f.transfers(wallet))
	return out
}
