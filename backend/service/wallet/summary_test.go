package wallet

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
)

// safeWallet is a listing of every kind of item: the safe ones (an empty
// account, excess rent, a buffer, a nonce and a stake account) and those
// select-all leaves (a token, wrapped SOL, an NFT, a cNFT, a frozen empty
// account).
func safeWallet() assets.Listing {
	items := []assets.Item{
		chainItem("empty", assets.TypeEmptyAccount, assets.ActionClose),
		chainItem("token", assets.TypeToken, assets.ActionBurn, assets.ActionClose),
		chainItem("wrapped", assets.TypeToken, assets.ActionClose),
		chainItem("frozen", assets.TypeEmptyAccount),
		chainItem("excess", assets.TypeExcessRent, assets.ActionWithdrawExcess),
		chainItem("nft", assets.TypeNFT, assets.ActionBurn),
		chainItem("cnft", assets.TypeCNFT, assets.ActionBurn),
		chainItem("buffer", assets.TypeProgramBuffer, assets.ActionClose),
		chainItem("nonce", assets.TypeNonceAccount, assets.ActionClose),
		chainItem("stake", assets.TypeStakeAccount, assets.ActionWithdraw),
	}
	items[4].Lamports, items[7].Lamports = 550_840, 1_500_000_000
	items[4].Rent, items[7].Rent = 550_840, 1_500_000_000
	// Own SOL beside the rent: 0.05 wrapped SOL, a stake's 5 SOL principal.
	items[2].Lamports, items[9].Lamports = 2_039_280+50_000_000, 2_039_280+5_000_000_000
	items[6].Rent = 0 // a cNFT returns no rent
	return assets.Listing{Items: items, TokenAccounts: 4}
}

// safeLabels are the items of safeWallet that select-all takes, in order.
var safeLabels = []string{"empty", "excess", "buffer", "nonce", "stake"}

// TestBuildSelectAll: a select-all build lists the wallet once, takes the
// safe items with their safe action in listing order (no burn, no token
// close, nothing frozen), reads nothing again, and issues a ticket per
// transaction.
func TestBuildSelectAll(t *testing.T) {
	t.Parallel()
	f := newFakes()
	f.list = func(context.Context, solana.PublicKey) (assets.Listing, error) { return safeWallet(), nil }
	var built txbuild.Params
	f.build = func(_ context.Context, p txbuild.Params) (txbuild.Result, error) {
		built = p
		return oneTx(p), nil
	}
	donation := 0.1
	res, err := f.service().Build(context.Background(), BuildRequest{ProjectID: "prj_test", Wallet: owner, SelectAll: true, DonationPercentage: &donation})
	if err != nil {
		t.Fatal(err)
	}
	if len(built.Items) != len(safeLabels) {
		t.Fatalf("selected %d items, want %v", len(built.Items), safeLabels)
	}
	for i, s := range built.Items {
		want, _ := s.Item.SafeAction()
		if s.Item.Address != key(safeLabels[i]) || s.Action != want || s.Action == assets.ActionBurn {
			t.Errorf("item %d: %s %s %s, want %s", i, s.Item.Type, s.Item.Address, s.Action, safeLabels[i])
		}
	}
	if built.DonationPercentage != donation || built.DonationWallet == nil || !built.Wallet.Equals(owner) {
		t.Errorf("params %+v", built)
	}
	if n := f.called("List"); n != 1 {
		t.Errorf("%d listings, want 1", n)
	}
	if n := f.called("Resolve"); n != 0 {
		t.Errorf("the listed items were read again (%d)", n)
	}
	if len(res.Tickets) != 1 || len(f.issued) != 1 || len(f.issued[0].Includes) != len(safeLabels) {
		t.Errorf("tickets %v, issued %+v", res.Tickets, f.issued)
	}
}

// TestBuildSelectAllAtMost500: select-all takes the first MaxBuildItems
// safe items of the listing, as a selection could.
func TestBuildSelectAllAtMost500(t *testing.T) {
	t.Parallel()
	items := make([]assets.Item, MaxBuildItems+20)
	for i := range items {
		items[i] = chainItem(fmt.Sprint("empty ", i), assets.TypeEmptyAccount, assets.ActionClose)
	}
	if got := selectSafe(items); len(got) != MaxBuildItems || got[MaxBuildItems-1].Item.Address != items[MaxBuildItems-1].Address {
		t.Fatalf("selected %d items", len(got))
	}
}

// TestBuildSelectAllRefusals: select-all with items, nothing safe to take,
// a listing that fails and a build the Builder refuses each get their
// answer, named selectAll when it is about the selection.
func TestBuildSelectAllRefusals(t *testing.T) {
	t.Parallel()
	unsafe := assets.Listing{Items: []assets.Item{chainItem("token", assets.TypeToken, assets.ActionBurn)}, TokenAccounts: 1}
	cases := []struct {
		name    string
		req     BuildRequest
		listing func(context.Context, solana.PublicKey) (assets.Listing, error)
		build   func(context.Context, txbuild.Params) (txbuild.Result, error)
		check   func(t *testing.T, err error)
	}{
		{"nothing safe", BuildRequest{Wallet: owner, SelectAll: true}, func(context.Context, solana.PublicKey) (assets.Listing, error) { return unsafe, nil }, nil, func(t *testing.T, err error) {
			wantInvalid(t, err, "selectAll", "selectAll: nothing in wallet "+owner.String()+" is safe to reclaim now…")
		}},
		{"the listing fails", BuildRequest{Wallet: owner, SelectAll: true}, func(context.Context, solana.PublicKey) (assets.Listing, error) {
			return assets.Listing{}, errors.New("connection refused")
		}, nil, func(t *testing.T, err error) { wantUnavailable(t, err, "the Solana cluster did not answer") }},
		{"the builder refuses an item", BuildRequest{Wallet: owner, SelectAll: true}, nil, func(context.Context, txbuild.Params) (txbuild.Result, error) {
			return txbuild.Result{}, &assets.ItemError{Address: key("excess").String(), Index: 1, Reason: "the fees exceed its rebate"}
		}, func(t *testing.T, err error) {
			wantInvalid(t, err, "selectAll", "selectAll: "+key("excess").String()+": the fees exceed its rebate")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			f.list = func(context.Context, solana.PublicKey) (assets.Listing, error) { return safeWallet(), nil }
			if tc.listing != nil {
				f.list = tc.listing
			}
			if tc.build != nil {
				f.build = tc.build
			}
			_, err := f.service().Build(context.Background(), tc.req)
			tc.check(t, err)
			if n := f.called("Issue"); n != 0 {
				t.Errorf("%d tickets issued", n)
			}
		})
	}
}

