package assets

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// fakeSource is a Source with fixed items or an error.
type fakeSource struct {
	name  string
	items []Item
	err   error
}

func (s fakeSource) Name() string { return s.name }
func (s fakeSource) Items(ctx context.Context, _ solana.PublicKey) ([]Item, error) {
	return s.items, s.err
}

// gatedRPC delays getMultipleAccounts calls: each call waits for gate (when
// set) or for its context's end, which it reports on cancelled.
type gatedRPC struct {
	*fakeRPC
	gate      chan struct{}
	started   chan struct{}
	cancelled chan struct{}
	once      sync.Once
}

func (g *gatedRPC) GetMultipleAccountsWithOpts(ctx context.Context, keys []solana.PublicKey, opts *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error) {
	if g.started != nil {
		select {
		case g.started <- struct{}{}:
		default:
		}
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		g.once.Do(func() { close(g.cancelled) })
		return nil, ctx.Err()
	}
	return g.fakeRPC.GetMultipleAccountsWithOpts(ctx, keys, opts)
}

// mixedWorld is a wallet of n token accounts: empties, balances and NFTs.
func mixedWorld(t *testing.T, n int) *world {
	w := newWorld(t)
	tok, t22 := solana.TokenProgramID, solana.Token2022ProgramID
	for i := range n {
		switch i % 3 {
		case 0:
			w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 0, nil)})
		case 1:
			w.account(t22, tokenRent, acct{mint: w.mint(t22, 2, 500, nil), amount: 5, token2022: true})
		default:
			m := w.mint(tok, 0, 1, nil)
			w.metaplex(m, fmt.Sprintf("NFT #%d", i), "NFT", "", nil, false)
			w.account(tok, tokenRent, acct{mint: m, amount: 1})
		}
	}
	return w
}

type streamed struct {
	chunks [][]Item
	lasts  []bool
}

func (s *streamed) emit(chunk []Item, last bool) error {
	s.chunks = append(s.chunks, chunk)
	s.lasts = append(s.lasts, last)
	return nil
}

func (s *streamed) all() []Item {
	out := []Item{}
	for _, c := range s.chunks {
		out = append(out, c...)
	}
	return out
}

// TestAssetsStreamChunks: the chunks concatenated are List's items, every
// chunk but the last is full, only the last is marked, and a multiple of the
// chunk size ends with a full chunk, not an empty one.
func TestAssetsStreamChunks(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 49, 50, 51, 100, 173} {
		w := mixedWorld(t, n)
		d := NewDiscoverer(w.c.rpc(), nil)
		want, err := d.List(context.Background(), w.wallet)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 7, 50, 500} {
			t.Run(fmt.Sprintf("%d items by %d", n, size), func(t *testing.T) {
				var got streamed
				if err := d.Stream(context.Background(), w.wallet, StreamOptions{ChunkSize: size}, got.emit); err != nil {
					t.Fatal(err)
				}
				wantChunks := max(1, (n+size-1)/size)
				if len(got.chunks) != wantChunks {
					t.Fatalf("%d chunks, want %d", len(got.chunks), wantChunks)
				}
				for i, c := range got.chunks {
					last := i == len(got.chunks)-1
					if got.lasts[i] != last || !last && len(c) != size || len(c) > size {
						t.Fatalf("chunk %d: %d items, last %v", i, len(c), got.lasts[i])
					}
				}
				if !reflect.DeepEqual(got.all(), want.Items) {
					t.Fatal("chunks concatenated differ from List's items")
				}
			})
		}
	}
}

// TestAssetsStreamSources: Sources' items follow the token accounts, by
// address; a failing Source fails the stream.
func TestAssetsStreamSources(t *testing.T) {
	t.Parallel()
	w := mixedWorld(t, 60)
	var extra []Item
	for range 5 {
		extra = append(extra, Item{Type: TypeCNFT, Address: solana.NewWallet().PublicKey(), Actions: []Action{ActionBurn}})
	}
	d := NewDiscoverer(w.c.rpc(), nil, fakeSource{name: "das", items: extra[:3]}, fakeSource{name: "photon", items: extra[3:]})
	var got streamed
	if err := d.Stream(context.Background(), w.wallet, StreamOptions{ChunkSize: 50}, got.emit); err != nil {
		t.Fatal(err)
	}
	items := got.all()
	if len(items) != 65 || len(got.chunks) != 2 || !got.lasts[1] {
		t.Fatalf("%d items in %d chunks", len(items), len(got.chunks))
	}
	for i := 1; i < len(items); i++ {
		if i != 60 && items[i-1].Address.String() >= items[i].Address.String() {
			t.Fatalf("items %d and %d out of order", i-1, i)
		}
	}
	for _, it := range items[60:] {
		if it.Type != TypeCNFT {
			t.Fatalf("source item %+v among the token accounts", it)
		}
	}
	l, err := d.List(context.Background(), w.wallet)
	if err != nil || !reflect.DeepEqual(l.Items, items) || l.TokenAccounts != 60 || l.Counts[TypeCNFT] != 5 {
		t.Fatalf("List differs: %d token accounts, counts %v, %v", l.TokenAccounts, l.Counts, err)
	}

	failing := NewDiscoverer(w.c.rpc(), nil, fakeSource{name: "das", err: errors.New("indexer down")})
	err = failing.Stream(context.Background(), w.wallet, StreamOptions{}, (&streamed{}).emit)
	if err == nil || err.Error() != "list das items: indexer down" {
		t.Fatalf("failing source: %v", err)
	}
}

