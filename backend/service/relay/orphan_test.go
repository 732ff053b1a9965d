package relay_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
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
		_, _ = f.relay.Submit(context.Background(), f.project.ID, f.wallet.PublicKey(), []relay.Signed{{TransactionBase64: signed, Ticket: tok}})
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

// TestResubmitOfAnOrphanedClaim: the resubmit of a claim whose submit
// died answers by what the cluster says of its transaction: it knows it
// (duplicate, nothing sent), its blockhash expired (the expiry, nothing
// sent), or the answer to sending it again, the stored bytes: accepted or
// already processed (submitted), refused while the cluster does not know
// it (the claim released: the ticket was never consumed); and when the
// cluster cannot say whether it knows it, the claim stays (IN_FLIGHT).
func TestResubmitOfAnOrphanedClaim(t *testing.T) {
	t.Parallel()
	alreadyProcessed := &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: This transaction has already been processed",
		Data: map[string]any{"err": "AlreadyProcessed"}}
	blockhashNotFound := &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: Blockhash not found",
		Data: map[string]any{"err": "BlockhashNotFound"}}
	cases := []struct {
		name      string
		resend    error
		known     bool  // the cluster has the transaction
		statusErr error // the cluster cannot say
		height    uint64
		status    relay.Status
		code      relay.Code
		sends     int32
		entry     ledger.Status // "" when released
	}{
		{name: "accepted", status: relay.StatusSubmitted, sends: 2, entry: ledger.StatusSubmitted},
		{name: "already processed", resend: alreadyProcessed, status: relay.StatusSubmitted, sends: 2, entry: ledger.StatusSubmitted},
		{name: "known", known: true, status: relay.StatusDuplicate, sends: 1, entry: ledger.StatusSubmitted},
		{name: "refused, unknown", resend: blockhashNotFound, status: relay.StatusFailed, code: relay.CodeRPCError, sends: 2},
		{name: "cluster cannot say", statusErr: errors.New("503"), status: relay.StatusFailed, code: relay.CodeInFlight, sends: 1, entry: ledger.StatusSending},
		{name: "expired", height: 101, status: relay.StatusFailed, code: relay.CodeTicketExpired, sends: 1, entry: ledger.StatusSending},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.rpc.lose.Store(true)
			signed, tok, end := orphan(t, f, func([]byte) error { return tc.resend })
			defer end()
			f.rpc.height.Store(tc.height)
			f.rpc.statusErr = tc.statusErr
			if tc.known {
				tx, _ := solana.TransactionFromBase64(signed)
				f.rpc.know(tx.Signatures[0])
			}
			f.now = f.now.Add(relay.SendGrace)
			res := f.submit(t, signed, tok)
			if res.Status != tc.status || res.Code != tc.code || f.rpc.sends.Load() != tc.sends {
				t.Fatalf("resubmit %+v, %d sends", res, f.rpc.sends.Load())
			}
			e, err := f.store.EntryByTicketJTI(context.Background(), mustJTI(t, f, tok))
			if tc.entry == "" && !errors.Is(err, ledger.ErrNotFound) || tc.entry != "" && (err != nil || e.Status != tc.entry) {
				t.Fatalf("entry %+v %v, want %q", e, err, tc.entry)
			}
		})
	}
}

// TestTicketExpiringWhileSent: a ticket that expires while another submit
// still sends its transaction is answered with that submit's outcome, not
// as an expired ticket (the transaction may land).
func TestTicketExpiringWhileSent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	start := f.now
	f.now = start.Add(-50 * time.Second) // the ticket has 10 s left at the submit
	tx, tok := f.build(t)
	f.now = start
	signed := sign(t, tx, f.wallet)
	sending, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.rpc.send = func([]byte) error { once.Do(func() { close(sending) }); <-release; return nil }
	seen := &sendingSeen{Store: f.store, seen: make(chan struct{})}
	f.relay = relay.New(f.rpc, seen, f.issuer, func() time.Time { return f.now })
	first := make(chan relay.Result, 1)
	go func() { first <- f.submit(t, signed, tok) }()
	<-sending
	f.now = start.Add(15 * time.Second) // expired, the claim still within SendGrace
	second := make(chan relay.Result, 1)
	go func() { second <- f.submit(t, signed, tok) }()
	<-seen.seen // the second found the claim being sent
	close(release)
	if r := <-first; r.Status != relay.StatusSubmitted {
		t.Fatalf("first %+v", r)
	}
	if r := <-second; r.Status != relay.StatusDuplicate || r.Signature != tx.Signatures[0].String() || f.rpc.sends.Load() != 1 {
		t.Fatalf("second %+v, %d sends", r, f.rpc.sends.Load())
	}
}

// sendingSeen closes seen the first time it returns an entry being sent.
type sendingSeen struct {
	relay.Store
	seen chan struct{}
	once sync.Once
}

func (s *sendingSeen) EntryByTicketJTI(ctx context.Context, jti string) (ledger.Entry, error) {
	e, err := s.Store.EntryByTicketJTI(ctx, jti)
	if err == nil && e.Status == ledger.StatusSending {
		s.once.Do(func() { close(s.seen) })
	}
	return e, err
}
