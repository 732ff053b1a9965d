package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// The errors solana-go's client returns, as it wraps them: the HTTP
// client's (*url.Error, with the endpoint), an HTTP status whose body is no
// JSON-RPC answer (*jsonrpc.HTTPError), a 2xx body it cannot decode (a
// plain error wrapping the decoder's), the node's JSON-RPC error.
func transportErr(err error) error {
	return fmt.Errorf("rpc call sendTransaction() on http://rpc.example: %w", &url.Error{Op: "Post", URL: "http://rpc.example", Err: err})
}

func httpErr(code int) error {
	return jsonrpc.NewHTTPError(code, fmt.Errorf("rpc call sendTransaction() on http://rpc.example status code: %d. could not decode body to rpc response: %w",
		code, &json.SyntaxError{Offset: 1}))
}

func decodeErr(err error) error {
	return fmt.Errorf("rpc call sendTransaction() on http://rpc.example status code: 200. could not decode body to rpc response: %w", err)
}

// TestSendOutcomes is the decision table of a submit's send: what each
// answer (or its absence) makes of the claim and of the client's answer.
// Only the node's answer decides; its refusal, or a send that never left
// (no connection), releases the claim unless the cluster knows the
// signature; any other send may have reached the node, whatever came back
// (an HTTP error page, a body that is not JSON-RPC, no answer): it keeps
// the claim (the tracker follows it and sends it again).
func TestSendOutcomes(t *testing.T) {
	t.Parallel()
	simulationFailed := &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1",
		Data: map[string]any{"err": map[string]any{"InstructionError": []any{0, map[string]any{"Custom": 1}}},
			"logs": []any{"Program 1 invoke [1]", "Program log: Error: insufficient funds", "Program 1 failed"}}}
	cases := []struct {
		name      string
		err       error
		known     bool  // the cluster has the signature (another send landed it)
		statusErr error // the cluster cannot say
		status    relay.Status
		message   string // the RPC_ERROR's, when failed
		kept      bool   // the claim stays (submitted)
	}{
		{name: "signature", status: relay.StatusSubmitted, kept: true},
		{name: "already processed", err: &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: This transaction has already been processed",
			Data: map[string]any{"err": "AlreadyProcessed", "logs": []any{}}}, status: relay.StatusSubmitted, kept: true},
		{name: "already processed, message only", err: &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: This transaction has already been processed"},
			status: relay.StatusSubmitted, kept: true},
		{name: "simulation failed", err: simulationFailed, status: relay.StatusFailed,
			message: "the cluster refused the transaction: Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1 (code -32002); logs: Program 1 invoke [1] | Program log: Error: insufficient funds | Program 1 failed"},
		{name: "refused, but the cluster has it", err: simulationFailed, known: true, status: relay.StatusSubmitted, kept: true},
		{name: "refused, the cluster cannot say", err: simulationFailed, statusErr: errors.New("503"), status: relay.StatusFailed,
			message: "the cluster refused the transaction: "},
		{name: "node unhealthy", err: &jsonrpc.RPCError{Code: -32005, Message: "Node is behind by 42 slots", Data: map[string]any{"numSlotsBehind": 42}},
			status: relay.StatusFailed, message: "the cluster refused the transaction: Node is behind by 42 slots (code -32005)"},
		// A gateway's error page may follow a request it passed on (issue
		// 31: a 500 whose send the node took 1.5 s later): kept, followed.
		{name: "HTTP 429", err: httpErr(429), status: relay.StatusSubmitted, kept: true},
		{name: "HTTP 500", err: httpErr(500), status: relay.StatusSubmitted, kept: true},
		{name: "HTTP 502", err: httpErr(502), status: relay.StatusSubmitted, kept: true},
		{name: "HTTP 503", err: httpErr(503), status: relay.StatusSubmitted, kept: true},
		{name: "HTTP 503, but the cluster has it", err: httpErr(503), known: true, status: relay.StatusSubmitted, kept: true},
		{name: "HTTP 504: the gateway gave up on the node", err: httpErr(504), status: relay.StatusSubmitted, kept: true},
		{name: "malformed JSON", err: decodeErr(&json.SyntaxError{Offset: 3}), status: relay.StatusSubmitted, kept: true},
		{name: "empty body", err: decodeErr(io.EOF), status: relay.StatusSubmitted, kept: true},
		{name: "connection refused", err: transportErr(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), status: relay.StatusFailed,
			message: "the cluster could not be reached; nothing was sent, retry"},
		{name: "no answer in time", err: transportErr(context.DeadlineExceeded), status: relay.StatusSubmitted, kept: true},
		{name: "connection closed before the answer", err: transportErr(io.EOF), status: relay.StatusSubmitted, kept: true},
		{name: "connection reset before the answer", err: transportErr(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), status: relay.StatusSubmitted, kept: true},
		{name: "answer cut off", err: decodeErr(io.ErrUnexpectedEOF), status: relay.StatusSubmitted, kept: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.rpc.lose.Store(true)
			tx, tok := f.build(t)
			signed := sign(t, tx, f.wallet)
			f.rpc.send = func([]byte) error { return tc.err }
			f.rpc.statusErr = tc.statusErr
			if tc.known {
				f.rpc.know(tx.Signatures[0])
			}
			res := f.submit(t, signed, tok)
			if res.Status != tc.status || res.Status == relay.StatusFailed && (res.Code != relay.CodeRPCError || !strings.HasPrefix(res.Message, tc.message) || res.Signature != "") {
				t.Fatalf("got %+v, want %s %q", res, tc.status, tc.message)
			}
			if strings.Contains(res.Message, "rpc.example") {
				t.Fatalf("the endpoint reached the client: %q", res.Message)
			}
			e, err := f.store.EntryByTicketJTI(context.Background(), mustJTI(t, f, tok))
			switch {
			case tc.kept && (err != nil || e.Status != ledger.StatusSubmitted || e.Signature != tx.Signatures[0].String()):
				t.Fatalf("kept claim: %+v %v", e, err)
			case !tc.kept && !errors.Is(err, ledger.ErrNotFound):
				t.Fatalf("the claim was not released: %+v %v", e, err)
			}
			if o := f.rpc.opts[0]; o.SkipPreflight || o.PreflightCommitment != rpc.CommitmentConfirmed || o.MaxRetries == nil || *o.MaxRetries != 0 {
				t.Fatalf("sent with %+v, want preflight at confirmed and maxRetries 0", o)
			}
			if !tc.kept { // released: the ticket may be submitted again
				f.rpc.send = nil
				if again := f.submit(t, signed, tok); again.Status != relay.StatusSubmitted {
					t.Fatalf("resubmit after release: %+v", again)
				}
			}
		})
	}
}

