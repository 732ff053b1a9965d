package relay_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// submitted submits a new transaction of f's wallet and returns its
// signature and ticket jti.
func (f *fixture) submitted(t *testing.T) (string, string) {
	t.Helper()
	tx, tok := f.build(t)
	if r := f.submit(t, sign(t, tx, f.wallet), tok); r.Status != relay.StatusSubmitted {
		t.Fatalf("submit %+v", r)
	}
	return tx.Signatures[0].String(), mustJTI(t, f, tok)
}

// TestSubmissionsStates: each signature asked gets its entry's state in
// the order asked: submitted, confirmed with the slot and what the chain
// did, failed and expired with the entry's failure, and unknown for a
// signature never submitted, or submitted by another wallet or to another
// project.
func TestSubmissionsStates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	inFlight, _ := f.submitted(t)
	confirmed, cj := f.submitted(t)
	failed, fj := f.submitted(t)
	expired, ej := f.submitted(t)
	landed := ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_024_280, NetworkFee: 15_000}
	if _, err := f.store.ConfirmEntry(context.Background(), cj, landed, 777, f.now); err != nil {
		t.Fatal(err)
	}
	mustSettle(f, fj, ledger.StatusFailed, "map[InstructionError:[0 map[Custom:1]]]")
	mustSettle(f, ej, ledger.StatusExpired, "the blockhash expired before the transaction landed")
	never := solana.Signature{9}.String()
	sigs := []string{never, expired, confirmed, inFlight, failed, confirmed}
	got, err := f.relay.Submissions(context.Background(), f.project.ID, f.wallet.PublicKey().String(), sigs, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []relay.State{relay.StateUnknown, relay.StateExpired, relay.StateConfirmed, relay.StateSubmitted, relay.StateFailed, relay.StateConfirmed}
	for i, s := range got {
		if s.Signature != sigs[i] || s.State != want[i] {
			t.Fatalf("%d: %+v, want %s of %s", i, s, want[i], sigs[i])
		}
		if known := s.State != relay.StateUnknown; known != (len(s.Includes) == 1) {
			t.Fatalf("%d: includes %+v", i, s.Includes)
		}
	}
	if c := got[2]; c.Slot != 777 || c.Landed != landed || !c.ConfirmedAt.Equal(f.now) || c.Code != "" {
		t.Fatalf("confirmed %+v", c)
	}
	if e := got[1]; e.Code != relay.CodeTicketExpired || e.Message == "" {
		t.Fatalf("expired %+v", e)
	}
	if e := got[4]; e.Code != relay.CodeTransactionFailed || e.Message == "" {
		t.Fatalf("failed %+v", e)
	}
	if s := got[3]; s.Code != "" || s.Slot != 0 || !s.ConfirmedAt.IsZero() {
		t.Fatalf("submitted %+v", s)
	}
	for name, ask := range map[string][2]string{
		"another wallet":  {f.project.ID, solana.NewWallet().PublicKey().String()},
		"another project": {"prj_other", f.wallet.PublicKey().String()},
	} {
		got, err := f.relay.Submissions(context.Background(), ask[0], ask[1], []string{confirmed}, 0)
		if err != nil || got[0].State != relay.StateUnknown || got[0].Includes != nil {
			t.Fatalf("%s: %+v %v", name, got, err)
		}
	}
}

// readSignal is the ledger, telling each read of the status route.
type readSignal struct {
	*storagetest.Store
	reads chan struct{}
}

func (r readSignal) Submissions(ctx context.Context, projectID, payer string, sigs []string) ([]ledger.Entry, error) {
	defer func() { r.reads <- struct{}{} }()
	return r.Store.Submissions(ctx, projectID, payer, sigs)
}

