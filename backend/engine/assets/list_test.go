package assets

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
)

// tokenRent is the rent-exempt minimum of a 165-byte token account.
const tokenRent = 2_039_280

// world is a wallet on a fake chain; helpers add mints and accounts to it.
type world struct {
	t      testing.TB
	c      *chain
	wallet solana.PublicKey
}

func newWorld(t testing.TB) *world {
	return &world{t: t, c: newChain(), wallet: solana.NewWallet().PublicKey()}
}

func (w *world) mint(program solana.PublicKey, decimals uint8, supply uint64, md *tokenMetadata) solana.PublicKey {
	m := solana.NewWallet().PublicKey()
	w.c.put(m, program, 1_461_600, mintBytes(m, decimals, supply, md))
	return m
}

func (w *world) account(program solana.PublicKey, lamports uint64, a acct) solana.PublicKey {
	if a.owner.IsZero() {
		a.owner = w.wallet
	}
	addr := solana.NewWallet().PublicKey()
	w.c.put(addr, program, lamports, a.encode())
	return addr
}

func (w *world) metaplex(mint solana.PublicKey, name, symbol, uri string, collection *solana.PublicKey, verified bool) {
	w.c.put(metaplex.MetadataAddress(mint), solana.TokenMetadataProgramID, 5_616_720, metaplexBytes(mint, name, symbol, uri, 2, collection, verified))
}

func (w *world) list(prices PriceSource) Listing {
	w.t.Helper()
	l, err := NewDiscoverer(w.c.rpc(), prices).List(context.Background(), w.wallet)
	if err != nil {
		w.t.Fatalf("List: %v", err)
	}
	return l
}