// TestSendIsBounded: a cluster that never answers gets SendTimeout for the
// whole request, whatever its size; the entries sent are kept (they may
// have reached the cluster), the ones the time did not allow are not sent
// and say so.
func TestSendIsBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hanging := newHangingRPC(f.rpc)
	defer close(hanging.hang)
	var entries []relay.Signed
	for range 20 {
		tx, tok := f.build(t)
		entries = append(entries, relay.Signed{TransactionBase64: sign(t, tx, f.wallet), Ticket: tok})
	}
	f.relay = relay.New(hanging, f.store, f.issuer, running(f.now)) // the bound is real time
	f.relay.SendTimeout = 500 * time.Millisecond
	start := time.Now()
	res, err := f.relay.Submit(context.Background(), f.project.ID, f.wallet.PublicKey(), entries)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if took < 500*time.Millisecond || took > 5*time.Second {
		t.Fatalf("the request took %s, want its SendTimeout of 500ms and little more", took)
	}
	counts := map[string]int{}
	for _, r := range res {
		counts[string(r.Status)+" "+string(r.Code)]++
		if r.Status == relay.StatusFailed && !strings.HasPrefix(r.Message, "not sent:") {
			t.Fatalf("%+v", r)
		}
	}
	sent := int(f.rpc.sends.Load())
	if sent == 0 || counts["submitted "] != sent || counts["failed RPC_ERROR"] != 20-sent {
		t.Fatalf("%d sent, results %v", sent, counts)
	}
	for range sent {
		if err := <-hanging.ctxErr; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a send ended by %v, want its own deadline", err)
		}
	}
}