// TestSubmissionsWait: a wait answers as soon as every submission is final
// (the entry confirmed after the first read: answered at the next read,
// long before the wait ends), at its end when one is still in flight, at
// once when every one is final already (unknown included), and with the
// last read when the request ends first.
func TestSubmissionsWait(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sig, jti := f.submitted(t)
	reads := make(chan struct{}, 100)
	// The relay's clock runs as the machine's, from the fixture's time: a
	// wait is timed by it, and this test times real waits.
	started := time.Now()
	r := relay.New(f.rpc, readSignal{f.store, reads}, f.issuer, func() time.Time { return f.now.Add(time.Since(started)) })
	wallet := f.wallet.PublicKey().String()
	never := solana.Signature{9}.String()

	type answer struct {
		subs []relay.Submission
		err  error
		took time.Duration
	}
	ask := func(ctx context.Context, wait time.Duration, sigs ...string) chan answer {
		out := make(chan answer, 1)
		go func() {
			start := time.Now()
			subs, err := r.Submissions(ctx, f.project.ID, wallet, sigs, wait)
			out <- answer{subs, err, time.Since(start)}
		}()
		return out
	}

	pending := ask(context.Background(), 30*time.Second, sig, never)
	<-reads
	mustSettle(f, jti, ledger.StatusConfirmed, "")
	a := <-pending
	if a.err != nil || a.subs[0].State != relay.StateConfirmed || a.subs[1].State != relay.StateUnknown || a.took > 10*time.Second {
		t.Fatalf("confirmed during the wait: %+v after %s", a, a.took)
	}
	drain(reads)

	second, _ := f.submitted(t)
	a = <-ask(context.Background(), time.Second, second)
	if a.err != nil || a.subs[0].State != relay.StateSubmitted || a.took < time.Second {
		t.Fatalf("in flight through a wait of 1 s: %+v after %s", a, a.took)
	}
	drain(reads)

	a = <-ask(context.Background(), 30*time.Second, sig, never)
	if n := drain(reads); a.err != nil || n != 1 || a.took > 10*time.Second {
		t.Fatalf("final at once: %+v after %s, %d reads", a, a.took, n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	pending = ask(ctx, 30*time.Second, second)
	<-reads
	cancel()
	if a = <-pending; a.err != nil || a.subs[0].State != relay.StateSubmitted || a.took > 10*time.Second {
		t.Fatalf("request ended: %+v after %s", a, a.took)
	}
}

// drain counts the reads signalled so far.
func drain(reads chan struct{}) int {
	n := 0
	for {
		select {
		case <-reads:
			n++
		default:
			return n
		}
	}
}

// TestSubmissionsWaitEndsAtLanded: a wait answers as soon as the entry is
// landed (at the next read after the tracker found it at confirmed
// commitment), with its slot and landed figures, not at finalized.
func TestSubmissionsWaitEndsAtLanded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sig, jti := f.submitted(t)
	reads := make(chan struct{}, 100)
	r := relay.New(f.rpc, readSignal{f.store, reads}, f.issuer, func() time.Time { return f.now })
	type answer struct {
		subs []relay.Submission
		err  error
	}
	out := make(chan answer, 1)
	go func() {
		subs, err := r.Submissions(context.Background(), f.project.ID, f.wallet.PublicKey().String(), []string{sig}, 30*time.Second)
		out <- answer{subs, err}
	}()
	<-reads
	landed := ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5_000}
	if changed, err := f.store.LandEntry(context.Background(), jti, landed, 4321, f.now); err != nil || !changed {
		t.Fatalf("land: %v %v", changed, err)
	}
	a := <-out
	if a.err != nil || a.subs[0].State != relay.StateLanded || a.subs[0].Slot != 4321 || a.subs[0].Landed != landed ||
		!a.subs[0].ConfirmedAt.IsZero() || a.subs[0].State.Final() {
		t.Fatalf("landed during the wait: %+v", a)
	}
	if n := drain(reads); n != 1 {
		t.Fatalf("%d reads after the first, want 1", n)
	}
	// A wait until final goes on past landed, and ends at confirmed.
	go func() {
		subs, err := r.SubmissionsUntil(context.Background(), f.project.ID, f.wallet.PublicKey().String(), []string{sig}, 30*time.Second, true)
		out <- answer{subs, err}
	}()
	<-reads
	<-reads // landed at two reads: still waiting
	mustSettle(f, jti, ledger.StatusConfirmed, "")
	if a = <-out; a.err != nil || a.subs[0].State != relay.StateConfirmed {
		t.Fatalf("confirmed during a wait until final: %+v", a)
	}
}

