package txbuild

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// TestBuildErrors: the request's mistakes are *assets.ItemError (400), naming the item when
// one is at fault; configuration and cluster failures are other errors (503).
func TestBuildErrors(t *testing.T) {
	t.Parallel()
	clusterDown := errors.New("connection refused")
	other := key("other")
	cases := []struct {
		name    string
		params  func() Params
		fake    func(*fakeRPC)
		item    string // the *assets.ItemError's Item; "-" when the error is not an *assets.ItemError
		message string // a substring of the message
	}{
		{name: "no items", params: func() Params { return fullParams(nil, 0) }, message: "no items"},
		{name: "no wallet", params: func() Params { p := fullParams(empties(1), 0); p.Wallet = solana.PublicKey{}; return p }, message: "no wallet"},
		{name: "donation without a wallet", params: func() Params { p := fullParams(empties(1), 0); p.DonationWallet = nil; return p }, message: "donation wallet"},
		{name: "donation to the wallet", params: func() Params { p := fullParams(empties(1), 0); p.DonationWallet = &wallet; return p }, message: "wallet itself"},
		{name: "donation above 1", params: func() Params { p := fullParams(empties(1), 0); p.DonationPercentage = 1.5; return p }, message: "between 0 and 1"},
		{name: "unknown priority", params: func() Params { p := fullParams(empties(1), 0); p.PriorityLevel = "turbo"; return p }, message: `"turbo"`},
		{name: "selected twice", params: func() Params { return fullParams([]Selected{empty("a"), empty("a")}, 0) }, item: key("a").String(), message: "twice"},
		{name: "unknown action", params: func() Params {
			s := empty("a")
			s.Action, s.Item.Actions = "melt", nil
			return fullParams([]Selected{s}, 0)
		}, item: key("a").String(), message: `"melt"`},
		{name: "action not offered", params: func() Params { s := empty("a"); s.Action = assets.ActionBurn; return fullParams([]Selected{s}, 0) }, item: key("a").String(), message: "not available"},
		{name: "close with a balance", params: func() Params {
			s := token("a", 5)
			s.Action, s.Item.Actions = assets.ActionClose, nil
			return fullParams([]Selected{s}, 0)
		}, item: key("a").String(), message: "burn them"},
		{name: "burn wrapped SOL", params: func() Params { s := token("a", 5); s.Item.IsNative = true; return fullParams([]Selected{s}, 0) }, item: key("a").String(), message: "wrapped SOL"},
		{name: "burn frozen", params: func() Params { s := token("a", 5); s.Item.IsFrozen = true; return fullParams([]Selected{s}, 0) }, item: key("a").String(), message: "frozen"},
		{name: "burn an empty account", params: func() Params {
			s := empty("a")
			s.Action, s.Item.Actions = assets.ActionBurn, nil
			return fullParams([]Selected{s}, 0)
		}, item: key("a").String(), message: "token and nft"},
		{name: "another owner", params: func() Params { s := empty("a"); s.Item.Owner = other; return fullParams([]Selected{s}, 0) }, item: key("a").String(), message: "owned by"},
		{name: "close authority", params: func() Params { s := empty("a"); s.Item.HasCloseAuthority = true; return fullParams([]Selected{s}, 0) }, item: key("a").String(), message: "close authority"},
		{name: "compressed NFT closed", params: func() Params { s := empty("a"); s.Item.Type = assets.TypeCNFT; return fullParams([]Selected{s}, 0) }, item: key("a").String(), message: "compressed NFT"},
		{name: "zk compressed token", params: func() Params {
			s := empty("a")
			s.Item.Type = assets.TypeZKCompressedToken
			return fullParams([]Selected{s}, 0)
		}, item: key("a").String(), message: "zk_compressed_token"},
		{name: "not a token account", params: func() Params { s := empty("a"); s.Item.TokenProgram = other; return fullParams([]Selected{s}, 0) }, item: key("a").String(), message: "not an SPL Token"},
		{name: "withheld outside Token-2022", params: func() Params { s := empty("a"); s.Item.WithheldAmount = 1; return fullParams([]Selected{s}, 0) }, item: key("a").String(), message: "Token-2022"},
		{
			name:   "costs more than it returns",
			params: func() Params { p := fullParams(empties(1), 0); p.DonationPercentage = 1; return p },
			item:   key("empty 0").String(), message: "cost more than it returns",
		},
		{
			name:   "dust",
			params: func() Params { s := empty("a"); s.Item.Lamports = 5_000; return fullParams([]Selected{s}, 0) },
			item:   key("a").String(), message: "cost more than it returns",
		},
		{
			name:   "donation too small to create its wallet",
			params: func() Params { return fullParams(empties(1), 0) },
			fake:   missingRecipient(donee), message: "at least 890880 lamports",
		},
		{
			name:   "service fee too small to create the treasury",
			params: func() Params { return fullParams(empties(5), 0) },
			fake:   missingRecipient(treasury), message: "service fee transfer of 509820 lamports to " + treasury.String(),
		},
		{
			name:   "simulation names the failing item",
			params: func() Params { return fullParams([]Selected{core("a", 2_900_000), core("b", 2_900_000)}, 0) },
			fake: failSimulation(map[string]any{"InstructionError": []any{float64(4), map[string]any{"Custom": float64(11)}}},
				"Program log: Instruction: Burn", "Program log: Error: Invalid authority",
				"Program CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d failed: custom program error: 0xb"),
			item: key("b").String(), message: "Error: Invalid authority; Program CoRE",
		},
		{
			name:   "wallet without SOL",
			params: func() Params { return fullParams(cores(1), 0) },
			fake:   failSimulation("AccountNotFound"), message: "no SOL to pay the network fee",
		},
		{
			name:   "service fee without a treasury",
			params: func() Params { p := fullParams(empties(1), 0); p.Treasury = nil; return p },
			item:   "-", message: "needs a treasury",
		},
		{name: "headroom too large", params: func() Params { return fullParams(empties(1), 2000) }, item: "-", message: "headroom"},
		{
			name: "cluster down", params: func() Params { return fullParams(empties(1), 0) },
			fake: func(f *fakeRPC) {
				f.blockhash = func(rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error) { return nil, clusterDown }
			},
			item: "-", message: "connection refused",
		},
		{
			name: "simulation unreachable", params: func() Params { return fullParams(cores(1), 0) },
			fake: func(f *fakeRPC) {
				f.simulate = func(*solana.Transaction, *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error) {
					return nil, clusterDown
				}
			},
			item: "-", message: "simulate",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake()
			if tc.fake != nil {
				tc.fake(f)
			}
			_, err := NewBuilder(f).Build(context.Background(), tc.params())
			if err == nil {
				t.Fatal("built")
			}
			var e *assets.ItemError
			if isErr := errors.As(err, &e); isErr != (tc.item != "-") {
				t.Fatalf("%T %v: *Error %v, want %v", err, err, isErr, tc.item != "-")
			}
			t.Log(err)
			if e != nil && e.Item() != tc.item {
				t.Errorf("Item = %q, want %q (%v)", e.Item(), tc.item, err)
			}
			if !strings.Contains(err.Error(), tc.message) {
				t.Errorf("error %q does not say %q", err, tc.message)
			}
			if tc.name == "cluster down" && !errors.Is(err, clusterDown) {
				t.Errorf("cluster error not wrapped: %v", err)
			}
		})
	}
}

