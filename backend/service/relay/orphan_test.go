package relay_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// orphan has a first submit claim the fixture's transaction and stop in its
// send, as an instance killed there would; it returns the signed
// transaction, its ticket, and a function that lets the stopped send end.
func orphan(t *testing.T, f *fixture, second func(raw []byte) error) (signed, tok string, end func()) {
	t.Helper()
	tx, tok := f.build(t)
	signed = sign(t, tx, f.wallet)
	started, stopped := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.rpc.send = func(raw []byte) error {
		first := false
		once.Do(func() { first = true })
		if !first {
			return second(raw)
		}
		close(started)
		<-stopped
		return errors.New("the instance died")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = f.relay.Submit(context.Background(), f.project.ID, f.wallet.PublicKey().String(), []relay.Signed{{TransactionBase64: signed, Ticket: tok}})
	}()
	<-started
	return signed, tok, func() { close(stopped); wg.Wait() }
}

// TestResubmitSendsAnOrphanedClaim: once SendGrace has passed, submitting
// the same transaction again sends it again (the cluster lands it once).
func TestResubmitSendsAnOrphanedClaim(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	signed, tok, end := orphan(t, f, func([]byte) error { return nil })
	defer end()
	f.now = f.now.Add(relay.SendGrace)
	res := f.submit(t, signed, tok)
	if res.Status != relay.StatusSubmitted || res.Signature == "" || f.rpc.sends.Load() != 2 {
		t.Fatalf("resubmit %+v, %d sends", res, f.rpc.sends.Load())
	}
	e, err := f.store.EntryByTicketJTI(context.Background(), mustJTI(t, f, tok))
	if err != nil || e.Status != ledger.StatusSubmitted || e.Signature != res.Signature {
		t.Fatalf("entry %+v %v", e, err)
	}
	if again := f.submit(t, signed, tok); again.Status != relay.StatusDuplicate || f.rpc.sends.Load() != 2 {
		t.Fatalf("then %+v, %d sends", again, f.rpc.sends.Load())
	}
}

// TestOrphanedClaimRefusedAgainStaysForTheTracker: a refused resend does
// not release the claim (the first send may have landed): the tracker
// settles it.
func TestOrphanedClaimRefusedAgainStaysForTheTracker(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	signed, tok, end := orphan(t, f, func([]byte) error {
		return &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: This transaction has already been processed"}
	})
	defer end()
	f.now = f.now.Add(time.Minute - time.Second) // the ticket lives a minute
	res := f.submit(t, signed, tok)
	if res.Status != relay.StatusFailed || res.Code != relay.CodeInFlight || f.rpc.sends.Load() != 2 {
		t.Fatalf("resubmit %+v, %d sends", res, f.rpc.sends.Load())
	}
	if e, err := f.store.EntryByTicketJTI(context.Background(), mustJTI(t, f, tok)); err != nil || e.Status != ledger.StatusSending {
		t.Fatalf("entry %+v %v", e, err)
	}
}