// TestSendOutlivesTheClient: a client that gives up while its transaction
// is being sent does not cut the send: it runs to its own deadline, and the
// claim is kept for the tracker to send again.
func TestSendOutlivesTheClient(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hanging := newHangingRPC(f.rpc)
	defer close(hanging.hang)
	f.relay = relay.New(hanging, f.store, f.issuer, running(f.now)) // the bound is real time
	f.relay.SendTimeout = 300 * time.Millisecond
	tx, tok := f.build(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-hanging.started; cancel() }()
	res, err := f.relay.Submit(ctx, f.project.ID, f.wallet.PublicKey(), []relay.Signed{{TransactionBase64: sign(t, tx, f.wallet), Ticket: tok}})
	if err != nil || res[0].Status != relay.StatusSubmitted {
		t.Fatalf("%+v %v", res, err)
	}
	if err := <-hanging.ctxErr; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the send ended by %v, want its own deadline", err)
	}
	if e, err := f.store.EntryByTicketJTI(context.Background(), mustJTI(t, f, tok)); err != nil || e.Status != ledger.StatusSubmitted || len(e.Raw) == 0 {
		t.Fatalf("entry %+v %v", e, err)
	}
}

// running is a clock that reads start and moves with real time: what a test
// of a real time bound gives the relay (its sends are timed by its clock).
func running(start time.Time) func() time.Time {
	t0 := time.Now()
	return func() time.Time { return start.Add(time.Since(t0)) }
}

// hangingRPC never answers a send: it waits for its context, and reports
// how the context ended.
type hangingRPC struct {
	*fakeRPC
	hang    chan struct{}
	ctxErr  chan error
	started chan struct{} // closed by the first send
	once    sync.Once
}

func newHangingRPC(f *fakeRPC) *hangingRPC {
	return &hangingRPC{fakeRPC: f, hang: make(chan struct{}), ctxErr: make(chan error, 100), started: make(chan struct{})}
}

func (h *hangingRPC) SendRawTransactionWithOpts(ctx context.Context, raw []byte, opts rpc.TransactionOpts) (solana.Signature, error) {
	h.sends.Add(1)
	h.once.Do(func() { close(h.started) })
	select {
	case <-ctx.Done():
	case <-h.hang:
	}
	h.ctxErr <- ctx.Err()
	return solana.Signature{}, transportErr(ctx.Err())
}

// TestResubmitAnswersTheEntry: a ticket submitted again answers with its
// entry: a transaction that failed or expired is that failure, never a
// duplicate; one in flight that the cluster does not know while its
// blockhash lives is sent again, the stored bytes; one the cluster knows
// is a duplicate, nothing sent.
func TestResubmitAnswersTheEntry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		settle func(f *fixture, jti string)
		known  bool
		height uint64
		resend error
		status relay.Status
		code   relay.Code
		sends  int32
		prefix string
	}{
		{name: "failed on chain", settle: func(f *fixture, jti string) {
			mustSettle(f, jti, ledger.StatusFailed, "map[InstructionError:[0 map[Custom:1]]]")
		}, status: relay.StatusFailed, code: relay.CodeTransactionFailed, sends: 1,
			prefix: "the transaction landed and failed (map[InstructionError:[0 map[Custom:1]]]): the network fee was paid and nothing was reclaimed"},
		{name: "expired", settle: func(f *fixture, jti string) {
			mustSettle(f, jti, ledger.StatusExpired, "the blockhash expired before the transaction landed")
		}, status: relay.StatusFailed, code: relay.CodeTicketExpired, sends: 1,
			prefix: "the transaction never landed: its blockhash expired (last valid block height 100)"},
		{name: "confirmed", settle: func(f *fixture, jti string) {
			mustSettle(f, jti, ledger.StatusConfirmed, "")
		}, status: relay.StatusDuplicate, sends: 1},
		{name: "in flight, known", known: true, status: relay.StatusDuplicate, sends: 1},
		{name: "in flight, lost", status: relay.StatusSubmitted, sends: 2},
		{name: "in flight, lost, refused now", resend: &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: Error processing Instruction 0"},
			status: relay.StatusFailed, code: relay.CodeInFlight, sends: 2},
		{name: "in flight, lost, about to expire", height: 97, status: relay.StatusDuplicate, sends: 1},
		{name: "in flight, lost, expired", height: 101, status: relay.StatusFailed, code: relay.CodeTicketExpired, sends: 1,
			prefix: "the transaction never landed: its blockhash expired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.rpc.lose.Store(true) // the first send is lost on its way
			tx, tok := f.build(t)
			signed := sign(t, tx, f.wallet)
			if r := f.submit(t, signed, tok); r.Status != relay.StatusSubmitted {
				t.Fatalf("first %+v", r)
			}
			if tc.settle != nil {
				tc.settle(f, mustJTI(t, f, tok))
			}
			if tc.known {
				f.rpc.know(tx.Signatures[0])
			}
			f.rpc.height.Store(tc.height)
			f.rpc.send = func([]byte) error { return tc.resend }
			f.now = f.now.Add(2 * time.Minute) // past the ticket's life: the entry answers
			res := f.submit(t, signed, tok)
			if res.Status != tc.status || res.Code != tc.code || !strings.HasPrefix(res.Message, tc.prefix) || f.rpc.sends.Load() != tc.sends {
				t.Fatalf("resubmit %+v, %d sends", res, f.rpc.sends.Load())
			}
			if res.Status != relay.StatusFailed && res.Signature != tx.Signatures[0].String() {
				t.Fatalf("resubmit %+v", res)
			}
			if tc.sends == 2 {
				if o := f.rpc.opts[1]; o.SkipPreflight || o.MaxRetries == nil || *o.MaxRetries != 0 {
					t.Fatalf("resent with %+v", o)
				}
			}
		})
	}
}

