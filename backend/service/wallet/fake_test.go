package wallet

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// The fakes are hand-written: each method records its call and calls its
// func field. newFakes gives them the answers of a healthy world: the
// wallet's items on chain are world's, the builder packs every item in one
// transaction, tickets are numbered, the relay submits everything.
type fakes struct {
	mu    sync.Mutex
	calls map[string]int
	world map[solana.PublicKey]assets.Item

	list    func(ctx context.Context, wallet solana.PublicKey) (assets.Listing, error)
	stream  func(ctx context.Context, wallet solana.PublicKey, opts assets.StreamOptions, emit func([]assets.Item, bool) error) error
	resolve func(ctx context.Context, wallet solana.PublicKey, addrs []solana.PublicKey) ([]assets.Item, error)

	prefetched []prefetch
	build      func(ctx context.Context, p txbuild.Params) (txbuild.Result, error)
	cnfts      bool

	issue  func(c ticket.Claims, now time.Time, ttl time.Duration) (string, ticket.Claims, error)
	issued []ticket.Claims

	submit func(ctx context.Context, projectID string, wallet solana.PublicKey, entries []relay.Signed) ([]relay.Result, error)
	// submissions answers every signature unknown unless a test sets it.
	submissions func(ctx context.Context, projectID, wallet string, sigs []string, wait time.Duration) ([]relay.Submission, error)

	project func(ctx context.Context, id string) (project.Project, error)
}

// prefetch is one call of Prefetch: the params (without items) and the
// accounts the build will write.
type prefetch struct {
	params  txbuild.Params
	written []solana.PublicKey
}

func newFakes() *fakes {
	f := &fakes{calls: map[string]int{}, world: map[solana.PublicKey]assets.Item{}, cnfts: true}
	for _, it := range []assets.Item{
		chainItem("empty", assets.TypeEmptyAccount, assets.ActionClose),
		chainItem("token", assets.TypeToken, assets.ActionBurn),
		chainItem("nft", assets.TypeNFT, assets.ActionBurn),
		chainItem("frozen", assets.TypeToken),
		chainItem("wrapped", assets.TypeToken, assets.ActionClose),
		chainItem("delegated", assets.TypeEmptyAccount),
		chainItem("stuck", assets.TypeEmptyAccount),
	} {
		f.world[it.Address] = it
	}
	frozen, delegated := f.world[key("frozen")], f.world[key("delegated")]
	frozen.IsFrozen, delegated.HasCloseAuthority = true, true
	f.world[frozen.Address], f.world[delegated.Address] = frozen, delegated
	f.list = func(context.Context, solana.PublicKey) (assets.Listing, error) {
		return assets.Listing{}, errors.New("fakes: no listing")
	}
	f.stream = func(context.Context, solana.PublicKey, assets.StreamOptions, func([]assets.Item, bool) error) error {
		return errors.New("fakes: no stream")
	}
	f.resolve = func(_ context.Context, _ solana.PublicKey, addrs []solana.PublicKey) ([]assets.Item, error) {
		out := make([]assets.Item, len(addrs))
		for i, a := range addrs {
			it, ok := f.world[a]
			if !ok {
				return nil, &assets.ItemError{Address: a.String(), Index: i, Reason: "account not found"}
			}
			out[i] = it
		}
		return out, nil
	}
	f.build = func(_ context.Context, p txbuild.Params) (txbuild.Result, error) {
		return oneTx(p), nil
	}
	f.issue = func(c ticket.Claims, _ time.Time, _ time.Duration) (string, ticket.Claims, error) {
		return fmt.Sprintf("ticket-%d", len(f.issued)), c, nil
	}
	f.submit = func(_ context.Context, _ string, _ solana.PublicKey, entries []relay.Signed) ([]relay.Result, error) {
		out := make([]relay.Result, len(entries))
		for i := range entries {
			out[i] = relay.Result{Status: relay.StatusSubmitted, Signature: fmt.Sprintf("sig-%d", i)}
		}
		return out, nil
	}
	f.project = func(_ context.Context, id string) (project.Project, error) {
		return project.Project{ID: id, DonationWallet: key("donee").String()}, nil
	}
	return f
}

// service is the wallet service over f, with timeouts no test reaches
// unless it asks; edit changes its Deps.
func (f *fakes) service(edit ...func(*Deps)) *Service {
	d := Deps{
		Discoverer: fakeDiscoverer{f}, Builder: fakeBuilder{f}, Tickets: fakeTickets{f}, Relay: fakeRelay{f}, Projects: fakeProjects{f},
		TicketTTL: 30 * time.Second, RPCTimeout: time.Hour, DBTimeout: time.Hour, BuildTimeout: time.Hour,
		Now: func() time.Time { return testNow },
	}
	for _, e := range edit {
		e(&d)
	}
	return New(d)
}

// count records a call and locks f until the returned func runs, so that
// the func fields and the tests' closures run one at a time.
func (f *fakes) count(name string) func() {
	f.mu.Lock()
	f.calls[name]++
	return f.mu.Unlock
}

// called returns how many times each named method ran.
func (f *fakes) called(names ...string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, name := range names {
		n += f.calls[name]
	}
	return n
}

type fakeDiscoverer struct{ f *fakes }

func (d fakeDiscoverer) List(ctx context.Context, wallet solana.PublicKey) (assets.Listing, error) {
	defer d.f.count("List")()
	return d.f.list(ctx, wallet)
}

