package wallet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// buildOf is a build of the owner's items, no options given.
func buildOf(items ...Selection) BuildRequest {
	return BuildRequest{ProjectID: "prj_test", Wallet: owner, Items: items}
}

// emptyAccounts selects n empty accounts (not all on chain: for the checks
// made before the chain is asked).
func emptyAccounts(n int) []Selection {
	out := make([]Selection, n)
	for i := range out {
		out[i] = sel(fmt.Sprint("empty ", i), assets.TypeEmptyAccount, assets.ActionClose)
	}
	return out
}

// TestBuildRefusesBadRequests: the request's own mistakes, each named by
// its field, the first one in the order the contract's checks run (items,
// then each item's type, address and action, then the options), before any
// dependency is asked.
func TestBuildRefusesBadRequests(t *testing.T) {
	t.Parallel()
	ptr := func(v float64) *float64 { return &v }
	dup := key("empty 0").String()
	cases := []struct {
		name  string
		req   BuildRequest
		param string
		want  string // ending in "…": what it contains
	}{
		{"missing address", buildOf(emptyAccounts(1)[0], SelectionOf(assets.TypeNFT, "", assets.ActionBurn)), "items[1].address", "items[1].address: is required"},
		{"address not base58", buildOf(SelectionOf(assets.TypeNFT, "0OIl", assets.ActionBurn)), "items[0].address", `items[0].address: "0OIl" is not a Solana address (base58 of 32 bytes)`},
		{"bad address before a bad action", buildOf(SelectionOf(assets.TypeNFT, "0OIl", assets.ActionClose)), "items[0].address", "items[0].address: …"},
		{"close an nft", buildOf(SelectionOf(assets.TypeNFT, dup, assets.ActionClose)), "items[0].action", `items[0].action: action "close" is not valid for an item of type nft: want burn`},
		{"missing action", buildOf(SelectionOf(assets.TypeNFT, dup, "")), "items[0].action", `items[0].action: action "" is not valid…`},
		{"zk compressed token", buildOf(SelectionOf(assets.TypeZKCompressedToken, dup, assets.ActionBurn)), "items[0].action", `items[0].action: action "burn" is not valid for an item of type zk_compressed_token: it takes no action yet`},
		{"selected twice", buildOf(append(emptyAccounts(2), emptyAccounts(1)...)...), "items[2].address", "items[2].address: " + dup + " is already selected in items[0]"},
		{"a bad item before a bad donation", BuildRequest{Wallet: owner, Items: []Selection{SelectionOf(assets.TypeNFT, "", assets.ActionBurn)}, DonationPercentage: ptr(2)}, "items[0].address", "items[0].address: …"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			_, err := f.service().Build(context.Background(), tc.req)
			wantInvalid(t, err, tc.param, tc.want)
			if n := f.called("GetProject", "Resolve", "Prefetch", "BuildWith", "Issue"); n != 0 {
				t.Errorf("%d calls of dependencies for a request refused on its face", n)
			}
		})
	}
}

// TestBuildAcceptsItsLimits: 500 items, a donation of 0 or 1 and every
// priority level pass the request's checks.
func TestBuildAcceptsItsLimits(t *testing.T) {
	t.Parallel()
	zero, one := 0.0, 1.0
	reqs := []BuildRequest{
		buildOf(emptyAccounts(MaxBuildItems)...),
		{Wallet: owner, Items: emptyAccounts(1), DonationPercentage: &zero},
		{Wallet: owner, Items: emptyAccounts(1), DonationPercentage: &one},
		buildOf(sel("e", assets.TypeEmptyAccount, assets.ActionClose), sel("t", assets.TypeToken, assets.ActionBurn),
			sel("w", assets.TypeToken, assets.ActionClose), sel("n", assets.TypeNFT, assets.ActionBurn), sel("c", assets.TypeCNFT, assets.ActionBurn)),
	}
	for _, l := range priorityLevels {
		reqs = append(reqs, BuildRequest{Wallet: owner, Items: emptyAccounts(1), PriorityFeeLevel: &l})
	}
	for i, req := range reqs {
		if err := validateBuild(req); err != nil {
			t.Errorf("request %d refused: %v", i, err)
		}
	}
}

