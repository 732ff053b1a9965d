package relay_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// countingCluster answers every signature as confirmed (so its entry stays
// in flight), or finalized once final is set, and counts the calls by
// method. With hold set, getSignatureStatuses signals held and waits for
// hold to close: a tracker stuck mid-pass, as a dead instance's is.
type countingCluster struct {
	final atomic.Bool
	mu    sync.Mutex
	calls map[string]int
	hold  chan struct{}
	held  chan struct{}
}

func newCountingCluster() *countingCluster {
	return &countingCluster{calls: map[string]int{}}
}

func (c *countingCluster) count(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[method]++
}

// take returns the calls counted so far and starts again.
func (c *countingCluster) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = map[string]int{}
	return out
}

func (c *countingCluster) GetSignatureStatuses(ctx context.Context, _ bool, sigs ...solana.Signature) (*rpc.GetSignatureStatusesResult, error) {
	c.count("getSignatureStatuses")
	if c.hold != nil {
		close(c.held)
		select {
		case <-c.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	st := rpc.ConfirmationStatusConfirmed
	if c.final.Load() {
		st = rpc.ConfirmationStatusFinalized
	}
	out := &rpc.GetSignatureStatusesResult{}
	for range sigs {
		out.Value = append(out.Value, &rpc.SignatureStatusesResult{ConfirmationStatus: st})
	}
	return out, nil
}

func (c *countingCluster) SendRawTransactionWithOpts(context.Context, []byte, rpc.TransactionOpts) (solana.Signature, error) {
	c.count("sendTransaction")
	return solana.Signature{}, nil
}

func (c *countingCluster) GetBlockHeight(context.Context, rpc.CommitmentType) (uint64, error) {
	c.count("getBlockHeight")
	return 100, nil
}

func (c *countingCluster) GetTransaction(context.Context, solana.Signature, *rpc.GetTransactionOpts) (*rpc.GetTransactionResult, error) {
	c.count("getTransaction")
	return nil, errors.New("not expected: these entries are confirmed with their promise")
}

// submitted records n submitted entries in s, in flight until the cluster
// finalizes them. Their promise has a donation but no recipient recorded,
// so confirming one needs no getTransaction.
func submitted(t *testing.T, s *storagetest.Store, n int, at time.Time) project.Project {
	t.Helper()
	ctx := t.Context()
	p, err := s.CreateProject(ctx, project.Project{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		var sig solana.Signature
		sig[0], sig[1] = byte(i), byte(i>>8)
		e := ledger.Entry{ProjectID: p.ID, Payer: solana.NewWallet().PublicKey().String(), Type: ledger.TypeTokenAccountClosure,
			GrossRebate: 2_039_280, NetRebate: 1_830_352, DonationAmount: 203_928, NetworkFee: 5_000, Fees: 5_000, ItemCount: 1,
			Signature: sig.String(), TicketJTI: fmt.Sprintf("jti-%d", i), CreatedAt: at, LastValidBlockHeight: 1_000}
		if err := s.ClaimTicket(ctx, e); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MarkSubmitted(ctx, e.TicketJTI); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestTrackersShareTheWork runs one, two and three trackers on one ledger
// against one cluster: per interval, one pass runs, so the cluster sees the
// same calls whatever the number of trackers, and every entry is counted
// once.
func TestTrackersShareTheWork(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		const entries, slots = 300, 10 // two getSignatureStatuses batches per pass
		clk := clocktest.New(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
		p := submitted(t, s, entries, clk.Now())
		cluster := newCountingCluster()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		var trackers []*relay.Tracker
		for range 3 {
			trackers = append(trackers, relay.NewTracker(cluster, s, log, clk.Now))
		}
		// tick advances the clock one interval and has the first n trackers
		// tick at once; it returns how many ran a pass.
		tick := func(n int) int {
			clk.Advance(trackers[0].Interval)
			var wg sync.WaitGroup
			var ran atomic.Int32
			for _, tr := range trackers[:n] {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok, err := tr.Tick(t.Context())
					if err != nil {
						t.Error(err)
					}
					if ok {
						ran.Add(1)
					}
				}()
			}
			wg.Wait()
			return int(ran.Load())
		}
		want := map[string]int{"getBlockHeight": slots, "getSignatureStatuses": 2 * slots}
		for n := 1; n <= 3; n++ {
			for range slots {
				if ran := tick(n); ran != 1 {
					t.Fatalf("%d trackers: %d ran the pass", n, ran)
				}
			}
			if got := cluster.take(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%d trackers called %v in %d intervals, want %v", n, got, slots, want)
			}
		}
		cluster.final.Store(true)
		tick(3)
		cluster.take()
		var confirmed uint64
		for _, tr := range trackers {
			confirmed += tr.Counts().Confirmed
		}
		if confirmed != entries {
			t.Fatalf("trackers confirmed %d, want %d", confirmed, entries)
		}
		st, err := s.Stats(t.Context(), p.ID)
		if err != nil || st.TotalTransactionCount != entries {
			t.Fatalf("stats %+v %v", st, err)
		}
		if tick(3); len(cluster.take()) != 0 {
			t.Fatal("trackers called the cluster with nothing in flight")
		}
	})
}

// TestTrackerLeaseOutlivesADeadInstance leaves a tracker stuck mid-pass, as
// an instance that died there: another follows its entries once its lease
// ends, not before, and each is counted once.
func TestTrackerLeaseOutlivesADeadInstance(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		const entries = 5
		clk := clocktest.New(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
		p := submitted(t, s, entries, clk.Now())
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		stuck := newCountingCluster()
		stuck.hold, stuck.held = make(chan struct{}), make(chan struct{})
		stuck.final.Store(true)
		dead := relay.NewTracker(stuck, s, log, clk.Now)
		done := make(chan error, 1)
		go func() {
			_, err := dead.Pass(context.Background())
			done <- err
		}()
		<-stuck.held

		live := newCountingCluster()
		live.final.Store(true)
		other := relay.NewTracker(live, s, log, clk.Now)
		clk.Advance(other.Lease - time.Millisecond)
		if moved, err := other.Pass(t.Context()); err != nil || moved != 0 || len(live.take()) != 0 {
			t.Fatalf("within the lease: moved %d %v", moved, err)
		}
		clk.Advance(time.Millisecond)
		if moved, err := other.Pass(t.Context()); err != nil || moved != entries {
			t.Fatalf("past the lease: moved %d %v", moved, err)
		}

		close(stuck.hold)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if dead.Counts().Confirmed != 0 || other.Counts().Confirmed != entries {
			t.Fatalf("confirmed: dead %d, other %d", dead.Counts().Confirmed, other.Counts().Confirmed)
		}
		st, err := s.Stats(t.Context(), p.ID)
		if err != nil || st.TotalTransactionCount != entries {
			t.Fatalf("stats %+v %v", st, err)
		}
	})
}
