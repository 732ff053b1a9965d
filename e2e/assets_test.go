package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/upstream/jupiter"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// countingRPC is the real client, counting the calls discovery makes.
type countingRPC struct {
	*rpc.Client
	calls atomic.Int32
}

func (c *countingRPC) GetTokenAccountsByOwner(ctx context.Context, owner solana.PublicKey, conf *rpc.GetTokenAccountsConfig, opts *rpc.GetTokenAccountsOpts) (*rpc.GetTokenAccountsResult, error) {
	c.calls.Add(1)
	return c.Client.GetTokenAccountsByOwner(ctx, owner, conf, opts)
}

func (c *countingRPC) GetProgramAccountsWithOpts(ctx context.Context, program solana.PublicKey, opts *rpc.GetProgramAccountsOpts) (rpc.GetProgramAccountsResult, error) {
	c.calls.Add(1)
	return c.Client.GetProgramAccountsWithOpts(ctx, program, opts)
}

func (c *countingRPC) GetMultipleAccountsWithOpts(ctx context.Context, keys []solana.PublicKey, opts *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error) {
	c.calls.Add(1)
	return c.Client.GetMultipleAccountsWithOpts(ctx, keys, opts)
}

// assetsWallet is a wallet fixture plus what TestAssetsList adds to it.
type assetsWallet struct {
	*harness.WalletFixture
	empties      []solana.PublicKey // 15 Token + 15 Token-2022 accounts, empty
	frozenFunded solana.PublicKey   // Freezable mint, 100 base units, frozen
	nft2         harness.Mint
	nft2Account  solana.PublicKey
	closeAuth    solana.PublicKey // empty, close authority the issuer
	meta         harness.Mint     // Token-2022 with MetadataPointer + TokenMetadata
	metaAccount  solana.PublicKey // 12_345 base units of meta
}

const (
	metaName   = "Reclaim Test Token"
	metaSymbol = "RCLM"
	metaURI    = "https://example.com/rclm.json"
)

func newAssetsWallet(t *testing.T, v *harness.Validator) *assetsWallet {
	t.Helper()
	f := v.NewWalletFixture(t)
	w := &assetsWallet{WalletFixture: f}
	owner := f.Owner.PublicKey()
	w.empties = append(v.CreateTokenAccounts(t, f.Owner, f.Token, 15), v.CreateTokenAccounts(t, f.Owner, f.Token22, 15)...)

	w.frozenFunded = v.CreateTokenAccounts(t, f.Owner, f.Freezable, 1)[0]
	v.MintTo(t, f.Freezable, w.frozenFunded, 100)
	v.Freeze(t, f.Freezable, w.frozenFunded)

	w.nft2 = v.CreateMint(t, f.Issuer, harness.MintSpec{Decimals: 0})
	w.nft2Account = v.CreateATA(t, f.Owner, owner, w.nft2)
	v.MintTo(t, w.nft2, w.nft2Account, 1)

	w.closeAuth = v.CreateTokenAccounts(t, f.Owner, f.Token, 1)[0]
	issuer := f.Issuer.PublicKey()
	v.Send(t, f.Owner, []solana.Instruction{spltoken.SetAuthority(solana.TokenProgramID, w.closeAuth, owner, spltoken.AuthorityCloseAccount, &issuer)})

	w.meta = v.CreateMintWithMetadata(t, f.Issuer, 2, metaName, metaSymbol, metaURI)
	w.metaAccount = v.CreateATA(t, f.Owner, owner, w.meta)
	v.MintTo(t, w.meta, w.metaAccount, 12_345)
	return w
}

