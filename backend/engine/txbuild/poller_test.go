package txbuild

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/feature"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
)

// polled is a Poller over f that has polled once, at the clock's time.
func polled(t *testing.T, f *fakeRPC, accounts ...solana.PublicKey) (*Poller, *clocktest.Clock) {
	t.Helper()
	c := clocktest.New(time.Unix(1_800_000_000, 0))
	p := NewPoller(f, time.Second, accounts...)
	p.now = c.Now
	p.Poll(context.Background())
	return p, c
}

// pTokenActive answers the p-token feature account as activated.
func pTokenActive(f *fakeRPC) {
	inner := f.accounts
	f.accounts = func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
		if len(keys) == 1 && keys[0].Equals(spltoken.PTokenFeature) {
			// Feature: Option<u64> activated_at = Some(7).
			data := []byte{1, 7, 0, 0, 0, 0, 0, 0, 0}
			return &rpc.GetMultipleAccountsResult{Value: []*rpc.Account{{
				Lamports: 1, Owner: feature.ProgramID, Data: rpc.DataBytesOrJSONFromBytes(data),
			}}}, nil
		}
		return inner(keys)
	}
}

// TestPollerServesBuilds: while its poll is fresh, a build asks neither the
// blockhash nor the fees (the Poller's query, over the treasury, prices its
// closes), and simulates nothing: its one call is the recipients' read. A
// stale poll (older than three intervals) and a failed one make the build
// ask for itself.
func TestPollerServesBuilds(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.fees = func(accounts solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
		return []rpc.PriorizationFeeResult{{Slot: 1, PrioritizationFee: 40}, {Slot: 2, PrioritizationFee: 60}}, nil
	}
	p, c := polled(t, f, treasury)
	if fmt.Sprint(f.feeAccounts) != fmt.Sprint([]solana.PublicKeySlice{{treasury}}) {
		t.Fatalf("the Poller asked fees over %v, want the treasury", f.feeAccounts)
	}
	polls := map[string]int{"getLatestBlockhash": 1, "getMultipleAccounts": 1, "getRecentPrioritizationFees": 1}
	if fmt.Sprint(f.calls) != fmt.Sprint(polls) {
		t.Fatalf("a poll made %v, want %v", f.calls, polls)
	}
	b := NewBuilder(f, WithPoller(p))
	count := func() map[string]int {
		f.mu.Lock()
		defer f.mu.Unlock()
		out := map[string]int{}
		for k, v := range f.calls {
			out[k] = v - polls[k]
		}
		f.calls = map[string]int{}
		for k, v := range polls {
			f.calls[k] = v
		}
		return out
	}

	c.Advance(3 * time.Second) // three intervals: still fresh
	res, err := b.Build(context.Background(), fullParams(empties(40), 0))
	if err != nil || len(res.Txs) != 2 {
		t.Fatalf("%d transactions, %v", len(res.Txs), err)
	}
	if got := count(); fmt.Sprint(got) != fmt.Sprint(map[string]int{"getLatestBlockhash": 0, "getMultipleAccounts": 1, "getRecentPrioritizationFees": 0}) {
		t.Errorf("a build with a fresh poll made %v, want the recipients' read alone", got)
	}
	for i, tx := range res.Txs {
		if tx.ComputeUnitPrice != 40 || tx.Transaction.Message.RecentBlockhash != solana.Hash(key("blockhash")) {
			t.Errorf("transaction %d pays %d (want 40, the median of the polled fees), blockhash %s", i, tx.ComputeUnitPrice, tx.Transaction.Message.RecentBlockhash)
		}
	}

	c.Advance(time.Millisecond) // stale
	if _, err := b.Build(context.Background(), fullParams(empties(40), 0)); err != nil {
		t.Fatal(err)
	}
	if got := count(); got["getLatestBlockhash"] != 1 || got["getRecentPrioritizationFees"] != 1 {
		t.Errorf("a build with a stale poll made %v, want its own blockhash and fees", got)
	}

	f.blockhash = func(rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error) { return nil, fmt.Errorf("down") }
	c.Advance(time.Second)
	p.Poll(context.Background()) // the blockhash fails, the fees are fresh again
	count()
	f.blockhash = newFake().blockhash
	if _, err := b.Build(context.Background(), fullParams(empties(40), 0)); err != nil {
		t.Fatal(err)
	}
	if got := count(); got["getLatestBlockhash"] != 1 || got["getRecentPrioritizationFees"] != 0 {
		t.Errorf("a build after a failed blockhash poll made %v, want its own blockhash and the polled fees", got)
	}
}

