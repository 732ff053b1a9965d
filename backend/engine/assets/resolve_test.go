package assets

import (
	"context"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

func TestAssetsResolve(t *testing.T) {
	t.Parallel()
	tok, t22 := solana.TokenProgramID, solana.Token2022ProgramID
	w := newWorld(t)
	empty := w.account(tok, tokenRent+1, acct{mint: w.mint(tok, 6, 0, nil)})
	nftMint := w.mint(tok, 0, 1, nil)
	w.metaplex(nftMint, "Bear", "B", "", nil, false)
	nft := w.account(tok, tokenRent, acct{mint: nftMint, amount: 1})
	fees := w.account(t22, 2_108_880, acct{mint: w.mint(t22, 6, 10, nil), withheld: ptr[uint64](7)})
	foreign := w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 0, nil), owner: solana.NewWallet().PublicKey()})
	missing := solana.NewWallet().PublicKey()
	system := solana.NewWallet().PublicKey()
	w.c.put(system, solana.SystemProgramID, 1_000_000, nil)
	mint := w.mint(tok, 6, 0, nil)
	fakeToken := solana.NewWallet().PublicKey() // token account bytes, not owned by a token program
	w.c.put(fakeToken, solana.SystemProgramID, tokenRent, acct{mint: mint, owner: w.wallet}.encode())
	multisig := solana.NewWallet().PublicKey()
	w.c.put(multisig, tok, 3_361_680, make([]byte, spltoken.MultisigSize))

	t.Run("items in the given order", func(t *testing.T) {
		got, err := NewDiscoverer(w.c.rpc(), nil).Resolve(context.Background(), w.wallet, []solana.PublicKey{fees, nft, empty})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].Address != fees || got[1].Address != nft || got[2].Address != empty {
			t.Fatalf("items %+v", got)
		}
		if got[0].Type != TypeEmptyAccount || got[0].WithheldAmount != 7 || got[0].TokenProgram != t22 || got[0].Lamports != 2_108_880 {
			t.Errorf("withheld account %+v", got[0])
		}
		if got[1].Type != TypeNFT || got[1].Actions[0] != ActionBurn || got[1].Name != "" {
			t.Errorf("nft %+v (Resolve reads no metadata)", got[1])
		}
		if got[2].Lamports != tokenRent+1 || got[2].Decimals != 0 || got[2].Actions[0] != ActionClose {
			t.Errorf("empty account %+v (its mint is not read)", got[2])
		}
	})

	cases := []struct {
		name      string
		addresses []solana.PublicKey
		address   solana.PublicKey
		reason    string
	}{
		{"missing", []solana.PublicKey{empty, missing}, missing, "account not found"},
		{"system account", []solana.PublicKey{system}, system, "not a token account of SPL Token or Token-2022"},
		{"a mint", []solana.PublicKey{mint}, mint, "not a token account of SPL Token or Token-2022"},
		{"token bytes outside a token program", []solana.PublicKey{fakeToken}, fakeToken, "not a token account of SPL Token or Token-2022"},
		{"multisig", []solana.PublicKey{multisig}, multisig, "not a token account of SPL Token or Token-2022"},
		{"another wallet's account", []solana.PublicKey{empty, foreign, missing}, foreign, "token account is owned by another wallet"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewDiscoverer(w.c.rpc(), nil).Resolve(context.Background(), w.wallet, tc.addresses)
			var ie *ItemError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want an *ItemError", err)
			}
			if ie.Address != tc.address.String() || ie.Reason != tc.reason {
				t.Errorf("ItemError{%s, %q}, want {%s, %q}", ie.Address, ie.Reason, tc.address, tc.reason)
			}
		})
	}

	t.Run("cluster failure is not an item error", func(t *testing.T) {
		f := w.c.rpc()
		boom := errors.New("503")
		f.multiple = func([]solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) { return nil, boom }
		_, err := NewDiscoverer(f, nil).Resolve(context.Background(), w.wallet, []solana.PublicKey{empty})
		var ie *ItemError
		if !errors.Is(err, boom) || errors.As(err, &ie) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestResolveBatching: 250 accounts of 250 mints take ceil(250/100) reads of the
// accounts and ceil(250/100) of the mints; empty accounts, none of their mints.
func TestAssetsResolveBatching(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var held, empty []solana.PublicKey
	for range 250 {
		held = append(held, w.account(solana.TokenProgramID, tokenRent, acct{mint: w.mint(solana.TokenProgramID, 6, 10, nil), amount: 5}))
		empty = append(empty, w.account(solana.TokenProgramID, tokenRent, acct{mint: w.mint(solana.TokenProgramID, 6, 0, nil)}))
	}
	for _, tc := range []struct {
		name  string
		addrs []solana.PublicKey
		calls int
	}{{"balances", held, 6}, {"empty", empty, 3}} {
		f := w.c.rpc()
		items, err := NewDiscoverer(f, nil).Resolve(context.Background(), w.wallet, tc.addrs)
		if err != nil || len(items) != 250 {
			t.Fatalf("%s: %d items, %v", tc.name, len(items), err)
		}
		for i, it := range items {
			if it.Address != tc.addrs[i] {
				t.Fatalf("%s: item %d is %s, want %s", tc.name, i, it.Address, tc.addrs[i])
			}
		}
		if got := f.total(); got != tc.calls || f.maxKeys > maxKeysPerCall {
			t.Errorf("%s: %d RPC calls (%v), largest %d keys; want %d of at most 100", tc.name, got, f.calls, f.maxKeys, tc.calls)
		}
	}
}

// TestAssetsResolveItemErrorIndex: an *ItemError carries the position of its
// address among those Resolve was given, so the caller names the selection
// without looking the address up.
func TestAssetsResolveItemErrorIndex(t *testing.T) {
	t.Parallel()
	tok := solana.TokenProgramID
	w := newWorld(t)
	empty := w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 0, nil)})
	foreign := w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 0, nil), owner: solana.NewWallet().PublicKey()})
	missing := solana.NewWallet().PublicKey()
	for _, tc := range []struct {
		addresses []solana.PublicKey
		index     int
	}{
		{[]solana.PublicKey{missing}, 0},
		{[]solana.PublicKey{empty, missing}, 1},
		{[]solana.PublicKey{empty, empty, foreign, missing}, 2},
	} {
		_, err := NewDiscoverer(w.c.rpc(), nil).Resolve(context.Background(), w.wallet, tc.addresses)
		var ie *ItemError
		if !errors.As(err, &ie) || ie.Index != tc.index || ie.Address != tc.addresses[tc.index].String() {
			t.Errorf("%d addresses: err = %v, want an *ItemError at index %d", len(tc.addresses), err, tc.index)
		}
	}
}