// TestAssetsStreamFirstChunkEarly: the first chunk is emitted while the reads
// of later pages are still held back (pages are read streamPagesAhead at a
// time, in any order, each with its mints and its NFTs' collections).
func TestAssetsStreamFirstChunkEarly(t *testing.T) {
	t.Parallel()
	w := mixedWorld(t, 10*StreamPage)
	gate := make(chan struct{})
	f := w.c.rpc()
	calls := 0
	var mu sync.Mutex
	inner := f.multiple
	f.multiple = func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
		if slices.Contains(keys, solana.SysVarRentPubkey) {
			// The cluster's state read (cluster.go) runs beside the
			// pages, in any order with them, and the first chunk waits
			// for it: it is not a page's read, so it is neither counted
			// nor held back.
			return inner(keys)
		}
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n > 2*streamPagesAhead {
			<-gate // the pages read ahead at first (two reads each at most) go through
		}
		return inner(keys)
	}
	d := NewDiscoverer(f, nil)
	first := make(chan []Item, 1)
	done := make(chan error, 1)
	var total int
	go func() {
		done <- d.Stream(context.Background(), w.wallet, StreamOptions{ChunkSize: 10}, func(c []Item, last bool) error {
			if total == 0 {
				first <- c
			}
			total += len(c)
			return nil
		})
	}()
	select {
	case c := <-first:
		if len(c) != 10 {
			t.Fatalf("first chunk of %d items", len(c))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no first chunk while later pages were held back")
	}
	close(gate)
	if err := <-done; err != nil || total != 10*StreamPage {
		t.Fatalf("%d items, %v", total, err)
	}
}

