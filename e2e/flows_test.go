package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// emptyWallet returns a funded wallet with n empty token accounts.
func emptyWallet(t *testing.T, v *harness.Validator, n int) (solana.PrivateKey, []solana.PublicKey) {
	t.Helper()
	f := v.NewWalletFixture(t)
	mints := v.CreateMints(t, f.Issuer, harness.MintSpec{Decimals: 6}, n)
	return f.Owner, v.CreateATAs(t, f.Owner, f.Owner.PublicKey(), mints)
}

func closeAll(accounts []solana.PublicKey) []selection {
	sel := make([]selection, len(accounts))
	for i, a := range accounts {
		sel[i] = selection{Type: "empty_account", Address: a.String(), Action: "close"}
	}
	return sel
}

func (s *service) build(t *testing.T, owner solana.PublicKey, token string, body map[string]any) built {
	t.Helper()
	var b built
	if code := s.call("POST", "/v1/wallet/"+owner.String()+"/transactions", bearerOf(token), body, &b); code != 200 {
		t.Fatalf("build: %d", code)
	}
	return b
}

func (s *service) submit(t *testing.T, owner solana.PublicKey, token string, signed ...signedTx) []submitResult {
	t.Helper()
	var res struct{ Results []submitResult }
	if code := s.call("POST", "/v1/wallet/"+owner.String()+"/transactions/submit", bearerOf(token), map[string]any{"signed": signed}, &res); code != 200 {
		t.Fatalf("submit: %d", code)
	}
	return res.Results
}

// submitConfirmed submits signed, each of which must be submitted, and
// waits until every one is confirmed on v; it returns their signatures.
func (s *service) submitConfirmed(t *testing.T, v *harness.Validator, owner solana.PublicKey, token string, signed ...signedTx) []string {
	t.Helper()
	sigs := make([]string, len(signed))
	for i, r := range s.submit(t, owner, token, signed...) {
		if r.Status != "submitted" || r.Signature == nil {
			t.Fatalf("submit %d: %+v %+v", i, r, r.Error)
		}
		sigs[i] = *r.Signature
	}
	waitConfirmed(t, v, sigs)
	return sigs
}

