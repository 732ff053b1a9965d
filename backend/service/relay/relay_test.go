package relay_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// fakeRPC counts sends and answers with send; the cluster knows the
// signatures in known (statuses fails with statusErr when set): those of
// the sends it answered without error, unless lose is set (a send lost on
// its way to the leader). Its chain is at height.
type fakeRPC struct {
	sends     atomic.Int32
	send      func(raw []byte) error
	lose      atomic.Bool
	mu        sync.Mutex
	opts      []rpc.TransactionOpts
	known     map[solana.Signature]bool
	statusErr error
	statuses  atomic.Int32
	height    atomic.Uint64
	// landed are the transactions GetTransaction returns (land).
	landed map[solana.Signature][]byte
}

func (f *fakeRPC) SendRawTransactionWithOpts(_ context.Context, raw []byte, opts rpc.TransactionOpts) (solana.Signature, error) {
	f.sends.Add(1)
	f.mu.Lock()
	f.opts = append(f.opts, opts)
	f.mu.Unlock()
	if f.send != nil {
		if err := f.send(raw); err != nil {
			return solana.Signature{}, err
		}
	}
	sig, err := firstSignature(raw)
	if err != nil {
		return solana.Signature{}, err
	}
	if !f.lose.Load() {
		f.know(sig)
	}
	return sig, nil
}

// firstSignature is a transaction's id as a node reads it: the first
// signature, after the message in a v1 transaction.
func firstSignature(raw []byte) (solana.Signature, error) {
	if len(raw) > 0 && raw[0] == txv1.VersionByte {
		var tx txv1.Transaction
		if err := tx.UnmarshalBinary(raw); err != nil {
			return solana.Signature{}, err
		}
		return tx.Signatures[0], nil
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		return solana.Signature{}, err
	}
	return tx.Signatures[0], nil
}

func (f *fakeRPC) GetSignatureStatuses(_ context.Context, _ bool, sigs ...solana.Signature) (*rpc.GetSignatureStatusesResult, error) {
	f.statuses.Add(1)
	if f.statusErr != nil {
		return nil, f.statusErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &rpc.GetSignatureStatusesResult{}
	for _, s := range sigs {
		var st *rpc.SignatureStatusesResult
		if f.known[s] {
			st = &rpc.SignatureStatusesResult{ConfirmationStatus: rpc.ConfirmationStatusConfirmed}
		}
		out.Value = append(out.Value, st)
	}
	return out, nil
}

func (f *fakeRPC) GetBlockHeight(context.Context, rpc.CommitmentType) (uint64, error) {
	return f.height.Load(), nil
}

// GetTransaction returns a transaction landed by land, at any commitment.
func (f *fakeRPC) GetTransaction(_ context.Context, sig solana.Signature, _ *rpc.GetTransactionOpts) (*rpc.GetTransactionResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	raw, ok := f.landed[sig]
	if !ok {
		return nil, rpc.ErrNotFound
	}
	body, _ := json.Marshal(map[string]any{"slot": 1, "transaction": []any{raw, "base64"}, "meta": map[string]any{"fee": 5000}})
	var out rpc.GetTransactionResult
	return &out, json.Unmarshal(body, &out)
}

// land makes the cluster hold the signed transaction tx, as landed.
func (f *fakeRPC) land(t *testing.T, tx *solana.Transaction) {
	t.Helper()
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.landed == nil {
		f.landed = map[solana.Signature][]byte{}
	}
	f.landed[tx.Signatures[0]] = raw
}

// know makes the cluster know sig.
func (f *fakeRPC) know(sig solana.Signature) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.known == nil {
		f.known = map[solana.Signature]bool{}
	}
	f.known[sig] = true
}

