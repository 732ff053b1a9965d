package assets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// fakePrices is a PriceSource that records what it was asked.
type fakePrices struct {
	prices map[string]float64
	err    error
	asked  []string
}

func (p *fakePrices) Prices(_ context.Context, mints []string) (map[string]float64, error) {
	p.asked = append(p.asked, mints...)
	return p.prices, p.err
}

func TestAssetsListPrices(t *testing.T) {
	t.Parallel()
	tok := solana.TokenProgramID
	w := newWorld(t)
	priced := w.mint(tok, 6, 10_000_000, nil)
	unpriced := w.mint(tok, 6, 10_000_000, nil)
	nft := w.mint(tok, 0, 1, nil)
	empty := w.mint(tok, 6, 0, nil)
	w.account(tok, tokenRent, acct{mint: priced, amount: 2_500_000})
	w.account(tok, tokenRent, acct{mint: unpriced, amount: 1_000_000})
	w.account(tok, tokenRent, acct{mint: nft, amount: 1})
	w.account(tok, tokenRent, acct{mint: empty})
	all := map[string]float64{priced.String(): 0.4, nft.String(): 99, empty.String(): 1}

	cases := []struct {
		name   string
		source *fakePrices
		want   map[solana.PublicKey]float64 // usdValue by mint; absent means nil
	}{
		{"price known for one token", &fakePrices{prices: all}, map[solana.PublicKey]float64{priced: 1.0}},
		{"no prices known", &fakePrices{prices: map[string]float64{}}, nil},
		{"source fails", &fakePrices{prices: all, err: errors.New("timeout")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := w.list(tc.source)
			for _, it := range l.Items {
				want, ok := tc.want[it.Mint]
				switch {
				case !ok && it.USDValue != nil:
					t.Errorf("%s %s: usdValue %v, want none", it.Type, it.Mint, *it.USDValue)
				case ok && (it.USDValue == nil || *it.USDValue != want):
					t.Errorf("%s %s: usdValue %v, want %v", it.Type, it.Mint, it.USDValue, want)
				}
			}
			asked := slices.Sorted(slices.Values(tc.source.asked))
			if want := slices.Sorted(slices.Values([]string{priced.String(), unpriced.String()})); !slices.Equal(asked, want) {
				t.Errorf("asked prices of %v, want only the token mints %v", asked, want)
			}
		})
	}
	t.Run("nil source", func(t *testing.T) {
		for _, it := range w.list(nil).Items {
			if it.USDValue != nil {
				t.Errorf("usdValue without a price source: %+v", it)
			}
		}
	})
}

// TestListOrderAndCounts lists a mixed wallet: items by address (the discovery
// order shared with Stream; types interleave); counts cover every type. Accounts of other wallets, mints and
// uninitialized accounts are not items.
func TestAssetsListOrderAndCounts(t *testing.T) {
	t.Parallel()
	tok, t22 := solana.TokenProgramID, solana.Token2022ProgramID
	w := newWorld(t)
	for range 5 {
		w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 0, nil)})
		w.account(t22, tokenRent, acct{mint: w.mint(t22, 6, 0, nil), token2022: true})
	}
	for range 3 {
		w.account(tok, tokenRent, acct{mint: w.mint(tok, 0, 1, nil), amount: 1})
		w.account(t22, tokenRent, acct{mint: w.mint(t22, 2, 500, nil), amount: 5, token2022: true})
	}
	w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 0, nil), owner: solana.NewWallet().PublicKey()})
	uninit := acct{mint: w.mint(tok, 6, 0, nil), owner: w.wallet}.encode()
	uninit[108] = 0
	w.c.put(solana.NewWallet().PublicKey(), tok, tokenRent, uninit)

	l := w.list(nil)
	want := map[ItemType]int{TypeEmptyAccount: 10, TypeToken: 3, TypeNFT: 3, TypeFungibleAsset: 0, TypeZKCompressedToken: 0, TypeCNFT: 0,
		TypeExcessRent: 0, TypeProgramBuffer: 0, TypeNonceAccount: 0, TypeStakeAccount: 0, TypeLookupTable: 0, TypeMint: 0}
	if fmt.Sprint(l.Counts) != fmt.Sprint(want) {
		t.Errorf("counts = %v, want %v", l.Counts, want)
	}
	if len(l.Items) != 16 {
		t.Fatalf("%d items, want 16", len(l.Items))
	}
	for i := 1; i < len(l.Items); i++ {
		a, b := l.Items[i-1], l.Items[i]
		if a.Address.String() >= b.Address.String() {
			t.Errorf("items %d and %d out of order: %s %s, %s %s", i-1, i, a.Type, a.Address, b.Type, b.Address)
		}
	}
	empty := NewDiscoverer(newChain().rpc(), nil)
	l, err := empty.List(context.Background(), w.wallet)
	if err != nil || len(l.Items) != 0 || len(l.Counts) != len(ItemTypes()) || l.Items == nil {
		t.Errorf("empty wallet: %+v, %v (items must be [], not null)", l, err)
	}
}