// TestBuildOptions: the donation, the priority level and the operator's
// settings reach the Builder as the request and the project say, in the
// prefetch and the build alike.
func TestBuildOptions(t *testing.T) {
	t.Parallel()
	ptr := func(v float64) *float64 { return &v }
	level := func(l PriorityLevel) *PriorityLevel { return &l }
	donee, treasury := key("donee"), key("treasury")
	cases := []struct {
		name     string
		donation *float64
		level    *PriorityLevel
		wallet   string // the project's donation wallet
		want     txbuild.Params
		param    string // a refusal's
	}{
		{name: "no options", wallet: donee.String(), want: txbuild.Params{DonationWallet: &donee}},
		{name: "no donation wallet", want: txbuild.Params{}},
		{name: "donation", donation: ptr(0.1), wallet: donee.String(), want: txbuild.Params{DonationPercentage: 0.1, DonationWallet: &donee}},
		{name: "donation 0 without a donation wallet", donation: ptr(0), want: txbuild.Params{}},
		{name: "donation without a donation wallet", donation: ptr(0.1), param: "donationPercentage"},
		{name: "priority none", level: level(txbuild.PriorityNone), want: txbuild.Params{PriorityLevel: txbuild.PriorityNone}},
		{name: "priority high", level: level(txbuild.PriorityHigh), want: txbuild.Params{PriorityLevel: txbuild.PriorityHigh}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			f.project = func(_ context.Context, id string) (project.Project, error) {
				return project.Project{ID: id, DonationWallet: tc.wallet}, nil
			}
			var built txbuild.Params
			f.build = func(_ context.Context, p txbuild.Params) (txbuild.Result, error) {
				built = p
				return oneTx(p), nil
			}
			svc := f.service(func(d *Deps) { d.ServiceFeeBPS, d.Treasury, d.HeadroomBytes = 250, &treasury, 300 })
			req := buildOf(sel("empty", assets.TypeEmptyAccount, assets.ActionClose), sel("token", assets.TypeToken, assets.ActionBurn))
			req.DonationPercentage, req.PriorityFeeLevel = tc.donation, tc.level
			_, err := svc.Build(context.Background(), req)
			if tc.param != "" {
				wantInvalid(t, err, tc.param, "donationPercentage: project prj_test has no donation wallet: set one on the console's Settings page or leave donationPercentage out")
				if f.called("Resolve", "Prefetch", "BuildWith") != 0 {
					t.Error("asked the chain for a request it refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			want.Wallet, want.ServiceFeeBPS, want.Treasury, want.HeadroomBytes = owner, 250, &treasury, 300
			if !sameParams(built, want) || len(f.prefetched) != 1 || !sameParams(f.prefetched[0].params, want) {
				t.Errorf("built with %+v, prefetched %+v, want %+v", built, f.prefetched, want)
			}
			if got := f.prefetched[0].written; !slices.Equal(got, []solana.PublicKey{key("empty"), key("token")}) {
				t.Errorf("prefetched for %v, want the two accounts", got)
			}
			if len(built.Items) != 2 || built.Items[0].Item.Address != key("empty") || built.Items[1].Action != assets.ActionBurn {
				t.Errorf("items %+v", built.Items)
			}
		})
	}
}

// sameParams compares everything of two Params but the items.
func sameParams(a, b txbuild.Params) bool {
	same := func(x, y *solana.PublicKey) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Wallet == b.Wallet && a.DonationPercentage == b.DonationPercentage && same(a.DonationWallet, b.DonationWallet) &&
		a.ServiceFeeBPS == b.ServiceFeeBPS && same(a.Treasury, b.Treasury) && a.PriorityLevel == b.PriorityLevel && a.HeadroomBytes == b.HeadroomBytes
}

// TestBuildChecksTheChainNow: each selection against what the chain holds
// now, refused as items[i] with what changed; cNFTs (asset ids, not
// accounts) go to the Builder without being read.
func TestBuildChecksTheChainNow(t *testing.T) {
	t.Parallel()
	missing := key("missing")
	cases := []struct {
		name  string
		items []Selection
		cnfts bool // the Builder burns cNFTs
		param string
		want  string
	}{
		{name: "all there", items: []Selection{sel("empty", assets.TypeEmptyAccount, assets.ActionClose), sel("nft", assets.TypeNFT, assets.ActionBurn)}},
		{
			name:  "gone, after a cNFT",
			items: []Selection{sel("c1", assets.TypeCNFT, assets.ActionBurn), sel("empty", assets.TypeEmptyAccount, assets.ActionClose), sel("missing", assets.TypeToken, assets.ActionBurn)},
			cnfts: true, param: "items[2]", want: "items[2]: " + missing.String() + ": account not found",
		},
		{
			name: "another type now", items: []Selection{sel("nft", assets.TypeToken, assets.ActionBurn)},
			param: "items[0]", want: "items[0]: " + key("nft").String() + " is an nft on chain now, not a token: list the assets again",
		},
		{
			name: "another type now, read aloud", items: []Selection{sel("token", assets.TypeEmptyAccount, assets.ActionClose)},
			param: "items[0]", want: "items[0]: " + key("token").String() + " is a token on chain now, not an empty_account: list the assets again",
		},
		{
			name: "frozen", items: []Selection{sel("empty", assets.TypeEmptyAccount, assets.ActionClose), sel("frozen", assets.TypeToken, assets.ActionBurn)},
			param: "items[1]", want: "items[1]: " + key("frozen").String() + " cannot be burned now: the account is frozen by its mint's freeze authority",
		},
		{
			name: "another close authority", items: []Selection{sel("delegated", assets.TypeEmptyAccount, assets.ActionClose)},
			param: "items[0]", want: "items[0]: " + key("delegated").String() + " cannot be closed now: another key is its close authority",
		},
		{
			name: "refused by the token program", items: []Selection{sel("stuck", assets.TypeEmptyAccount, assets.ActionClose)},
			param: "items[0]", want: "items[0]: " + key("stuck").String() + " cannot be closed now: the token program would refuse it",
		},
		{
			name: "takes another action", items: []Selection{sel("wrapped", assets.TypeToken, assets.ActionBurn)},
			param: "items[0]", want: "items[0]: " + key("wrapped").String() + " cannot be burned now: it takes only close",
		},
		{
			name: "takes none", items: []Selection{sel("token", assets.TypeToken, assets.ActionClose)},
			param: "items[0]", want: "items[0]: " + key("token").String() + " cannot be closed now: it takes only burn",
		},
		{
			name: "cNFT without DAS", items: []Selection{sel("empty", assets.TypeEmptyAccount, assets.ActionClose), sel("c1", assets.TypeCNFT, assets.ActionBurn)},
			param: "items[1]", want: "items[1]: " + key("c1").String() + ": compressed NFTs need DAS_RPC_URL on the service",
		},
		{name: "cNFTs alone", items: []Selection{sel("c1", assets.TypeCNFT, assets.ActionBurn), sel("c2", assets.TypeCNFT, assets.ActionBurn)}, cnfts: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			f.cnfts = tc.cnfts
			var resolved []solana.PublicKey
			resolve := f.resolve
			f.resolve = func(ctx context.Context, wallet solana.PublicKey, addrs []solana.PublicKey) ([]assets.Item, error) {
				if dl, ok := ctx.Deadline(); wallet != owner || !ok || time.Until(dl) > time.Hour {
					t.Errorf("resolved for %s, deadline %v (want the RPC timeout)", wallet, dl)
				}
				resolved = addrs
				return resolve(ctx, wallet, addrs)
			}
			var built []txbuild.Selected
			f.build = func(_ context.Context, p txbuild.Params) (txbuild.Result, error) {
				built = p.Items
				return oneTx(p), nil
			}
			_, err := f.service().Build(context.Background(), buildOf(tc.items...))
			if tc.param != "" {
				wantInvalid(t, err, tc.param, tc.want)
				if f.called("BuildWith") != 0 {
					t.Error("built a refused selection")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var accounts []solana.PublicKey
			for i, s := range tc.items {
				if s.Type != assets.TypeCNFT {
					accounts = append(accounts, s.Address)
				}
				got := built[i]
				if got.Item.Address != s.Address || got.Item.Type != s.Type || got.Action != s.Action || got.Item.Owner != owner {
					t.Errorf("item %d built as %+v, want %+v", i, got, s)
				}
			}
			if !slices.Equal(resolved, accounts) || (len(accounts) == 0) != (f.called("Resolve") == 0) {
				t.Errorf("read %v on chain (%d calls), want %v", resolved, f.called("Resolve"), accounts)
			}
		})
	}
}

// TestBuildDependencyFailures: what the project, the chain and the Builder
// answer, mapped to the caller's mistake (named by position), a project
// that is gone, or a dependency unavailable (retry), each with its cause.
func TestBuildDependencyFailures(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	items := []Selection{sel("empty", assets.TypeEmptyAccount, assets.ActionClose), sel("token", assets.TypeToken, assets.ActionBurn)}
	cases := []struct {
		name    string
		fake    func(*fakes)
		timeout func(*Deps)
		param   string // an invalid fault's
		is      error  // what the error matches
		want    string // the message, or what the unavailable one says
	}{
		{name: "project gone", fake: func(f *fakes) {
			f.project = func(context.Context, string) (project.Project, error) { return project.Project{}, project.ErrNotFound }
		}, is: project.ErrNotFound},
		{name: "database down", fake: func(f *fakes) {
			f.project = func(context.Context, string) (project.Project, error) { return project.Project{}, boom }
		}, is: boom, want: "the database did not answer in time; retry shortly"},
		{name: "database too slow", timeout: func(d *Deps) { d.DBTimeout = time.Millisecond }, fake: func(f *fakes) {
			f.project = func(ctx context.Context, _ string) (project.Project, error) {
				<-ctx.Done()
				return project.Project{}, ctx.Err()
			}
		}, is: context.DeadlineExceeded, want: "the database did not answer in time"},
		{name: "cluster down reading the items", fake: func(f *fakes) {
			f.resolve = func(context.Context, solana.PublicKey, []solana.PublicKey) ([]assets.Item, error) { return nil, boom }
		}, is: boom, want: "the Solana cluster did not answer within 1h0m0s or failed; retry shortly"},
		{name: "cluster too slow reading the items", timeout: func(d *Deps) { d.RPCTimeout = time.Millisecond }, fake: func(f *fakes) {
			f.resolve = func(ctx context.Context, _ solana.PublicKey, _ []solana.PublicKey) ([]assets.Item, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}
		}, is: context.DeadlineExceeded, want: "did not answer within 1ms"},
		{name: "item error out of range", fake: func(f *fakes) {
			f.resolve = func(context.Context, solana.PublicKey, []solana.PublicKey) ([]assets.Item, error) {
				return nil, &assets.ItemError{Address: key("x").String(), Index: 2, Reason: "account not found"}
			}
		}, param: "items", want: "items: " + key("x").String() + ": account not found"},
		{name: "refused for the request", fake: func(f *fakes) {
			f.build = func(context.Context, txbuild.Params) (txbuild.Result, error) {
				return txbuild.Result{}, &assets.ItemError{Reason: "the donation wallet is the wallet itself"}
			}
		}, param: "items", want: "items: the donation wallet is the wallet itself"},
		{name: "refused for an item", fake: func(f *fakes) {
			f.build = func(context.Context, txbuild.Params) (txbuild.Result, error) {
				return txbuild.Result{}, fmt.Errorf("wrapped: %w", &assets.ItemError{Address: key("token").String(), Index: 1, Reason: "is frozen"})
			}
		}, param: "items[1]", want: "items[1]: " + key("token").String() + ": is frozen"},
		{name: "refused for an item out of range", fake: func(f *fakes) {
			f.build = func(context.Context, txbuild.Params) (txbuild.Result, error) {
				return txbuild.Result{}, &assets.ItemError{Address: key("x").String(), Index: 7, Reason: "is odd"}
			}
		}, param: "items", want: "items: " + key("x").String() + ": is odd"},
		{name: "indexer down", fake: func(f *fakes) {
			f.build = func(context.Context, txbuild.Params) (txbuild.Result, error) {
				return txbuild.Result{}, fmt.Errorf("%w: cnft x: %w", txbuild.ErrCNFTPlanner, boom)
			}
		}, is: boom, want: "the DAS indexer (or the cluster, reading a merkle tree) failed or did not answer while planning a compressed NFT burn; retry shortly"},
		{name: "cluster down building", fake: func(f *fakes) {
			f.build = func(context.Context, txbuild.Params) (txbuild.Result, error) { return txbuild.Result{}, boom }
		}, is: boom, want: "the Solana cluster did not answer"},
		{name: "build too slow", timeout: func(d *Deps) { d.BuildTimeout = time.Millisecond }, fake: func(f *fakes) {
			f.build = func(ctx context.Context, _ txbuild.Params) (txbuild.Result, error) {
				<-ctx.Done()
				return txbuild.Result{}, ctx.Err()
			}
		}, is: context.DeadlineExceeded, want: "the Solana cluster did not answer"},
		{name: "ticket not signed", fake: func(f *fakes) {
			f.issue = func(ticket.Claims, time.Time, time.Duration) (string, ticket.Claims, error) {
				return "", ticket.Claims{}, boom
			}
		}, is: boom},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			tc.fake(f)
			var edits []func(*Deps)
			if tc.timeout != nil {
				edits = append(edits, tc.timeout)
			}
			_, err := f.service(edits...).Build(context.Background(), buildOf(items...))
			switch {
			case tc.param != "":
				wantInvalid(t, err, tc.param, tc.want)
			case tc.want != "":
				wantUnavailable(t, err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want it to match %v", err, tc.is)
			}
			if _, ok := fault.As(err, fault.KindUnavailable); tc.want == "" && ok {
				t.Errorf("err = %v: unavailable, but retrying cannot help", err)
			}
		})
	}
}

// TestBuildIssuesATicketPerTransaction: each built transaction gets the
// ticket of what it does, signed now for the ticket TTL (at most
// ticket.MaxTTL), in the transactions' order.
func TestBuildIssuesATicketPerTransaction(t *testing.T) {
	t.Parallel()
	for _, ttl := range []time.Duration{30 * time.Second, 5 * time.Minute} {
		t.Run(ttl.String(), func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			var issuedAt []time.Time
			var ttls []time.Duration
			f.issue = func(c ticket.Claims, now time.Time, ttl time.Duration) (string, ticket.Claims, error) {
				issuedAt, ttls = append(issuedAt, now), append(ttls, ttl)
				return "ticket " + c.Type, c, nil
			}
			f.build = func(_ context.Context, p txbuild.Params) (txbuild.Result, error) {
				res := oneTx(txbuild.Params{Items: p.Items[:1]})
				second := oneTx(txbuild.Params{Items: p.Items[1:]}).Txs[0]
				second.LedgerType, second.DonationAmount, second.ServiceFee, second.RentRebate = "token_burn", 7, 11, 2_000_000
				second.Summary = ticket.TxSummary{DonationWallet: "donee", Treasury: "treasury"}
				res.Txs = append(res.Txs, second)
				return res, nil
			}
			built, err := f.service(func(d *Deps) { d.TicketTTL = ttl }).Build(context.Background(),
				buildOf(sel("empty", assets.TypeEmptyAccount, assets.ActionClose), sel("token", assets.TypeToken, assets.ActionBurn)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(built.Tickets, []string{"ticket token_account_closure", "ticket token_burn"}) || len(built.Txs) != 2 {
				t.Fatalf("tickets %v", built.Tickets)
			}
			if wantTTL := min(ttl, ticket.MaxTTL); issuedAt[0] != testNow || ttls[0] != wantTTL || ttls[1] != wantTTL {
				t.Errorf("issued at %v for %v, want %v for %v", issuedAt, ttls, testNow, wantTTL)
			}
			c, tx := f.issued[1], built.Txs[1]
			want := ticket.Claims{
				Project: "prj_test", Wallet: owner.String(), MessageHash: ticket.Hash(tx.MessageHash),
				Includes: []ticket.Item{{Type: "token", Address: key("token").String(), Action: "burn"}}, Type: "token_burn",
				GrossRebate: tx.GrossRebate, NetRebate: tx.NetRebate, DonationAmount: 7, NetworkFee: tx.NetworkFee, ServiceFee: 11, Fees: tx.Fees,
				LastValidBlockHeight: 1_000_150, Summary: ticket.TxSummary{DonationWallet: "donee", Treasury: "treasury"},
			}
			if c.RentRebate == nil || *c.RentRebate != 2_000_000 {
				t.Errorf("ticket states rent %v, want 2,000,000: the donation's base", c.RentRebate)
			}
			c.RentRebate = nil
			if fmt.Sprint(c) != fmt.Sprint(want) {
				t.Errorf("claims\n%+v, want\n%+v", c, want)
			}
		})
	}
}

// TestNewDefaults: zero settings get the documented defaults.
func TestNewDefaults(t *testing.T) {
	t.Parallel()
	d := New(Deps{}).d
	if d.RPCTimeout != 3*time.Second || d.DBTimeout != 5*time.Second || d.BuildTimeout != 20*time.Second || d.Now == nil || d.RPCInFlight != rpclimit.Default {
		t.Errorf("defaults %+v", d)
	}
}

// TestWithArticle: each type reads with the article a person says.
func TestWithArticle(t *testing.T) {
	t.Parallel()
	want := map[assets.ItemType]string{
		assets.TypeEmptyAccount: "an empty_account", assets.TypeToken: "a token", assets.TypeNFT: "an nft",
		assets.TypeFungibleAsset: "a fungible_asset", assets.TypeZKCompressedToken: "a zk_compressed_token", assets.TypeCNFT: "a cnft",
		assets.TypeExcessRent: "an excess_rent", assets.TypeProgramBuffer: "a program_buffer", assets.TypeNonceAccount: "a nonce_account",
		assets.TypeStakeAccount: "a stake_account", assets.TypeLookupTable: "a lookup_table", assets.TypeMint: "a mint",
	}
	for _, typ := range assets.ItemTypes() {
		if got := withArticle(typ); got != want[typ] {
			t.Errorf("%s: %q, want %q", typ, got, want[typ])
		}
	}
}

// A donation wallet the store holds that does not decode (a row edited by
// hand) fails the build with an error, not a panic on the request path, and
// nothing is asked of the chain.
func TestBuildStoredDonationWalletBroken(t *testing.T) {
	t.Parallel()
	f := newFakes()
	f.project = func(_ context.Context, id string) (project.Project, error) {
		return project.Project{ID: id, DonationWallet: "not-an-address"}, nil
	}
	_, err := f.service().Build(context.Background(), buildOf(sel("empty", assets.TypeEmptyAccount, assets.ActionClose)))
	if err == nil || !strings.Contains(err.Error(), "stored donation wallet") {
		t.Fatalf("got %v, want the stored donation wallet's error", err)
	}
	if _, ok := fault.As(err, fault.KindInvalid); ok {
		t.Errorf("the caller is blamed for the store's row: %v", err)
	}
	if n := f.called("Resolve", "Prefetch", "BuildWith"); n != 0 {
		t.Errorf("asked the chain %d times", n)
	}
}
