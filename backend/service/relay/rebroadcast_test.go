package relay_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// inFlight claims an entry in status with its signed bytes raw (nil: an
// entry claimed before bytes were kept), whose blockhash lives to lvbh.
func inFlight(t *testing.T, s *storagetest.Store, projectID string, sig solana.Signature, status ledger.Status, lvbh int64, raw []byte, at time.Time) {
	t.Helper()
	e := ledger.Entry{ProjectID: projectID, Payer: solana.NewWallet().PublicKey().String(), Type: ledger.TypeTokenAccountClosure,
		Signature: sig.String(), TicketJTI: "jti-" + sig.String()[:10], CreatedAt: at, LastValidBlockHeight: lvbh, Raw: raw}
	e.Promised = ledger.Figures{GrossRebate: 2_039_280, DonationAmount: 1000} // counted as promised (no recipient recorded)
	e.SetFigures(e.Promised)
	if err := s.ClaimTicket(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	if status != ledger.StatusSending {
		if _, err := s.MarkSubmitted(t.Context(), e.TicketJTI); err != nil {
			t.Fatal(err)
		}
	}
}

// recordingPath records what an extra send path receives; fail makes it
// fail every send.
type recordingPath struct {
	mu   sync.Mutex
	sent [][]byte
	opts []rpc.TransactionOpts
	fail bool
}

func (p *recordingPath) SendRawTransactionWithOpts(_ context.Context, raw []byte, opts rpc.TransactionOpts) (solana.Signature, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return solana.Signature{}, errors.New("connect: connection refused")
	}
	p.sent = append(p.sent, raw)
	p.opts = append(p.opts, opts)
	return solana.Signature{}, nil
}

func (p *recordingPath) count(raw []byte) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, s := range p.sent {
		if bytes.Equal(s, raw) {
			n++
		}
	}
	return n
}

// TestTrackerRebroadcasts: a pass sends again, the same bytes, without
// preflight and with maxRetries 0, to the cluster's RPC and every extra
// path, each submitted transaction the cluster does not know while its
// blockhash lives, once per RebroadcastInterval; never one the cluster has,
// one still being sent by its submit, one whose blockhash expires within
// the margin, or one already settled.
func TestTrackerRebroadcasts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const height = 1000
	cluster := &fakeCluster{height: height, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{}, landed: map[solana.Signature]landedTx{}}
	raws := map[string][]byte{}
	add := func(name string, status ledger.Status, lvbh int64, st *rpc.SignatureStatusesResult, keep bool) {
		sig := solana.Signature{byte(len(raws)), 7}
		raws[name] = []byte("signed bytes of " + name)
		var raw []byte
		if keep {
			raw = raws[name]
		}
		inFlight(t, f.store, f.project.ID, sig, status, lvbh, raw, f.now)
		if st != nil {
			cluster.statuses[sig] = st
		}
	}
	add("lost", ledger.StatusSubmitted, height+150, nil, true)
	add("lost too", ledger.StatusSubmitted, height+5, nil, true)
	add("processed", ledger.StatusSubmitted, height+150, &rpc.SignatureStatusesResult{ConfirmationStatus: rpc.ConfirmationStatusProcessed}, true)
	add("about to expire", ledger.StatusSubmitted, height+3, nil, true)
	add("expired", ledger.StatusSubmitted, height-1, nil, true)
	add("being sent", ledger.StatusSending, height+150, nil, true)
	add("stored without its bytes", ledger.StatusSubmitted, height+150, nil, false)

	path := &recordingPath{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := f.now.Truncate(time.Second)
	tr := relay.NewTracker(cluster, f.store, log, func() time.Time { return now })
	tr.Paths = relay.NewPaths(log, relay.Path{Name: "https://sender.example", RPC: path})
	passes(t, tr, 4, &now) // two rebroadcast intervals of passes
	sent := map[string]int{}
	for _, s := range cluster.sent {
		sent[string(s.raw)]++
		if !s.opts.SkipPreflight || s.opts.MaxRetries == nil || *s.opts.MaxRetries != 0 {
			t.Fatalf("rebroadcast with %+v, want skipPreflight and maxRetries 0", s.opts)
		}
	}
	for name, raw := range raws {
		want := 0
		if name == "lost" || name == "lost too" {
			want = 2
		}
		if sent[string(raw)] != want || path.count(raw) != want {
			t.Errorf("%s: sent %d times to the RPC, %d to the path; want %d", name, sent[string(raw)], path.count(raw), want)
		}
	}
	if c := tr.Counts(); c.Rebroadcasts != 4 || c.RebroadcastFailures != 0 || c.Expired != 1 {
		t.Fatalf("counts %+v", c)
	}

	tr.RebroadcastInterval = 0
	before := len(cluster.sent)
	if _, err := tr.Pass(context.Background()); err != nil || len(cluster.sent) != before {
		t.Fatalf("sent with rebroadcasting off: %d, %v", len(cluster.sent)-before, err)
	}
}