// TestAssetsStreamFirstPageFirst: the first page's read is the first call
// out; the pages read ahead with it follow, so a cluster that answers in
// order answers the first chunk's read first. With one slot of calls in
// flight the order is exact (the pages read ahead start once the first
// page's call has its slot); without the ordering, the page started last
// usually took the slot first.
func TestAssetsStreamFirstPageFirst(t *testing.T) {
	t.Parallel()
	w := mixedWorld(t, 10*StreamPage)
	f := w.c.rpc()
	var mu sync.Mutex
	var calls [][]solana.PublicKey
	inner := f.multiple
	f.multiple = func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
		if !slices.Contains(keys, solana.SysVarRentPubkey) { // the cluster's state, read in the first round
			mu.Lock()
			calls = append(calls, keys)
			mu.Unlock()
		}
		return inner(keys)
	}
	var first []Item
	ctx := rpclimit.With(context.Background(), rpclimit.New(1))
	err := NewDiscoverer(f, nil).Stream(ctx, w.wallet, StreamOptions{}, func(c []Item, last bool) error {
		if first == nil {
			first = c
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) < streamPagesAhead {
		t.Fatalf("%d getMultipleAccounts calls", len(calls))
	}
	for _, it := range first {
		if !slices.Contains(calls[0], metaplex.MetadataAddress(it.Mint)) {
			t.Fatalf("the first call out reads %d keys without the metadata of the mint %s of the first chunk's item %s", len(calls[0]), it.Mint, it.Address)
		}
	}
}

// TestAssetsTokenAccountsFirst: the two getTokenAccountsByOwner, which the
// first chunk waits for, are the first calls out; the cluster's scans and
// state follow, so a cluster that answers in order answers them first. With
// two slots of calls in flight the order is exact; without the ordering, the
// scans, started first, took the slots first. The accounts come sorted by
// address from both programs' lists merged.
func TestAssetsTokenAccountsFirst(t *testing.T) {
	t.Parallel()
	w := mixedWorld(t, 3*StreamPage)
	f := w.c.rpc()
	ctx := rpclimit.With(context.Background(), rpclimit.New(2))
	var keys []string
	err := NewDiscoverer(f, nil).Stream(ctx, w.wallet, StreamOptions{Early: func(items []Item) error {
		for _, it := range items {
			keys = append(keys, it.Address.String())
		}
		return nil
	}}, func([]Item, bool) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	order := slices.Clone(f.order)
	f.mu.Unlock()
	if len(order) < 4 || order[0] != "getTokenAccountsByOwner" || order[1] != "getTokenAccountsByOwner" {
		t.Fatalf("calls in the order %v, want both getTokenAccountsByOwner first", order)
	}
	if len(keys) == 0 || !slices.IsSorted(keys) {
		t.Fatalf("%d early items, not in address order", len(keys))
	}
}

// TestAssetsStreamStops: an emit error or a cancelled context stops
// discovery; reads in flight see the cancellation and nothing is left
// running when Stream returns.
func TestAssetsStreamStops(t *testing.T) {
	t.Parallel()
	w := mixedWorld(t, 20*StreamPage)
	t.Run("emit error", func(t *testing.T) {
		f := w.c.rpc()
		stop := errors.New("client gone")
		err := NewDiscoverer(f, nil).Stream(context.Background(), w.wallet, StreamOptions{}, func([]Item, bool) error { return stop })
		if !errors.Is(err, stop) {
			t.Fatalf("err %v", err)
		}
		// The cluster's state, the first page and the pages read ahead
		// (mints, then collections: two reads each), and nothing more.
		if n := f.calls["getMultipleAccounts"]; n > 1+2*(1+streamPagesAhead) {
			t.Fatalf("%d getMultipleAccounts calls after the consumer left, for 20 pages", n)
		}
	})
	t.Run("context cancelled", func(t *testing.T) {
		g := &gatedRPC{fakeRPC: w.c.rpc(), gate: make(chan struct{}), started: make(chan struct{}, 1), cancelled: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- NewDiscoverer(g, nil).Stream(ctx, w.wallet, StreamOptions{}, (&streamed{}).emit)
		}()
		<-g.started
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Stream did not return after its context was cancelled")
		}
		select {
		case <-g.cancelled:
		default:
			t.Fatal("the read in flight did not see the cancellation")
		}
	})
	t.Run("step timeout", func(t *testing.T) {
		g := &gatedRPC{fakeRPC: w.c.rpc(), gate: make(chan struct{}), cancelled: make(chan struct{})}
		err := NewDiscoverer(g, nil).Stream(context.Background(), w.wallet, StreamOptions{StepTimeout: 50 * time.Millisecond}, (&streamed{}).emit)
		if !errors.Is(err, errStepTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("chunk size", func(t *testing.T) {
		for _, n := range []int{-1, MaxChunkSize + 1} {
			if err := NewDiscoverer(w.c.rpc(), nil).Stream(context.Background(), w.wallet, StreamOptions{ChunkSize: n}, (&streamed{}).emit); err == nil {
				t.Errorf("chunk size %d accepted", n)
			}
		}
	})
}

// TestAssetsStreamEarly: the early items (the empty accounts, as the token
// accounts alone tell them) go to Early in chunks, in listing order, before
// any emit and while every getMultipleAccounts (mints, metadata, the
// cluster's state) is held until the first of them arrived; the items
// that follow are List's, names included.
func TestAssetsStreamEarly(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tok, t22 := solana.TokenProgramID, solana.Token2022ProgramID
	for i := range 45 {
		switch i % 3 {
		case 0: // empty, named by Metaplex metadata
			m := w.mint(tok, 6, 0, nil)
			w.metaplex(m, fmt.Sprintf("Token %d", i), "TOK", "", nil, false)
			w.account(tok, tokenRent, acct{mint: m})
		case 1: // empty, named by Token-2022's metadata extension
			w.account(t22, tokenRent, acct{mint: w.mint(t22, 2, 0, &tokenMetadata{name: fmt.Sprint("Ext ", i), symbol: "EXT"}), token2022: true})
		default:
			w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 100, nil), amount: 5})
		}
	}
	want, err := NewDiscoverer(w.c.rpc(), nil).List(context.Background(), w.wallet)
	if err != nil {
		t.Fatal(err)
	}
	f := w.c.rpc()
	firstEarly := make(chan struct{})
	inner := f.multiple
	f.multiple = func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
		select {
		case <-firstEarly:
		case <-time.After(10 * time.Second):
			return nil, errors.New("held reads: no early items while they waited")
		}
		return inner(keys)
	}
	var early []Item
	var got streamed
	opts := StreamOptions{ChunkSize: 7, Early: func(items []Item) error {
		if len(got.chunks) > 0 {
			t.Error("early items after a chunk")
		}
		if len(items) == 0 || len(items) > 7 || len(early)%7 != 0 {
			t.Errorf("early chunk of %d after %d", len(items), len(early))
		}
		if len(early) == 0 {
			close(firstEarly)
		}
		early = append(early, items...)
		return nil
	}}
	if err := NewDiscoverer(f, nil).Stream(context.Background(), w.wallet, opts, got.emit); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.all(), want.Items) {
		t.Fatal("chunks concatenated differ from List's items")
	}
	var empties []Item
	for _, it := range want.Items {
		if it.Type == TypeEmptyAccount {
			if it.Name == "" {
				t.Fatalf("listed empty account %s without its name", it.Address)
			}
			it.Name, it.Symbol, it.URI, it.Decimals = "", "", "", 0 // what the metadata tells
			it.Rent = 0                                             // what the Rent sysvar tells
			empties = append(empties, it)
		}
	}
	if len(empties) != 30 || !reflect.DeepEqual(early, empties) {
		t.Fatalf("%d early items, want the %d empty accounts as listed but for their metadata", len(early), len(empties))
	}

	stop := errors.New("client gone")
	opts.Early = func([]Item) error { return stop }
	if err := NewDiscoverer(w.c.rpc(), nil).Stream(context.Background(), w.wallet, opts, got.emit); !errors.Is(err, stop) {
		t.Fatalf("an Early error: %v", err)
	}
}