// TestResubmitSendsTheStoredBytes: an entry in flight is sent again with
// the bytes its first submit stored, whatever the resubmit carries.
func TestResubmitSendsTheStoredBytes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rpc.lose.Store(true)
	tx, tok := f.build(t)
	signed := sign(t, tx, f.wallet)
	var sent [][]byte
	f.rpc.send = func(raw []byte) error { sent = append(sent, raw); return nil }
	if r := f.submit(t, signed, tok); r.Status != relay.StatusSubmitted {
		t.Fatalf("first %+v", r)
	}
	if r := f.submit(t, "AAAA", tok); r.Status != relay.StatusSubmitted || len(sent) != 2 || string(sent[0]) != string(sent[1]) {
		t.Fatalf("resubmit %+v, sent %d", r, len(sent))
	}
}

func mustSettle(f *fixture, jti string, status ledger.Status, msg string) {
	var err error
	if status == ledger.StatusConfirmed {
		_, err = f.store.ConfirmEntry(context.Background(), jti, ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5000}, 0, f.now)
	} else {
		_, err = f.store.SetEntryStatus(context.Background(), jti, status, msg, f.now)
	}
	if err != nil {
		panic(err)
	}
}

// TestSendTimedByTheRelaysClock: the request's SendTimeout runs on the
// clock the relay is given, as every other time of the relay: a request
// whose time ran out by that clock before its entry's turn does not send
// it, whatever the machine's clock says.
func TestSendTimedByTheRelaysClock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	clock := clocktest.New(f.now)
	tx, tok := f.build(t)
	// The request's time runs out as its ticket is checked, before its
	// entry's turn.
	slow := slowTickets{f.issuer, func() { clock.Advance(relay.DefaultSendTimeout) }}
	f.relay = relay.New(f.rpc, f.store, slow, clock.Now)
	res, err := f.relay.Submit(context.Background(), f.project.ID, f.wallet.PublicKey(), []relay.Signed{{TransactionBase64: sign(t, tx, f.wallet), Ticket: tok}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Status != relay.StatusFailed || res[0].Code != relay.CodeRPCError || !strings.HasPrefix(res[0].Message, "not sent:") {
		t.Fatalf("%+v, want not sent: the request's time ran out by the relay's clock", res[0])
	}
	if n := f.rpc.sends.Load(); n != 0 {
		t.Fatalf("%d sends", n)
	}
}

// slowTickets verifies with Tickets and then calls took: the time a
// verification took, on a test's clock.
type slowTickets struct {
	relay.Tickets
	took func()
}

func (s slowTickets) Verify(token string) (ticket.Claims, error) {
	c, err := s.Tickets.Verify(token)
	s.took()
	return c, err
}