// TestFailingPathIsNotFatal: a send path that fails is logged by its name
// and counted; the RPC and the other paths still get every send.
func TestFailingPathIsNotFatal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	bad, good := &recordingPath{fail: true}, &recordingPath{}
	paths := relay.NewPaths(log, relay.Path{Name: "https://bad.example", RPC: bad}, relay.Path{Name: "https://good.example", RPC: good})
	f.relay.Paths = paths
	tx, tok := f.build(t)
	signed := sign(t, tx, f.wallet)
	if r := f.submit(t, signed, tok); r.Status != relay.StatusSubmitted {
		t.Fatalf("%+v", r)
	}
	f.relay.Wait()
	raw, _ := tx.MarshalBinary()
	if good.count(raw) != 1 || f.rpc.sends.Load() != 1 {
		t.Fatalf("good path %d, rpc %d", good.count(raw), f.rpc.sends.Load())
	}
	if o := good.opts[0]; !o.SkipPreflight || o.MaxRetries == nil || *o.MaxRetries != 0 {
		t.Fatalf("path got %+v", o)
	}
	if got := fmt.Sprint(paths.Failures()); got != "[1 0]" {
		t.Fatalf("failures %s", got)
	}
	if !strings.Contains(logs.String(), `msg="send path failed" path=https://bad.example failed=1`) {
		t.Fatalf("log: %s", logs.String())
	}

	// Refused by the cluster: no path gets it.
	f.rpc.send = func([]byte) error {
		return &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: Blockhash not found"}
	}
	tx2, tok2 := f.build(t)
	if r := f.submit(t, sign(t, tx2, f.wallet), tok2); r.Status != relay.StatusFailed {
		t.Fatalf("%+v", r)
	}
	f.relay.Wait()
	raw2, _ := tx2.MarshalBinary()
	if good.count(raw2) != 0 {
		t.Fatal("a path got a transaction the cluster did not take")
	}
}

// silentCluster knows no signature (every send is lost) and counts the
// sends of each transaction.
type silentCluster struct {
	fakeCluster
	mu    sync.Mutex
	sends map[string]int
}

func (c *silentCluster) SendRawTransactionWithOpts(_ context.Context, raw []byte, _ rpc.TransactionOpts) (solana.Signature, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sends[string(raw)]++
	return solana.Signature{}, nil
}

// TestTrackersShareTheRebroadcasts: trackers of several instances on one
// ledger send each transaction once per interval between them, never each.
func TestTrackersShareTheRebroadcasts(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		const entries, slots = 40, 8
		clk := clocktest.New(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
		p := submitted(t, s, 0, clk.Now())
		for i := range entries {
			inFlight(t, s, p.ID, solana.Signature{byte(i), 9}, ledger.StatusSubmitted, 100_000, []byte(fmt.Sprint("tx ", i)), clk.Now())
		}
		cluster := &silentCluster{fakeCluster: fakeCluster{height: 1000}, sends: map[string]int{}}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		trackers := []*relay.Tracker{relay.NewTracker(cluster, s, log, clk.Now), relay.NewTracker(cluster, s, log, clk.Now)}
		var ran [2]atomic.Int32
		for range slots {
			clk.Advance(time.Second)
			var wg sync.WaitGroup
			for i, tr := range trackers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok, err := tr.Tick(t.Context())
					if err != nil {
						t.Error(err)
					}
					if ok {
						ran[i].Add(1)
					}
				}()
			}
			wg.Wait()
		}
		if ran[0].Load()+ran[1].Load() != slots {
			t.Fatalf("passes run: %d and %d, want %d in all", ran[0].Load(), ran[1].Load(), slots)
		}
		for i := range entries {
			if n := cluster.sends[fmt.Sprint("tx ", i)]; n != slots/2 {
				t.Fatalf("tx %d sent %d times in %d passes, want %d", i, n, slots, slots/2)
			}
		}
	})
}

// TestTrackerAdoptsAnOrphanedClaim (issue 31): a claim left sending by an
// instance that died mid-send holds the signed bytes, which may have
// reached the node. Once SendGrace has passed (its submit can no longer be
// running) the tracker adopts it without any retry from the client: marks
// it submitted and sends it again until it lands, as any submitted
// transaction; a claim still within the grace is left to its submit.
func TestTrackerAdoptsAnOrphanedClaim(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const height = 1000
	cluster := &fakeCluster{height: height, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{}, landed: map[solana.Signature]landedTx{}}
	orphanSig, freshSig := solana.Signature{1, 9}, solana.Signature{2, 9}
	orphanRaw, freshRaw := []byte("signed bytes of the orphan"), []byte("signed bytes of a claim being sent")
	now := f.now.Truncate(time.Second)
	inFlight(t, f.store, f.project.ID, orphanSig, ledger.StatusSending, height+150, orphanRaw, now.Add(-relay.SendGrace))
	inFlight(t, f.store, f.project.ID, freshSig, ledger.StatusSending, height+150, freshRaw, now.Add(-relay.SendGrace+5*time.Second))
	tr := relay.NewTracker(cluster, f.store, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return now })
	passes(t, tr, 2, &now) // one rebroadcast interval of passes
	sent := map[string]int{}
	for _, s := range cluster.sent {
		sent[string(s.raw)]++
	}
	if sent[string(orphanRaw)] != 1 || sent[string(freshRaw)] != 0 {
		t.Fatalf("sent the orphan %d times, the claim being sent %d; want 1 and 0", sent[string(orphanRaw)], sent[string(freshRaw)])
	}
	for sig, want := range map[solana.Signature]ledger.Status{orphanSig: ledger.StatusSubmitted, freshSig: ledger.StatusSending} {
		if e, err := f.store.EntryBySignature(context.Background(), sig.String()); err != nil || e.Status != want {
			t.Fatalf("%s: %q %v, want %q", sig, e.Status, err, want)
		}
	}
}

// passes runs n passes of tr, one Interval of the clock now apart.
func passes(t *testing.T, tr *relay.Tracker, n int, now *time.Time) {
	t.Helper()
	for range n {
		if _, err := tr.Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		*now = now.Add(tr.Interval)
	}
}