// expected lists the wallet's items as discovery must report them, lamports read
// with getAccountInfo.
func (w *assetsWallet) expected(t *testing.T, v *harness.Validator, price float64) []assets.Item {
	owner := w.Owner.PublicKey()
	tok, t22 := solana.TokenProgramID, solana.Token2022ProgramID
	closeOnly, burn, none := []assets.Action{assets.ActionClose}, []assets.Action{assets.ActionBurn}, []assets.Action{}
	usd := 1.5 * price
	items := []assets.Item{
		{Type: assets.TypeToken, Address: w.Funded, Mint: w.Token.Address, TokenProgram: tok, Decimals: 6, Amount: harness.FundedAmount, UIBalance: 1.5, USDValue: &usd, Actions: burn},
		{Type: assets.TypeEmptyAccount, Address: w.Empty, Mint: w.Freezable.Address, TokenProgram: tok, Decimals: 6, Actions: closeOnly},
		{Type: assets.TypeEmptyAccount, Address: w.Empty22, Mint: w.Token22.Address, TokenProgram: t22, Decimals: 9, Actions: closeOnly},
		{Type: assets.TypeEmptyAccount, Address: w.Frozen, Mint: w.FrozenMint.Address, TokenProgram: tok, Decimals: 2, IsFrozen: true, Actions: closeOnly},
		{Type: assets.TypeNFT, Address: w.NFTAccount, Mint: w.NFT.Address, TokenProgram: tok, Amount: 1, UIBalance: 1, Actions: burn},
		{Type: assets.TypeToken, Address: w.Withheld, Mint: w.TransferFee.Address, TokenProgram: t22, Decimals: 6,
			Amount: harness.WithheldTransfer - harness.WithheldFee, UIBalance: 0.2475, WithheldAmount: harness.WithheldFee, Actions: burn},
		{Type: assets.TypeToken, Address: w.WrappedSOL, Mint: solana.WrappedSol, TokenProgram: tok, Name: "Wrapped SOL", Symbol: "SOL", Decimals: 9,
			Amount: harness.WrappedLamports, UIBalance: 0.1, IsNative: true, Actions: closeOnly},
		{Type: assets.TypeToken, Address: w.frozenFunded, Mint: w.Freezable.Address, TokenProgram: tok, Decimals: 6, Amount: 100, UIBalance: 0.0001, IsFrozen: true, Actions: none},
		{Type: assets.TypeNFT, Address: w.nft2Account, Mint: w.nft2.Address, TokenProgram: tok, Amount: 1, UIBalance: 1, Actions: burn},
		{Type: assets.TypeEmptyAccount, Address: w.closeAuth, Mint: w.Token.Address, TokenProgram: tok, Decimals: 6, HasCloseAuthority: true, Actions: none},
		{Type: assets.TypeToken, Address: w.metaAccount, Mint: w.meta.Address, TokenProgram: t22, Name: metaName, Symbol: metaSymbol, URI: metaURI,
			Decimals: 2, Amount: 12_345, UIBalance: 123.45, Actions: burn},
	}
	for i, e := range w.empties {
		m, d, p := w.Token, uint8(6), tok
		if i >= 15 {
			m, d, p = w.Token22, 9, t22
		}
		items = append(items, assets.Item{Type: assets.TypeEmptyAccount, Address: e, Mint: m.Address, TokenProgram: p, Decimals: d, Actions: closeOnly})
	}
	for i := range items {
		items[i].Owner = owner
		info, err := v.RPC.GetAccountInfoWithOpts(context.Background(), items[i].Address, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatalf("account info of %s: %v", items[i].Address, err)
		}
		items[i].Lamports = info.Value.Lamports
		// The rent: the rent-exempt minimum of the account's size, as the
		// validator computes it, at most its lamports (wrapped SOL holds
		// more: the wallet's own SOL).
		minimum, err := v.RPC.GetMinimumBalanceForRentExemption(context.Background(), uint64(len(info.Value.Data.GetBinary())), rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatalf("rent-exempt minimum of %s: %v", items[i].Address, err)
		}
		items[i].Rent = min(minimum, info.Value.Lamports)
	}
	return items
}

