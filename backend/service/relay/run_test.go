package relay_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// claimSubmitted puts one submitted entry in flight, claimed at f.now.
func claimSubmitted(t *testing.T, f *fixture, sig solana.Signature) {
	t.Helper()
	ctx := context.Background()
	e := ledger.Entry{ProjectID: f.project.ID, Payer: f.wallet.PublicKey().String(), Type: ledger.TypeTokenBurn,
		Signature: sig.String(), TicketJTI: "jti-" + sig.String()[:8], CreatedAt: f.now, LastValidBlockHeight: 100}
	// A donation promised without its recipient recorded (an entry claimed
	// before recipients were): once landed, its promise is counted as is.
	e.Promised = ledger.Figures{GrossRebate: 2_039_280, DonationAmount: 1000}
	e.SetFigures(e.Promised)
	if err := f.store.ClaimTicket(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.MarkSubmitted(ctx, e.TicketJTI); err != nil {
		t.Fatal(err)
	}
}

// The tracker tells a hook how long each confirmation took from its claim.
func TestTrackerObservesConfirmationLag(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sig := solana.Signature{9}
	claimSubmitted(t, f, sig)
	cluster := &fakeCluster{height: 50, landed: map[solana.Signature]landedTx{},
		statuses: map[solana.Signature]*rpc.SignatureStatusesResult{sig: {ConfirmationStatus: rpc.ConfirmationStatusFinalized}}}
	now := f.now.Add(17 * time.Second)
	tr := relay.NewTracker(cluster, f.store, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return now })
	var lags []time.Duration
	tr.ObserveConfirmations(func(d time.Duration) { lags = append(lags, d) })
	if moved, err := tr.Pass(context.Background()); err != nil || moved != 1 {
		t.Fatalf("moved %d %v", moved, err)
	}
	if len(lags) != 1 || lags[0] != 17*time.Second {
		t.Fatalf("lags %v", lags)
	}
}

// heldCluster holds getBlockHeight until released, and records whether the
// pass's next call still had a live context.
type heldCluster struct {
	fakeCluster
	started, release chan struct{}
	statusCtxErr     chan error
}

func (h *heldCluster) GetBlockHeight(ctx context.Context, c rpc.CommitmentType) (uint64, error) {
	h.started <- struct{}{}
	<-h.release
	return h.fakeCluster.GetBlockHeight(ctx, c)
}

func (h *heldCluster) GetSignatureStatuses(ctx context.Context, search bool, sigs ...solana.Signature) (*rpc.GetSignatureStatusesResult, error) {
	h.statusCtxErr <- ctx.Err()
	return h.fakeCluster.GetSignatureStatuses(ctx, search, sigs...)
}

// Run stops between passes: a pass under way when its context ends runs to
// its end, then Run returns.
func TestTrackerStopsBetweenPasses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	claimSubmitted(t, f, solana.Signature{7})
	cluster := &heldCluster{
		fakeCluster: fakeCluster{height: 50, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{}},
		started:     make(chan struct{}), release: make(chan struct{}), statusCtxErr: make(chan error, 1),
	}
	tr := relay.NewTracker(cluster, f.store, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return f.now })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		tr.Run(ctx)
		close(done)
	}()
	<-cluster.started // a pass is under way
	cancel()
	close(cluster.release)
	if err := <-cluster.statusCtxErr; err != nil {
		t.Fatalf("the pass under way was cut short: %v", err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its pass")
	}
}