// TestListClassification lists a wallet holding one account per case and checks
// the whole item.
func TestAssetsListClassification(t *testing.T) {
	t.Parallel()
	tok, t22 := solana.TokenProgramID, solana.Token2022ProgramID
	other := solana.NewWallet().PublicKey()
	cases := []struct {
		name  string
		setup func(w *world) solana.PublicKey // returns the account
		want  func(w *world, it Item) Item    // the expected item, given the listed one's mint
	}{
		{"empty account closes, lamports from the chain", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent+7, acct{mint: w.mint(tok, 6, 5, nil)})
		}, func(w *world, it Item) Item {
			// Lamports above the rent-exempt minimum are not rent.
			return Item{Type: TypeEmptyAccount, Lamports: tokenRent + 7, Rent: tokenRent, Decimals: 6, Actions: []Action{ActionClose}}
		}},
		{"balance is a token to burn", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 9_000_000, nil), amount: 1_500_000})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeToken, Lamports: tokenRent, Decimals: 6, Amount: 1_500_000, UIBalance: 1.5, Actions: []Action{ActionBurn}}
		}},
		{"decimals 0 supply 1 is an nft", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 0, 1, nil), amount: 1})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeNFT, Lamports: tokenRent, Amount: 1, UIBalance: 1, Actions: []Action{ActionBurn}}
		}},
		{"decimals 0 supply 2 is a token", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 0, 2, nil), amount: 1})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeToken, Lamports: tokenRent, Amount: 1, UIBalance: 1, Actions: []Action{ActionBurn}}
		}},
		{"wrapped SOL with a balance closes", func(w *world) solana.PublicKey {
			w.c.put(solana.WrappedSol, tok, 1_461_600, mintBytes(solana.WrappedSol, 9, 0, nil))
			return w.account(tok, tokenRent+100_000_000, acct{mint: solana.WrappedSol, amount: 100_000_000, native: true})
		}, func(w *world, it Item) Item {
			// The wrapped balance is the wallet's own SOL: only the
			// account's rent-exempt minimum is rent.
			return Item{Type: TypeToken, Name: "Wrapped SOL", Symbol: "SOL", Lamports: tokenRent + 100_000_000, Rent: tokenRent, Decimals: 9,
				Amount: 100_000_000, UIBalance: 0.1, IsNative: true, Actions: []Action{ActionClose}}
		}},
		{"empty wrapped SOL is an empty account", func(w *world) solana.PublicKey {
			w.c.put(solana.WrappedSol, tok, 1_461_600, mintBytes(solana.WrappedSol, 9, 0, nil))
			return w.account(tok, tokenRent, acct{mint: solana.WrappedSol, native: true})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeEmptyAccount, Name: "Wrapped SOL", Symbol: "SOL", Lamports: tokenRent, Decimals: 9, IsNative: true, Actions: []Action{ActionClose}}
		}},
		{"frozen and empty still closes", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 2, 0, nil), frozen: true})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeEmptyAccount, Lamports: tokenRent, Decimals: 2, IsFrozen: true, Actions: []Action{ActionClose}}
		}},
		{"frozen with a balance offers nothing", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 2, 100, nil), amount: 100, frozen: true})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeToken, Lamports: tokenRent, Decimals: 2, Amount: 100, UIBalance: 1, IsFrozen: true, Actions: []Action{}}
		}},
		{"frozen nft offers nothing", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 0, 1, nil), amount: 1, frozen: true})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeNFT, Lamports: tokenRent, Amount: 1, UIBalance: 1, IsFrozen: true, Actions: []Action{}}
		}},
		{"another close authority: the owner cannot close", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 0, nil), closeAuth: &other})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeEmptyAccount, Lamports: tokenRent, Decimals: 6, HasCloseAuthority: true, Actions: []Action{}}
		}},
		{"another close authority: no burn either", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 10, nil), amount: 10, closeAuth: &other})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeToken, Lamports: tokenRent, Decimals: 6, Amount: 10, UIBalance: 0.00001, HasCloseAuthority: true, Actions: []Action{}}
		}},
		{"the owner as close authority closes", func(w *world) solana.PublicKey {
			return w.account(tok, tokenRent, acct{mint: w.mint(tok, 6, 0, nil), closeAuth: &w.wallet})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeEmptyAccount, Lamports: tokenRent, Decimals: 6, Actions: []Action{ActionClose}}
		}},
		{"Token-2022 withheld fees stay closable", func(w *world) solana.PublicKey {
			return w.account(t22, 2_108_880, acct{mint: w.mint(t22, 6, 1_000, nil), withheld: ptr[uint64](2_500)})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeEmptyAccount, Lamports: 2_108_880, Decimals: 6, WithheldAmount: 2_500, Actions: []Action{ActionClose}}
		}},
		{"Token-2022 metadata extension names the token", func(w *world) solana.PublicKey {
			m := w.mint(t22, 9, 5_000_000_000, &tokenMetadata{name: "Pond Coin", symbol: "POND", uri: "https://example.com/pond.json"})
			return w.account(t22, 2_074_080, acct{mint: m, amount: 2_500_000_000, token2022: true})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeToken, Name: "Pond Coin", Symbol: "POND", URI: "https://example.com/pond.json", Lamports: 2_074_080,
				Decimals: 9, Amount: 2_500_000_000, UIBalance: 2.5, Actions: []Action{ActionBurn}}
		}},
		{"Metaplex metadata wins over the extension", func(w *world) solana.PublicKey {
			m := w.mint(t22, 9, 1, &tokenMetadata{name: "Ext", symbol: "EXT", uri: "ext"})
			w.metaplex(m, "Meta", "MTA", "https://example.com/m.json", nil, false)
			return w.account(t22, 2_074_080, acct{mint: m, token2022: true})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeEmptyAccount, Name: "Meta", Symbol: "MTA", URI: "https://example.com/m.json", Lamports: 2_074_080,
				Decimals: 9, Actions: []Action{ActionClose}}
		}},
		{"Metaplex nft in a verified collection", func(w *world) solana.PublicKey {
			col := w.mint(tok, 0, 1, nil)
			w.metaplex(col, "Okay Bears", "OKB", "https://example.com/col.json", nil, false)
			m := w.mint(tok, 0, 1, nil)
			w.metaplex(m, "Okay Bear #42", "OKB", "https://example.com/42.json", &col, true)
			return w.account(tok, tokenRent, acct{mint: m, amount: 1})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeNFT, Name: "Okay Bear #42", Symbol: "OKB", URI: "https://example.com/42.json", Lamports: tokenRent,
				Amount: 1, UIBalance: 1, Collection: &Collection{Address: it.Collection.Address, Name: "Okay Bears"}, Actions: []Action{ActionBurn}}
		}},
		{"unverified collection is not shown", func(w *world) solana.PublicKey {
			col := w.mint(tok, 0, 1, nil)
			w.metaplex(col, "Fake Bears", "FKB", "", nil, false)
			m := w.mint(tok, 0, 1, nil)
			w.metaplex(m, "Bear", "FKB", "", &col, false)
			return w.account(tok, tokenRent, acct{mint: m, amount: 1})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeNFT, Name: "Bear", Symbol: "FKB", Lamports: tokenRent, Amount: 1, UIBalance: 1, Actions: []Action{ActionBurn}}
		}},
		{"metadata PDA not owned by Metaplex is ignored", func(w *world) solana.PublicKey {
			m := w.mint(tok, 6, 0, nil)
			w.c.put(metaplex.MetadataAddress(m), solana.SystemProgramID, 1, metaplexBytes(m, "Spoof", "SPF", "", 0, nil, false))
			return w.account(tok, tokenRent, acct{mint: m})
		}, func(w *world, it Item) Item {
			return Item{Type: TypeEmptyAccount, Lamports: tokenRent, Decimals: 6, Actions: []Action{ActionClose}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			addr := tc.setup(w)
			l := w.list(nil)
			if len(l.Items) != 1 {
				t.Fatalf("%d items, want 1: %+v", len(l.Items), l.Items)
			}
			got := l.Items[0]
			want := tc.want(w, got)
			info := w.c.accounts[addr]
			want.Address, want.Owner, want.TokenProgram = addr, w.wallet, info.Owner
			want.Mint = solana.PublicKeyFromBytes(info.Data.GetBinary()[:32])
			if want.Rent == 0 {
				want.Rent = want.Lamports // every other account holds its rent-exempt minimum
			}
			if want.Type == TypeEmptyAccount && info.Owner.Equals(tok) {
				want.Decimals = 0 // a listing does not read the mint of an empty SPL Token account
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("item\n got %+v\nwant %+v", got, want)
			}
			if l.Counts[got.Type] != 1 || len(l.Counts) != len(ItemTypes()) {
				t.Errorf("counts = %v", l.Counts)
			}
		})
	}
}

func TestAssetsListRPCErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection refused")
	w := newWorld(t)
	w.account(solana.TokenProgramID, tokenRent, acct{mint: w.mint(solana.TokenProgramID, 6, 0, nil)})
	cases := []struct {
		name     string
		breakRPC func(f *fakeRPC)
	}{
		{"token accounts", func(f *fakeRPC) {
			f.tokenAccounts = func(solana.PublicKey, solana.PublicKey) (*rpc.GetTokenAccountsResult, error) { return nil, boom }
		}},
		{"accounts", func(f *fakeRPC) {
			f.multiple = func([]solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) { return nil, boom }
		}},
		{"short answer", func(f *fakeRPC) {
			f.multiple = func([]solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
				return &rpc.GetMultipleAccountsResult{}, nil
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := w.c.rpc()
			tc.breakRPC(f)
			_, err := NewDiscoverer(f, nil).List(context.Background(), w.wallet)
			if err == nil {
				t.Fatal("List succeeded")
			}
			var ie *ItemError
			if errors.As(err, &ie) {
				t.Errorf("cluster failure reported as an item error: %v", err)
			}
			if tc.name != "short answer" && !errors.Is(err, boom) {
				t.Errorf("error %v does not wrap the cause", err)
			}
		})
	}
}