// TestSummary: every type summed, zeros included; the totals and the
// transaction count are those of the select-all build, made with the same
// options, and no ticket is issued.
func TestSummary(t *testing.T) {
	t.Parallel()
	f := newFakes()
	f.list = func(context.Context, solana.PublicKey) (assets.Listing, error) { return safeWallet(), nil }
	f.build = func(_ context.Context, p txbuild.Params) (txbuild.Result, error) {
		r := oneTx(p)
		r.Txs = append(r.Txs, r.Txs[0]) // two transactions
		return r, nil
	}
	svc := f.service()
	donation, level := 0.25, PriorityLevel(txbuild.PriorityHigh)
	sum, err := svc.Summary(context.Background(), SummaryRequest{ProjectID: "prj_test", Wallet: owner, DonationPercentage: &donation, PriorityFeeLevel: &level})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Types) != len(assets.ItemTypes()) {
		t.Errorf("%d types, want every one of %v", len(sum.Types), assets.ItemTypes())
	}
	want := map[assets.ItemType]TypeSummary{
		assets.TypeEmptyAccount: {2, 2 * 2_039_280, 2 * 2_039_280}, assets.TypeToken: {2, 2*2_039_280 + 50_000_000, 2 * 2_039_280},
		assets.TypeExcessRent: {1, 550_840, 550_840}, assets.TypeNFT: {1, 2_039_280, 2_039_280}, assets.TypeCNFT: {1, 2_039_280, 0},
		assets.TypeProgramBuffer: {1, 1_500_000_000, 1_500_000_000}, assets.TypeNonceAccount: {1, 2_039_280, 2_039_280},
		assets.TypeStakeAccount: {1, 2_039_280 + 5_000_000_000, 2_039_280},
	}
	for _, typ := range assets.ItemTypes() {
		if sum.Types[typ] != want[typ] {
			t.Errorf("%s: %+v, want %+v", typ, sum.Types[typ], want[typ])
		}
	}
	build, err := svc.Build(context.Background(), BuildRequest{ProjectID: "prj_test", Wallet: owner, SelectAll: true, DonationPercentage: &donation, PriorityFeeLevel: &level})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Totals != build.Totals() || sum.TransactionCount != len(build.Txs) || sum.TransactionCount != 2 {
		t.Errorf("summary %+v in %d transactions, the build %+v in %d", sum.Totals, sum.TransactionCount, build.Totals(), len(build.Txs))
	}
	if len(f.prefetched) != 2 || f.prefetched[0].params.DonationPercentage != donation || f.prefetched[0].params.PriorityLevel != txbuild.PriorityHigh {
		t.Errorf("prefetched %+v", f.prefetched)
	}
	if n := f.called("Issue"); n != 2 {
		t.Errorf("%d tickets: the summary issued some", n) // the build's two alone
	}
}

// TestSummaryNothingSafe: a wallet with nothing safe sums its types and
// states zero totals in no transaction, building nothing.
func TestSummaryNothingSafe(t *testing.T) {
	t.Parallel()
	f := newFakes()
	f.list = func(context.Context, solana.PublicKey) (assets.Listing, error) {
		return assets.Listing{Items: []assets.Item{chainItem("nft", assets.TypeNFT, assets.ActionBurn)}}, nil
	}
	sum, err := f.service().Summary(context.Background(), SummaryRequest{ProjectID: "prj_test", Wallet: owner})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Totals != (txbuild.Totals{}) || sum.TransactionCount != 0 || sum.Types[assets.TypeNFT] != (TypeSummary{1, 2_039_280, 2_039_280}) || f.called("BuildWith") != 0 {
		t.Errorf("summary %+v, %d builds", sum, f.called("BuildWith"))
	}
}

// TestSummaryRefusals (the options' ranges are the proto's rules): a project
// without a donation wallet; a cluster that fails.
func TestSummaryRefusals(t *testing.T) {
	t.Parallel()
	some := 0.1
	f := newFakes()
	f.project = func(_ context.Context, id string) (project.Project, error) { return project.Project{ID: id}, nil }
	_, err := f.service().Summary(context.Background(), SummaryRequest{ProjectID: "prj_x", Wallet: owner, DonationPercentage: &some})
	wantInvalid(t, err, "donationPercentage", "donationPercentage: project prj_x has no donation wallet…")
	f = newFakes()
	f.list = func(context.Context, solana.PublicKey) (assets.Listing, error) {
		return assets.Listing{}, errors.New("timeout")
	}
	_, err = f.service().Summary(context.Background(), SummaryRequest{ProjectID: "prj_x", Wallet: owner})
	wantUnavailable(t, err, "the Solana cluster did not answer")
}