// TestBuildReportsTheFirstFailure: transactions are built concurrently, but the
// error is always the first failing transaction's.
func TestBuildReportsTheFirstFailure(t *testing.T) {
	t.Parallel()
	items := cores(60) // simulated: the compute table does not know Core's burn
	packed := build(t, newFake(), fullParams(items, 0))
	if len(packed.Txs) < 3 {
		t.Fatalf("%d transactions, want 3 or more", len(packed.Txs))
	}
	second := packed.Txs[1].Includes[0].Item.Address
	for range 20 {
		f := newFake()
		f.simulate = func(tx *solana.Transaction, _ *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error) {
			if ok, _ := tx.Message.HasAccount(key("core 0")); ok {
				units := uint64(10_000)
				return &rpc.SimulateTransactionResponse{Value: &rpc.SimulateTransactionResult{UnitsConsumed: &units}}, nil
			}
			return &rpc.SimulateTransactionResponse{Value: &rpc.SimulateTransactionResult{
				Err: map[string]any{"InstructionError": []any{float64(3), "InvalidAccountData"}},
			}}, nil
		}
		_, err := NewBuilder(f).Build(context.Background(), fullParams(items, 0))
		var e *assets.ItemError
		if !errors.As(err, &e) || e.Item() != second.String() {
			t.Fatalf("error %v, want one naming the first item of the second transaction", err)
		}
	}
}

// TestBuildCreatesRecipient lets a transfer create a missing recipient when it
// is at least the rent-exempt minimum.
func TestBuildCreatesRecipient(t *testing.T) {
	t.Parallel()
	f := newFake()
	missingRecipient(donee)(f)
	tx := build(t, f, fullParams(empties(5), 0)).Txs[0]
	if tx.DonationAmount != 1_019_640 || f.calls["getMinimumBalanceForRentExemption"] != 1 {
		t.Errorf("donation %d, rent asked %d times", tx.DonationAmount, f.calls["getMinimumBalanceForRentExemption"])
	}
}

func missingRecipient(missing solana.PublicKey) func(*fakeRPC) {
	return func(f *fakeRPC) {
		f.accounts = func(keys []solana.PublicKey) (*rpc.GetMultipleAccountsResult, error) {
			out := &rpc.GetMultipleAccountsResult{}
			for _, k := range keys {
				var a *rpc.Account
				if !k.Equals(missing) {
					a = &rpc.Account{Lamports: 1}
				}
				out.Value = append(out.Value, a)
			}
			return out, nil
		}
	}
}

func failSimulation(err any, logs ...string) func(*fakeRPC) {
	return func(f *fakeRPC) {
		f.simulate = func(*solana.Transaction, *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error) {
			return &rpc.SimulateTransactionResponse{Value: &rpc.SimulateTransactionResult{Err: err, Logs: logs}}, nil
		}
	}
}