// The same flow over Connect with the generated client, with the signing
// done by @solana/web3.js.
func TestReclaimOverConnectSignedByWeb3js(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed (CI=true: the web3.js signing test must run)")
		}
		t.Skip("node is not installed")
	}
	dir, _ := filepath.Abs("web3client")
	if err := harness.EnsureNodeModules(t.Context(), dir, os.Stderr); err != nil {
		t.Fatal(err)
	}
	s := startService(t, v)
	owner, accounts := emptyWallet(t, v, 30)
	ownerAddr := owner.PublicKey().String()

	ctx := context.Background()
	sessions := reclaimv1connect.NewSessionServiceClient(http.DefaultClient, s.url)
	wallets := reclaimv1connect.NewWalletServiceClient(http.DefaultClient, s.url)
	req := connect.NewRequest(&reclaimv1.CreateSessionRequest{WalletAddress: ownerAddr})
	req.Header().Set("X-Api-Key", s.apiKey)
	sess, err := sessions.CreateSession(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	auth := "Bearer " + sess.Msg.GetToken()

	lreq := connect.NewRequest(&reclaimv1.ListAssetsRequest{Address: ownerAddr})
	lreq.Header().Set("Authorization", auth)
	l, err := wallets.ListAssets(ctx, lreq)
	if err != nil {
		t.Fatal(err)
	}
	var items []*reclaimv1.ItemSelection
	for _, it := range l.Msg.GetItems() {
		if it.GetType() == "empty_account" && len(it.GetActions()) > 0 {
			items = append(items, &reclaimv1.ItemSelection{Type: it.GetType(), Address: it.GetAddress(), Action: "close"})
		}
	}
	if len(items) < len(accounts) {
		t.Fatalf("listed %d closable empty accounts, want at least %d", len(items), len(accounts))
	}
	donation := 0.25
	breq := connect.NewRequest(&reclaimv1.BuildTransactionsRequest{Address: ownerAddr, Items: items, DonationPercentage: &donation})
	breq.Header().Set("Authorization", auth)
	b, err := wallets.BuildTransactions(ctx, breq)
	if err != nil {
		t.Fatal(err)
	}

	// web3.js signs.
	in := map[string]any{"secretKey": bytesToInts(owner), "transactions": []string{}}
	var txs []string
	for _, tx := range b.Msg.GetTransactions() {
		txs = append(txs, tx.GetTransactionBase64())
	}
	in["transactions"] = txs
	payload, _ := json.Marshal(in)
	cmd := exec.CommandContext(ctx, "node", "sign-built.js")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sign-built.js: %v", err)
	}
	var signedOut struct{ Signed []string }
	if err := json.Unmarshal(out, &signedOut); err != nil {
		t.Fatal(err)
	}

	before := v.Balance(t, owner.PublicKey())
	donationBefore := v.Balance(t, s.donation)
	sreq := connect.NewRequest(&reclaimv1.SubmitTransactionsRequest{Address: ownerAddr})
	sreq.Header().Set("Authorization", auth)
	var sumNet, sumDonation uint64
	for i, tx := range b.Msg.GetTransactions() {
		sumNet += uint64(tx.GetNetRebate()) // positive: no cNFTs here
		sumDonation += tx.GetDonationAmount()
		sreq.Msg.Signed = append(sreq.Msg.Signed, &reclaimv1.SignedTransaction{TransactionBase64: signedOut.Signed[i], SubmissionTicket: tx.GetSubmissionTicket()})
	}
	res, err := wallets.SubmitTransactions(ctx, sreq)
	if err != nil {
		t.Fatal(err)
	}
	var sigs []string
	for _, r := range res.Msg.GetResults() {
		if r.GetStatus() != "submitted" {
			t.Fatalf("result %v", r)
		}
		sigs = append(sigs, r.GetSignature())
	}
	waitConfirmed(t, v, sigs)
	if got := v.Balance(t, owner.PublicKey()) - before; got != sumNet || int64(sumNet) != b.Msg.GetTotals().GetNetRebate() {
		t.Fatalf("wallet rose by %d, the API said %d", got, sumNet)
	}
	if got := v.Balance(t, s.donation) - donationBefore; got != sumDonation {
		t.Fatalf("donation wallet rose by %d, the API said %d", got, sumDonation)
	}
}

func bytesToInts(b []byte) []int {
	out := make([]int, len(b))
	for i, x := range b {
		out[i] = int(x)
	}
	return out
}

// Twenty concurrent submits of one ticket, spread over two instances that
// share the database, send exactly one transaction.
func TestConcurrentSubmitsOfOneTicket(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	s := startService(t, v)
	instances := []*service{s, s.another()}
	owner, accounts := emptyWallet(t, v, 3)
	token := s.session(owner.PublicKey())
	b := s.build(t, owner.PublicKey(), token, map[string]any{"items": closeAll(accounts), "priorityFeeLevel": "none"})
	if len(b.Transactions) != 1 {
		t.Fatalf("%d transactions", len(b.Transactions))
	}
	signed := signedTx{TransactionBase64: signTx(t, b.Transactions[0].TransactionBase64, owner), SubmissionTicket: b.Transactions[0].SubmissionTicket}
	before := v.Balance(t, owner.PublicKey())

	const n = 20
	results := make([]submitResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = instances[i%2].submit(t, owner.PublicKey(), token, signed)[0]
		}()
	}
	wg.Wait()
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Status]++
		if r.Signature == nil || *r.Signature != *results[0].Signature {
			t.Fatalf("result %+v", r)
		}
	}
	if counts["submitted"] != 1 || counts["duplicate"] != n-1 {
		t.Fatalf("results %v, want 1 submitted and %d duplicate", counts, n-1)
	}
	waitConfirmed(t, v, []string{*results[0].Signature})
	if got := v.Balance(t, owner.PublicKey()) - before; got != b.Transactions[0].NetRebate {
		t.Fatalf("wallet rose by %d, want %d once", got, b.Transactions[0].NetRebate)
	}
	// The submission log holds one submitted attempt and the duplicates.
	var st map[string]uint64
	waitFor(t, "stats count the transaction once", 30*time.Second, func() bool {
		s.call("GET", "/v1/stats", s.key(), nil, &st)
		return st["totalTransactionCount"] == 1
	})
	if st["totalNetRebate"] != b.Transactions[0].NetRebate {
		t.Fatalf("stats %v", st)
	}
}