// TestSubmissionsWaitWakesOnChange: a waiting request whose poll is an
// hour away reads the ledger again as soon as the tracker says it moved
// entries (Changed), and answers landed.
func TestSubmissionsWaitWakesOnChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sig, jti := f.submitted(t)
	reads := make(chan struct{}, 100)
	r := relay.New(f.rpc, readSignal{f.store, reads}, f.issuer, func() time.Time { return f.now })
	relay.SetStatusPoll(r, time.Hour)
	out := make(chan relay.Submission, 1)
	go func() {
		subs, err := r.Submissions(context.Background(), f.project.ID, f.wallet.PublicKey().String(), []string{sig}, 30*time.Second)
		if err != nil {
			t.Error(err)
		}
		out <- subs[0]
	}()
	<-reads
	if _, err := f.store.LandEntry(context.Background(), jti, ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5_000}, 9, f.now); err != nil {
		t.Fatal(err)
	}
	r.Changed()
	if got := <-out; got.State != relay.StateLanded {
		t.Fatalf("woken: %+v", got)
	}
}

// TestSubmissionsWaitTimedByTheRelaysClock: a status request's wait runs on
// the clock the relay is given, as its other times: it ends when that
// clock passes it, however little time the machine's clock saw, and goes on
// while that clock stands still, however much it saw.
func TestSubmissionsWaitTimedByTheRelaysClock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sig, _ := f.submitted(t)
	wallet := f.wallet.PublicKey().String()
	clock := clocktest.New(f.now)

	// An hour by the relay's clock ends when that clock moves an hour.
	reads := &countedReads{Store: f.store, at: 1, reached: make(chan struct{})}
	r := relay.New(f.rpc, reads, f.issuer, clock.Now)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan []relay.Submission, 1)
	go func() {
		subs, err := r.Submissions(ctx, f.project.ID, wallet, []string{sig}, time.Hour)
		if err != nil {
			t.Error(err)
		}
		out <- subs
	}()
	<-reads.reached
	clock.Advance(time.Hour)
	r.Changed() // read again now rather than at the next StatusPoll
	select {
	case subs := <-out:
		if subs[0].State != relay.StateSubmitted {
			t.Errorf("%+v, want submitted at the wait's end", subs[0])
		}
	case <-time.After(30 * time.Second):
		cancel()
		<-out
		t.Fatal("the wait went on after the relay's clock passed its hour")
	}

	// A millisecond by the relay's clock, which stands still, is not over
	// after 20 reads, polled every millisecond of the machine's.
	reads = &countedReads{Store: f.store, at: 20, reached: make(chan struct{})}
	r = relay.New(f.rpc, reads, f.issuer, clock.Now)
	relay.SetStatusPoll(r, time.Millisecond)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go func() {
		subs, err := r.Submissions(ctx, f.project.ID, wallet, []string{sig}, time.Millisecond)
		if err != nil {
			t.Error(err)
		}
		out <- subs
	}()
	select {
	case <-reads.reached:
	case subs := <-out:
		t.Fatalf("the wait ended after %d reads (%+v) while the relay's clock stood still", reads.n.Load(), subs)
	}
	cancel()
	if subs := <-out; subs[0].State != relay.StateSubmitted {
		t.Errorf("%+v, want submitted when the request ends", subs[0])
	}
}

// countedReads counts the status reads of a store and closes reached at
// the at-th.
type countedReads struct {
	*storagetest.Store
	n       atomic.Int64
	at      int64
	reached chan struct{}
}

func (c *countedReads) Submissions(ctx context.Context, projectID, payer string, sigs []string) ([]ledger.Entry, error) {
	defer func() {
		if c.n.Add(1) == c.at {
			close(c.reached)
		}
	}()
	return c.Store.Submissions(ctx, projectID, payer, sigs)
}