func (d fakeDiscoverer) Stream(ctx context.Context, wallet solana.PublicKey, opts assets.StreamOptions, emit func([]assets.Item, bool) error) error {
	d.f.count("Stream")() // unlocked at once: emit runs the test's code
	return d.f.stream(ctx, wallet, opts, emit)
}

func (d fakeDiscoverer) ResolveAs(ctx context.Context, wallet solana.PublicKey, addrs []solana.PublicKey, _ []assets.ItemType) ([]assets.Item, error) {
	defer d.f.count("Resolve")()
	return d.f.resolve(ctx, wallet, addrs)
}

type fakeBuilder struct{ f *fakes }

func (b fakeBuilder) Prefetch(_ context.Context, p txbuild.Params, written []solana.PublicKey) *txbuild.Prefetch {
	defer b.f.count("Prefetch")()
	b.f.prefetched = append(b.f.prefetched, prefetch{params: p, written: written})
	return nil
}

func (b fakeBuilder) BuildWith(ctx context.Context, p txbuild.Params, _ *txbuild.Prefetch) (txbuild.Result, error) {
	defer b.f.count("BuildWith")()
	return b.f.build(ctx, p)
}

func (b fakeBuilder) BurnsCNFTs() bool { return b.f.cnfts }

type fakeTickets struct{ f *fakes }

func (t fakeTickets) Issue(c ticket.Claims, now time.Time, ttl time.Duration) (string, ticket.Claims, error) {
	defer t.f.count("Issue")()
	tok, out, err := t.f.issue(c, now, ttl)
	if err == nil {
		t.f.issued = append(t.f.issued, c)
	}
	return tok, out, err
}

type fakeRelay struct{ f *fakes }

func (r fakeRelay) Submit(ctx context.Context, projectID string, wallet solana.PublicKey, entries []relay.Signed) ([]relay.Result, error) {
	defer r.f.count("Submit")()
	return r.f.submit(ctx, projectID, wallet, entries)
}

func (r fakeRelay) SubmissionsUntil(ctx context.Context, projectID, wallet string, sigs []string, wait time.Duration, _ bool) ([]relay.Submission, error) {
	defer r.f.count("Submissions")()
	if r.f.submissions != nil {
		return r.f.submissions(ctx, projectID, wallet, sigs, wait)
	}
	out := make([]relay.Submission, len(sigs))
	for i, sig := range sigs {
		out[i] = relay.Submission{Signature: sig, State: relay.StateUnknown}
	}
	return out, nil
}

type fakeProjects struct{ f *fakes }

func (p fakeProjects) GetProject(ctx context.Context, id string) (project.Project, error) {
	defer p.f.count("GetProject")()
	return p.f.project(ctx, id)
}

// testNow is the service's clock in the tests.
var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// key is a fixed address named after label.
func key(label string) solana.PublicKey {
	sum := sha256.Sum256([]byte(label))
	return solana.PublicKeyFromBytes(sum[:])
}

// signerKey is a fixed wallet named after label: an Ed25519 key, so it can
// sign.
func signerKey(label string) solana.PublicKey {
	seed := sha256.Sum256([]byte("wallet " + label))
	return solana.PublicKeyFromBytes(ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey))
}

// owner is the wallet of the tests.
var owner = signerKey("owner")

// chainItem is an item of owner as discovery reads it, taking actions.
func chainItem(label string, t assets.ItemType, actions ...assets.Action) assets.Item {
	return assets.Item{Type: t, Address: key(label), Owner: owner, Lamports: 2_039_280, Rent: 2_039_280, Actions: actions}
}

// sel selects the item named label.
func sel(label string, t assets.ItemType, a assets.Action) Selection {
	return SelectionOf(t, key(label).String(), a)
}

// oneTx is a build of p's items in one transaction, its money made up.
func oneTx(p txbuild.Params) txbuild.Result {
	var gross uint64
	for _, s := range p.Items {
		gross += s.Item.Lamports
	}
	tx := txbuild.Tx{
		Base64: "AQID", Includes: p.Items, LedgerType: "token_account_closure", MessageHash: sha256.Sum256([]byte("message")),
		GrossRebate: gross, NetworkFee: 5_000, Fees: 5_000, NetRebate: int64(gross) - 5_000,
	}
	return txbuild.Result{Txs: []txbuild.Tx{tx}, Blockhash: solana.Hash(key("blockhash")), LastValidBlockHeight: 1_000_150}
}

// wantInvalid fails t unless err is an invalid fault naming param whose
// message is want, or contains it when want ends with "…" (less the "…").
func wantInvalid(t *testing.T, err error, param, want string) {
	t.Helper()
	ie, ok := fault.As(err, fault.KindInvalid)
	if !ok {
		t.Fatalf("err = %T %v, want an invalid fault naming %s", err, err, param)
	}
	prefix, partial := strings.CutSuffix(want, "…")
	if ie.Param() != param || (partial && !strings.Contains(ie.Error(), prefix)) || (!partial && ie.Error() != want) {
		t.Fatalf("err = %q (param %q), want %q (param %q)", ie.Error(), ie.Param(), want, param)
	}
}

// wantUnavailable fails t unless err is an unavailable fault saying want,
// with a cause.
func wantUnavailable(t *testing.T, err error, want string) {
	t.Helper()
	ue, ok := fault.As(err, fault.KindUnavailable)
	if !ok || ue.Cause() == nil || !strings.Contains(ue.Error(), want) {
		t.Fatalf("err = %T %v, want an unavailable fault saying %q, with its cause", err, err, want)
	}
}
