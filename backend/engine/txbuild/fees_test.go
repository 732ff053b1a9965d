package txbuild

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// TestBuildFeesAskedAhead: a build of 300 closes asks three fee queries
// before packing, 125 selected accounts each with the wallet, the donation
// wallet and the treasury; each transaction pays the percentile of the slot
// by slot maximum of the queries holding its accounts, so one touching the
// second query pays its fees; burns (their mints are written) are asked
// after packing, one query for the group of their transactions.
func TestBuildFeesAskedAhead(t *testing.T) {
	t.Parallel()
	hot := key("empty 200") // in the second query
	f := newFake()
	f.fees = func(accounts solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
		if slices.Contains(accounts, hot) {
			return []rpc.PriorizationFeeResult{{Slot: 1, PrioritizationFee: 1_000}, {Slot: 2, PrioritizationFee: 900}}, nil
		}
		return []rpc.PriorizationFeeResult{{Slot: 1, PrioritizationFee: 10}, {Slot: 2, PrioritizationFee: 20}}, nil
	}
	items := empties(300)
	for i := range 30 {
		items = append(items, token(fmt.Sprint("burn ", i), 5))
	}
	res := build(t, f, fullParams(items, 0))
	if len(f.feeAccounts) != 4 {
		t.Fatalf("%d fee queries, want 3 ahead and 1 after packing", len(f.feeAccounts))
	}
	var sizes []int
	var after solana.PublicKeySlice
	for _, accounts := range f.feeAccounts {
		if slices.Contains(accounts, key("mint burn 0")) {
			after = accounts
			continue
		}
		sizes = append(sizes, len(accounts))
		if !slices.Contains(accounts, wallet) || !slices.Contains(accounts, donee) || !slices.Contains(accounts, treasury) {
			t.Errorf("a query ahead without the wallet or a recipient")
		}
	}
	// 330 selected accounts: 125, 125 and 80, each with the 3 others.
	if slices.Sort(sizes); fmt.Sprint(sizes) != "[83 128 128]" || len(after) == 0 || len(after) > maxFeeAccounts {
		t.Errorf("queries ahead of %v accounts, after packing %d", sizes, len(after))
	}
	index := map[solana.PublicKey]int{}
	for i, s := range items {
		index[s.Item.Address] = i
	}
	for n, tx := range res.Txs {
		want := uint64(10) // the 50th percentile (nearest rank) of 10 and 20
		for _, s := range tx.Includes {
			if i := index[s.Item.Address]; i >= 125 && i < 250 {
				want = 900 // of 1,000 and 900
			}
		}
		if tx.ComputeUnitPrice != want {
			t.Errorf("transaction %d (%s, %d items) pays %d, want %d", n, tx.LedgerType, len(tx.Includes), tx.ComputeUnitPrice, want)
		}
	}
	if f.calls["simulateTransaction"] != 0 {
		t.Errorf("%d simulations of closes and token burns, which the compute table knows", f.calls["simulateTransaction"])
	}
}

// barrierRPC holds each simulation until want are in flight, and records
// the most in flight at once.
type barrierRPC struct {
	*fakeRPC
	want     int
	mu       sync.Mutex
	inFlight int
	most     int
	all      chan struct{}
	once     sync.Once
}

func (b *barrierRPC) SimulateTransactionWithOpts(ctx context.Context, tx *solana.Transaction, opts *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error) {
	b.mu.Lock()
	b.inFlight++
	b.most = max(b.most, b.inFlight)
	if b.inFlight == b.want {
		b.once.Do(func() { close(b.all) })
	}
	b.mu.Unlock()
	select {
	case <-b.all:
	case <-time.After(10 * time.Second):
	}
	b.mu.Lock()
	b.inFlight--
	b.mu.Unlock()
	return b.fakeRPC.SimulateTransactionWithOpts(ctx, tx, opts)
}

// TestBuildSimulatesAtOnce: every simulation of a build is in flight before
// any answers, and never more at once than the request's rpclimit.Limit.
func TestBuildSimulatesAtOnce(t *testing.T) {
	t.Parallel()
	items := cores(150) // simulated: the compute table does not know Core's burn
	n := len(build(t, newFake(), fullParams(items, 0)).Txs)
	if n < 4 || n > rpclimit.Default {
		t.Fatalf("%d transactions, want 4 to %d", n, rpclimit.Default)
	}
	for _, tc := range []struct{ limit, together int }{{rpclimit.Default, n}, {3, 3}} {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			t.Parallel()
			b := &barrierRPC{fakeRPC: newFake(), want: tc.together, all: make(chan struct{})}
			ctx := rpclimit.With(context.Background(), rpclimit.New(tc.limit))
			res, err := NewBuilder(b).Build(ctx, fullParams(items, 0))
			if err != nil || len(res.Txs) != n {
				t.Fatalf("%d transactions, %v", len(res.Txs), err)
			}
			if b.most != tc.together {
				t.Errorf("%d simulations in flight at most, want %d", b.most, tc.together)
			}
		})
	}
}

// TestBuildWithPrefetch: reads started before the items are known serve the
// build (one blockhash, one recipients read, one fee query); a Prefetch made
// for other transfers is refused.
func TestBuildWithPrefetch(t *testing.T) {
	t.Parallel()
	f := newFake()
	p := fullParams(empties(40), 0)
	bld := NewBuilder(f)
	pf := bld.Prefetch(context.Background(), Params{Wallet: p.Wallet, DonationPercentage: 0.1, DonationWallet: &donee,
		ServiceFeeBPS: 500, Treasury: &treasury, PriorityLevel: PriorityMedium}, writtenBy(p.Items))
	res, err := bld.BuildWith(context.Background(), p, pf)
	if err != nil || len(res.Txs) != 2 {
		t.Fatalf("%d transactions, %v", len(res.Txs), err)
	}
	want := map[string]int{"getLatestBlockhash": 1, "getMultipleAccounts": 1, "getRecentPrioritizationFees": 1}
	if fmt.Sprint(f.calls) != fmt.Sprint(want) {
		t.Errorf("calls %v, want %v", f.calls, want)
	}
	other := bld.Prefetch(context.Background(), Params{Wallet: p.Wallet, PriorityLevel: PriorityMedium}, writtenBy(p.Items))
	if _, err := bld.BuildWith(context.Background(), p, other); err == nil {
		t.Error("built with reads made for a build without transfers")
	}
}