// TestAssets lists a wallet built with real transactions (the wallet fixture, 30
// more empty accounts under both programs, a frozen balance, a second NFT, a
// foreign close authority, a Token-2022 mint with on-chain metadata) and checks
// every item, the counts and the RPC calls; then that the actions offered are
// those the token programs accept, and Resolve.
func TestAssets(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	w := newAssetsWallet(t, v)
	owner := w.Owner.PublicKey()
	ctx := context.Background()

	prices := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(rw, `{"data":{%q:{"id":%q,"price":"0.5"},%q:{"id":%q,"price":"1000"},%q:null}}`,
			w.Token.Address, w.Token.Address, w.NFT.Address, w.NFT.Address, solana.WrappedSol)
	}))
	defer prices.Close()

	t.Run("list", func(t *testing.T) {
		c := &countingRPC{Client: v.RPC}
		l, err := assets.NewDiscoverer(c, jupiter.New(prices.URL, prices.Client())).List(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		want := w.expected(t, v, 0.5)
		for i := range want {
			if want[i].Address == w.Frozen {
				want[i].Decimals = 0 // a listing reads the mint of an empty SPL Token account only for another item of it
			}
		}
		sortLikeListing(want)
		if len(l.Items) != len(want) {
			t.Errorf("%d items, want %d", len(l.Items), len(want))
		}
		for i := range min(len(l.Items), len(want)) {
			if !reflect.DeepEqual(l.Items[i], want[i]) {
				t.Errorf("item %d\n got %s\nwant %s", i, show(l.Items[i]), show(want[i]))
			}
		}
		// No excess rent: the shared validator's rent is not cut (the
		// accounts hold their minimum exactly).
		wantCounts := map[assets.ItemType]int{"empty_account": 34, "token": 5, "nft": 2, "fungible_asset": 0, "zk_compressed_token": 0, "cnft": 0,
			"excess_rent": 0, "program_buffer": 0, "nonce_account": 0, "stake_account": 0, "lookup_table": 0, "mint": 0}
		if !reflect.DeepEqual(l.Counts, wantCounts) {
			t.Errorf("counts = %v, want %v", l.Counts, wantCounts)
		}
		// Two getTokenAccountsByOwner, the cluster's state (Rent, Clock,
		// p-token) and its six scans (the lookup tables' the sixth), then 9
		// mints and their 9 metadata PDAs in one getMultipleAccounts; no
		// collections, and no SlotHashes (no deactivated table).
		if got := c.calls.Load(); got != 10 {
			t.Errorf("%d RPC calls, want 10", got)
		}
	})

	t.Run("actions match the token programs", func(t *testing.T) {
		fm := w.Freezable
		cases := []struct {
			name   string
			ix     solana.Instruction
			accept bool
		}{
			{"close an empty frozen account", spltoken.CloseAccount(solana.TokenProgramID, w.Frozen, owner, owner), true},
			{"burn a frozen balance", spltoken.BurnChecked(fm.Program, w.frozenFunded, fm.Address, owner, 100, fm.Decimals), false},
			{"close with another close authority", spltoken.CloseAccount(solana.TokenProgramID, w.closeAuth, owner, owner), false},
			{"burn wrapped SOL", spltoken.BurnChecked(solana.TokenProgramID, w.WrappedSOL, solana.WrappedSol, owner, 1, 9), false},
			{"close wrapped SOL with a balance", spltoken.CloseAccount(solana.TokenProgramID, w.WrappedSOL, owner, owner), true},
			{"burn a token balance", spltoken.BurnChecked(w.Token.Program, w.Funded, w.Token.Address, owner, harness.FundedAmount, 6), true},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				err := simulate(ctx, v, w.Owner, tc.ix)
				if (err == nil) != tc.accept {
					t.Errorf("simulation error %v; want accepted=%v", err, tc.accept)
				}
			})
		}
	})

	t.Run("resolve", func(t *testing.T) {
		d := assets.NewDiscoverer(v.RPC, nil)
		items, err := d.Resolve(ctx, owner, []solana.PublicKey{w.metaAccount, w.Withheld, w.empties[20]})
		if err != nil {
			t.Fatal(err)
		}
		want := w.expected(t, v, 0)
		byAddr := map[solana.PublicKey]assets.Item{}
		for _, it := range want {
			it.USDValue = nil // Resolve reads no prices (nor Metaplex metadata, absent here)
			if it.Type == assets.TypeEmptyAccount {
				it.Decimals = 0 // nor the mints of empty accounts
			}
			byAddr[it.Address] = it
		}
		for _, it := range items {
			if !reflect.DeepEqual(it, byAddr[it.Address]) {
				t.Errorf("resolved\n got %s\nwant %s", show(it), show(byAddr[it.Address]))
			}
		}
		missing := solana.NewWallet().PublicKey()
		for _, tc := range []struct {
			address solana.PublicKey
			reason  string
		}{
			{missing, "account not found"},
			{w.Token.Address, "not a token account of SPL Token or Token-2022"},
			{w.IssuerFee, "token account is owned by another wallet"},
		} {
			_, err := d.Resolve(ctx, owner, []solana.PublicKey{w.Funded, tc.address})
			var ie *assets.ItemError
			if !errors.As(err, &ie) || ie.Address != tc.address.String() || ie.Reason != tc.reason {
				t.Errorf("Resolve(%s) = %v, want ItemError %q", tc.address, err, tc.reason)
			}
		}
	})
}

// simulate runs ix from owner through simulateTransaction (signatures verified);
// nil when the programs accept it.
func simulate(ctx context.Context, v *harness.Validator, owner solana.PrivateKey, ix solana.Instruction) error {
	tx, err := v.BuildTx(ctx, false, owner, []solana.Instruction{ix})
	if err != nil {
		return err
	}
	res, err := v.RPC.SimulateTransactionWithOpts(ctx, tx, &rpc.SimulateTransactionOpts{SigVerify: true, Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		return err
	}
	if res.Value.Err != nil {
		return fmt.Errorf("%v: %v", res.Value.Err, res.Value.Logs)
	}
	return nil
}

func sortLikeListing(items []assets.Item) {
	// Token accounts by address: the discovery order List shares with Stream.
	slices.SortFunc(items, func(a, b assets.Item) int {
		return strings.Compare(a.Address.String(), b.Address.String())
	})
}

func show(it assets.Item) string {
	usd := "nil"
	if it.USDValue != nil {
		usd = fmt.Sprint(*it.USDValue)
	}
	return fmt.Sprintf("%+v usd=%s", it, usd)
}