type fixture struct {
	store   *storagetest.Store
	issuer  *ticket.Issuer
	rpc     *fakeRPC
	relay   *relay.Relay
	project project.Project
	wallet  solana.PrivateKey
	now     time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := storagetest.SQLite(t)
	p, err := s.CreateProject(context.Background(), project.Project{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	f := &fixture{store: s, issuer: ticket.NewIssuer(signing.NewKeyring(priv)), rpc: &fakeRPC{}, project: p,
		wallet: solana.NewWallet().PrivateKey, now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	f.relay = relay.New(f.rpc, s, f.issuer, func() time.Time { return f.now })
	return f
}

// build returns an unsigned transaction from the wallet and its ticket.
func (f *fixture) build(t *testing.T) (*solana.Transaction, string) {
	t.Helper()
	tx, err := solana.NewTransaction([]solana.Instruction{
		system.NewTransferInstruction(1, f.wallet.PublicKey(), solana.NewWallet().PublicKey()).Build(),
	}, solana.Hash{1}, solana.TransactionPayer(f.wallet.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	return tx, f.ticketFor(t, f.project.ID, tx)
}

// ticketFor issues a ticket of projectID for the unsigned transaction tx of
// the fixture's wallet.
func (f *fixture) ticketFor(t *testing.T, projectID string, tx *solana.Transaction) string {
	t.Helper()
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := f.issuer.Issue(ticket.Claims{
		Project: projectID, Wallet: f.wallet.PublicKey().String(), MessageHash: ticket.Hash(sha256.Sum256(msg)),
		Type: ledger.TypeTokenAccountClosure, GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5000, Fees: 5000,
		Includes: []ticket.Item{{Type: "empty_account", Address: "A", Action: "close"}}, LastValidBlockHeight: 100,
	}, f.now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func sign(t *testing.T, tx *solana.Transaction, key solana.PrivateKey) string {
	t.Helper()
	if _, err := tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &key }); err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

func (f *fixture) submit(t *testing.T, tx, tok string) relay.Result {
	t.Helper()
	res, err := f.relay.Submit(context.Background(), f.project.ID, f.wallet.PublicKey(), []relay.Signed{{TransactionBase64: tx, Ticket: tok}})
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

func TestSubmitThenDuplicate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tx, tok := f.build(t)
	signed := sign(t, tx, f.wallet)
	first := f.submit(t, signed, tok)
	if first.Status != relay.StatusSubmitted || first.Signature != tx.Signatures[0].String() || len(first.Includes) != 1 {
		t.Fatalf("first %+v", first)
	}
	// Even after the ticket expired, a consumed ticket answers duplicate.
	f.now = f.now.Add(time.Hour)
	again := f.submit(t, signed, tok)
	if again.Status != relay.StatusDuplicate || again.Signature != first.Signature || f.rpc.sends.Load() != 1 {
		t.Fatalf("again %+v, sends %d", again, f.rpc.sends.Load())
	}
	e, err := f.store.EntryByTicketJTI(context.Background(), mustJTI(t, f, tok))
	if err != nil || e.Status != ledger.StatusSubmitted || e.NetRebate != 2_034_280 || e.LastValidBlockHeight != 100 {
		t.Fatalf("entry %+v %v", e, err)
	}
}

func mustJTI(t *testing.T, f *fixture, tok string) string {
	c, err := f.issuer.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func TestConcurrentSubmitsSendOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tx, tok := f.build(t)
	signed := sign(t, tx, f.wallet)
	sending, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.rpc.send = func([]byte) error { once.Do(func() { close(sending) }); <-release; return nil }
	const n = 20
	results := make([]relay.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = f.submit(t, signed, tok) }()
	}
	// The winner's send holds until it is under way: every other submit
	// then finds the claim taken.
	<-sending
	close(release)
	wg.Wait()
	counts := map[relay.Status]int{}
	for _, r := range results {
		counts[r.Status]++
		if r.Signature != tx.Signatures[0].String() {
			t.Fatalf("result %+v", r)
		}
	}
	if f.rpc.sends.Load() != 1 || counts[relay.StatusSubmitted] != 1 || counts[relay.StatusDuplicate] != n-1 {
		t.Fatalf("sends %d, results %v", f.rpc.sends.Load(), counts)
	}
}

func TestSubmitFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := solana.NewWallet().PrivateKey
	tx, tok := f.build(t)
	good := sign(t, tx, f.wallet)

	tampered, tok2 := f.build(t)
	tampered.Message.Instructions[0].Data[4] = 9 // the lamports of the transfer
	tamperedB64 := sign(t, tampered, f.wallet)

	wrongSigner, tok3 := f.build(t)
	wrongSignerB64 := sign(t, wrongSigner, other)

	otherProject := newFixture(t)
	_, foreign := otherProject.build(t)

	cases := []struct {
		name, tx, ticket string
		code             relay.Code
	}{
		{"not our ticket", good, foreign, relay.CodeInvalidTicket},
		{"garbage ticket", good, "abc", relay.CodeInvalidTicket},
		{"tampered message", tamperedB64, tok2, relay.CodeHashMismatch},
		{"another transaction", good, tok2, relay.CodeHashMismatch},
		{"signed by another key", wrongSignerB64, tok3, relay.CodeSignatureInvalid},
		{"not a transaction", base64.StdEncoding.EncodeToString([]byte{1, 2, 3}), tok, relay.CodeInvalidTransaction},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.submit(t, tc.tx, tc.ticket)
			if r.Status != relay.StatusFailed || r.Code != tc.code || r.Signature != "" || r.Message == "" {
				t.Fatalf("got %+v, want failed %s", r, tc.code)
			}
		})
	}
	t.Run("wallet mismatch", func(t *testing.T) {
		res, err := f.relay.Submit(context.Background(), f.project.ID, other.PublicKey(), []relay.Signed{{TransactionBase64: good, Ticket: tok}})
		if err != nil || res[0].Code != relay.CodeWalletMismatch {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("expired", func(t *testing.T) {
		f.now = f.now.Add(time.Minute)
		defer func() { f.now = f.now.Add(-time.Minute) }()
		if r := f.submit(t, good, tok); r.Code != relay.CodeTicketExpired {
			t.Fatalf("%+v", r)
		}
	})
	if f.rpc.sends.Load() != 0 {
		t.Fatalf("%d sends for failed entries", f.rpc.sends.Load())
	}
	if st, _ := f.store.Stats(context.Background(), f.project.ID); st.TotalTransactionCount != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRefusedTransactionDoesNotConsumeTheTicket(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tx, tok := f.build(t)
	signed := sign(t, tx, f.wallet)
	f.rpc.send = func([]byte) error {
		return &jsonrpc.RPCError{Code: -32002, Message: "Transaction simulation failed: Blockhash not found",
			Data: map[string]any{"logs": []any{"Program log: x"}}}
	}
	r := f.submit(t, signed, tok)
	if r.Status != relay.StatusFailed || r.Code != relay.CodeRPCError || r.Message != "the cluster refused the transaction: Transaction simulation failed: Blockhash not found (code -32002); logs: Program log: x" {
		t.Fatalf("%+v", r)
	}
	f.rpc.send = func([]byte) error { return &net.OpError{Op: "dial", Err: errors.New("connection refused")} }
	if r := f.submit(t, signed, tok); r.Code != relay.CodeRPCError {
		t.Fatalf("unreachable: %+v", r)
	}
	f.rpc.send = nil
	if r := f.submit(t, signed, tok); r.Status != relay.StatusSubmitted {
		t.Fatalf("retry after refusal: %+v", r)
	}
}

// Two tickets of the very same transaction (built twice within one
// blockhash) send it once: the second is a duplicate.
func TestSameTransactionTwoTickets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tx, tok := f.build(t)
	signed := sign(t, tx, f.wallet)
	msg, _ := tx.Message.MarshalBinary()
	tok2, _, err := f.issuer.Issue(ticket.Claims{Project: f.project.ID, Wallet: f.wallet.PublicKey().String(),
		MessageHash: ticket.Hash(sha256.Sum256(msg)), Type: ledger.TypeTokenAccountClosure}, f.now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r := f.submit(t, signed, tok); r.Status != relay.StatusSubmitted {
		t.Fatalf("first: %+v", r)
	}
	if r := f.submit(t, signed, tok2); r.Status != relay.StatusDuplicate || r.Signature != tx.Signatures[0].String() || f.rpc.sends.Load() != 1 {
		t.Fatalf("second ticket: %+v, sends %d", r, f.rpc.sends.Load())
	}
}

// A retry may cure RPC_ERROR (the ticket was not consumed) and IN_FLIGHT
// (the outcome is not known yet), no other failure: an idempotency key
// keeps no answer holding one of the two.
func TestCurableCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []relay.Code{relay.CodeTicketExpired, relay.CodeHashMismatch, relay.CodeRPCError, relay.CodeInvalidTicket, relay.CodeWalletMismatch,
		relay.CodeSignatureInvalid, relay.CodeInvalidTransaction, relay.CodeInFlight, relay.CodeTransactionFailed} {
		if want := c == relay.CodeRPCError || c == relay.CodeInFlight; c.Curable() != want {
			t.Errorf("%s: curable %v, want %v", c, c.Curable(), want)
		}
	}
}