// Every way a submission can fail, and none touches the ledger totals.
func TestSubmitFailuresOnChain(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	s := startService(t, v, "RECLAIM_TICKET_TTL_SECONDS=2")
	owner, accounts := emptyWallet(t, v, 4)
	ownerPK := owner.PublicKey()
	token := s.session(ownerPK)
	one := func(i int, priority ...string) builtTx {
		body := map[string]any{"items": closeAll(accounts[i : i+1])}
		if len(priority) > 0 {
			body["priorityFeeLevel"] = priority[0]
		}
		b := s.build(t, ownerPK, token, body)
		return b.Transactions[0]
	}
	check := func(name string, r submitResult, code, want string) {
		t.Helper()
		if r.Status != "failed" || r.Signature != nil || r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, want) {
			t.Fatalf("%s: %+v", name, r)
		}
	}

	// A tampered message: one byte of the signed message changed.
	tx := one(0)
	raw, _ := base64.StdEncoding.DecodeString(signTx(t, tx.TransactionBase64, owner))
	raw[len(raw)-5] ^= 0xff
	r := s.submit(t, ownerPK, token, signedTx{base64.StdEncoding.EncodeToString(raw), tx.SubmissionTicket})[0]
	check("tampered", r, "HASH_MISMATCH", "differs")
	if len(r.Includes) != 1 || r.Includes[0].Address != accounts[0].String() {
		t.Fatalf("includes not echoed: %+v", r)
	}

	// Signed by another key.
	other := solana.NewWallet().PrivateKey
	unsigned, _ := solana.TransactionFromBase64(tx.TransactionBase64)
	msg, _ := unsigned.Message.MarshalBinary()
	sig, _ := other.Sign(msg)
	unsigned.Signatures = []solana.Signature{sig}
	forged, _ := unsigned.MarshalBinary()
	check("other signer", s.submit(t, ownerPK, token, signedTx{base64.StdEncoding.EncodeToString(forged), tx.SubmissionTicket})[0], "SIGNATURE_INVALID", "not signed by")

	// Rejected by the cluster: the account is closed by a first transaction,
	// so a second one built for the same account fails preflight. (Built
	// with another priority, so it is not the very same transaction.)
	a, b := one(1), one(1, "none")
	if r := s.submit(t, ownerPK, token, signedTx{signTx(t, a.TransactionBase64, owner), a.SubmissionTicket})[0]; r.Status != "submitted" {
		t.Fatalf("first close: %+v", r)
	} else {
		waitConfirmed(t, v, []string{*r.Signature})
	}
	check("rejected", s.submit(t, ownerPK, token, signedTx{signTx(t, b.TransactionBase64, owner), b.SubmissionTicket})[0], "RPC_ERROR", "the cluster refused the transaction")

	// An expired ticket (2 s here).
	late := one(2)
	lateSigned := signTx(t, late.TransactionBase64, owner)
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond) // a ticket's life is wall-clock time
	}
	check("expired", s.submit(t, ownerPK, token, signedTx{lateSigned, late.SubmissionTicket})[0], "TICKET_EXPIRED", "expired")

	// Only the one landed transaction counts.
	var st map[string]uint64
	waitFor(t, "stats count the landed transaction", 30*time.Second, func() bool {
		s.call("GET", "/v1/stats", s.key(), nil, &st)
		return st["totalTransactionCount"] == 1
	})
	if st["totalNetRebate"] != a.NetRebate {
		t.Fatalf("stats %v, want only the landed transaction (%d)", st, a.NetRebate)
	}
}