// TestListBatching pins the number of RPC calls: two getTokenAccountsByOwner
// with the cluster's reads (its state, five getProgramAccounts), the
// mints and their metadata PDAs in chunks of 100 keys, and one chunked read of the
// collections' metadata with the NFTs' edition PDAs and the Rent sysvar: the
// calls grow with ceil(accounts / 100).
func TestAssetsListBatching(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 50, 100, 250} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			tok := solana.TokenProgramID
			w := newWorld(t)
			var cols []solana.PublicKey
			for range 3 {
				c := w.mint(tok, 0, 1, nil)
				w.metaplex(c, "Collection", "COL", "", nil, false)
				cols = append(cols, c)
			}
			for i := range n {
				m := w.mint(tok, 0, 1, nil)
				w.metaplex(m, fmt.Sprintf("NFT #%d", i), "NFT", "", &cols[i%3], true)
				w.account(tok, tokenRent, acct{mint: m, amount: 1})
			}
			f := w.c.rpc()
			l, err := NewDiscoverer(f, nil).List(context.Background(), w.wallet)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Items) != n || l.Items[0].Collection == nil || l.Items[0].Collection.Name != "Collection" {
				t.Fatalf("%d items, first %+v", len(l.Items), l.Items[0])
			}
			// 2 getTokenAccountsByOwner, the cluster's state (1) and its 6
			// scans (mints of both programs, buffers, nonce and stake
			// accounts, lookup tables), the mints, then the collections and
			// editions.
			want := 2 + 1 + 6 + (2*n+99)/100 + (3+n+1+99)/100
			if got := f.total(); got != want {
				t.Errorf("%d accounts: %d RPC calls (%v), want %d", n, got, f.calls, want)
			}
			if f.maxKeys > maxKeysPerCall {
				t.Errorf("a getMultipleAccounts call asked for %d keys", f.maxKeys)
			}
		})
	}
}

// TestAssetsChunksTogether: the getMultipleAccounts chunks of a listing go
// out together (a wallet of 250 accounts needs 5 chunks of mints and their
// metadata, all in flight at once before any answers), and never more at
// once than the request's rpclimit.Limit.
func TestAssetsChunksTogether(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for range 250 { // balances: their mints are read beside their PDAs
		w.account(solana.TokenProgramID, tokenRent, acct{mint: w.mint(solana.TokenProgramID, 6, 0, nil), amount: 1})
	}
	for _, tc := range []struct{ limit, together int }{{rpclimit.Default, 5}, {2, 2}} {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			t.Parallel()
			f := w.c.rpc()
			inner := f.multiple
			var mu sync.Mutex
			var once sync.Once
			inFlight, most := 0, 0
			all := make(chan struct{})
			f.multiple = func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				if inFlight == tc.together {
					once.Do(func() { close(all) })
				}
				mu.Unlock()
				select {
				case <-all: // the first chunks wait until tc.together are in flight
				case <-time.After(10 * time.Second):
				}
				mu.Lock()
				inFlight--
				mu.Unlock()
				return inner(keys)
			}
			ctx := rpclimit.With(context.Background(), rpclimit.New(tc.limit))
			l, err := NewDiscoverer(f, nil).List(ctx, w.wallet)
			if err != nil || len(l.Items) != 250 {
				t.Fatalf("%d items, %v", len(l.Items), err)
			}
			if most != tc.together {
				t.Errorf("%d chunks in flight at most, want %d", most, tc.together)
			}
		})
	}
}