// TestPollerPToken: the Poller reads the p-token feature until it sees it
// active, then never again, and the build takes p-token's costs.
func TestPollerPToken(t *testing.T) {
	t.Parallel()
	f := newFake()
	p, _ := polled(t, f)
	if p.PToken() {
		t.Fatal("p-token active on a cluster whose feature account is not a feature")
	}
	classic := build(t, f, fullParams(empties(3), 0)).Txs[0].ComputeUnits
	pTokenActive(f)
	p.Poll(context.Background())
	p.Poll(context.Background())
	// Reads: the first two polls' and the build's recipients; not the third poll's.
	if !p.PToken() || f.calls["getMultipleAccounts"] != 3 {
		t.Fatalf("p-token %v after %d reads, want 3", p.PToken(), f.calls["getMultipleAccounts"])
	}
	lower := build(t, f, fullParams(empties(3), 0), WithPoller(p)).Txs[0].ComputeUnits
	if lower >= classic {
		t.Errorf("%d units with p-token, %d without", lower, classic)
	}
}

// TestPollerRun: Run polls at once and returns when its context ends.
func TestPollerRun(t *testing.T) {
	t.Parallel()
	f := newFake()
	first := make(chan struct{})
	var once sync.Once
	f.blockhash = func(c rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error) {
		once.Do(func() { close(first) })
		return newFake().blockhash(c)
	}
	p := NewPoller(f, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	<-first
	cancel()
	<-done
	if _, ok := p.blockhash(); !ok {
		t.Error("no fresh blockhash after the first poll")
	}
}

// TestTableUnits: the table sums known instructions, takes p-token's costs
// only where the cluster has it, and knows nothing of other programs.
func TestTableUnits(t *testing.T) {
	t.Parallel()
	items := []Selected{empty("a"), empty22("b"), core("c", 2_900_000)}
	for _, tc := range []struct {
		name   string
		items  []Selected
		pToken bool
		units  uint64
		known  bool
	}{
		{"SPL Token", items[:1], false, 4*150 + 4_000, true},
		{"p-token", items[:1], true, 4*150 + 1_000, true},
		{"Token-2022", items[1:2], true, 4*150 + 4_000, true},
		{"Core", items[2:], false, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tx, _, err := assemble(wallet, solana.Hash{}, tc.items, frame{units: 1, price: 1, donation: 1, donationTo: donee, fee: 1, treasury: treasury})
			if err != nil {
				t.Fatal(err)
			}
			if units, known := TableUnits(tx, tc.pToken); units != tc.units || known != tc.known {
				t.Errorf("%d units, known %v; want %d, %v", units, known, tc.units, tc.known)
			}
		})
	}
}

// TestPollerPricesUnnamedItems: a build whose reads were started before its
// items were known (select-all: Prefetch with no accounts) prices its closes
// from a fresh poll too, asking no fees.
func TestPollerPricesUnnamedItems(t *testing.T) {
	t.Parallel()
	f := newFake()
	p, _ := polled(t, f, treasury)
	b := NewBuilder(f, WithPoller(p))
	params := fullParams(empties(40), 0)
	pf := b.Prefetch(context.Background(), params, nil)
	if _, err := b.BuildWith(context.Background(), params, pf); err != nil {
		t.Fatal(err)
	}
	if n := f.calls["getRecentPrioritizationFees"]; n != 1 {
		t.Errorf("%d fee queries (the poll's and the build's), want the poll's alone", n)
	}
}
