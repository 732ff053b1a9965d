package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/e2e/harness"
	"github.com/reclaim-sol/reclaim/gen/openapi/openapitest"
)

// The relay's sends through a fault proxy (harness.FaultProxy) between the
// real reclaim binary and the validator: the three ways the relay lost or
// hid transactions (issue 21's D1, D2, D3), and what rebroadcasting does
// with sends that are lost (rebroadcast_test.go, landing_bench_test.go).

// landingWallet is a funded wallet holding one empty token account.
type landingWallet struct {
	owner   solana.PrivateKey
	account solana.PublicKey
}

// landingWallets makes n of them in a few batched transactions: each
// wallet gets 0.01 SOL (its fee) and the associated account of a mint of
// its own.
func landingWallets(t testing.TB, v *harness.Validator, n int) []landingWallet {
	t.Helper()
	payer := v.NewWallet(t, uint64(n)*20_000_000+solana.LAMPORTS_PER_SOL)
	mints := v.CreateMints(t, payer, harness.MintSpec{Decimals: 6}, n)
	ws := make([]landingWallet, n)
	var batches []harness.Batch
	for i := range ws {
		ws[i].owner = solana.NewWallet().PrivateKey
		owner := ws[i].owner.PublicKey()
		if i%5 == 0 {
			batches = append(batches, harness.Batch{Payer: payer})
		}
		b := &batches[len(batches)-1]
		b.Ixs = append(b.Ixs, system.NewTransferInstruction(10_000_000, payer.PublicKey(), owner).Build(),
			spltoken.CreateAssociatedTokenAccount(payer.PublicKey(), owner, mints[i].Address, mints[i].Program, false))
		ws[i].account = spltoken.AssociatedTokenAddress(owner, mints[i].Address, mints[i].Program)
	}
	v.SendAll(t, batches)
	return ws
}

// reclaim is one wallet's reclaim, built and signed, not yet submitted.
type reclaim struct {
	owner  solana.PublicKey
	token  string
	signed signedTx
	sig    string
	// lastValid is its blockhash's last valid block height.
	lastValid uint64
}

// prepare builds the close of w's account through s and signs it.
func (s *service) prepare(t *testing.T, w landingWallet) reclaim {
	t.Helper()
	owner := w.owner.PublicKey()
	token := s.session(owner)
	b := s.build(t, owner, token, map[string]any{"items": closeAll([]solana.PublicKey{w.account}), "priorityFeeLevel": "none"})
	if len(b.Transactions) != 1 {
		t.Fatalf("built %d transactions, want 1", len(b.Transactions))
	}
	signed := signTx(t, b.Transactions[0].TransactionBase64, w.owner)
	tx, err := solana.TransactionFromBase64(signed)
	if err != nil {
		t.Fatal(err)
	}
	return reclaim{owner: owner, token: token, sig: tx.Signatures[0].String(), lastValid: b.LastValidBlockHeight,
		signed: signedTx{TransactionBase64: signed, SubmissionTicket: b.Transactions[0].SubmissionTicket}}
}

// submitOne submits r and returns its one result.
func (s *service) submitOne(t *testing.T, r reclaim) submitResult {
	t.Helper()
	return s.submit(t, r.owner, r.token, r.signed)[0]
}

// transactions is what the project's stats count.
func (s *service) transactions(t *testing.T) int64 {
	t.Helper()
	var st map[string]int64
	if code := s.call("GET", "/v1/stats", s.key(), nil, &st); code != 200 {
		t.Fatalf("stats: %d", code)
	}
	return st["totalTransactionCount"]
}

// proxiedReclaim starts a service that calls the shared validator through
// a fault proxy of its own (extraEnv added to its environment), and
// prepares the reclaim of a new wallet's empty account.
func proxiedReclaim(t *testing.T, extraEnv ...string) (*harness.Validator, *harness.FaultProxy, *service, reclaim) {
	t.Helper()
	v := harness.Shared(t)
	proxy := v.NewFaultProxy(t)
	s := startService(t, v, append([]string{"SOLANA_RPC_URL=" + proxy.URL}, extraEnv...)...)
	return v, proxy, s, s.prepare(t, landingWallets(t, v, 1)[0])
}

// firstSendOf is the rule that gives the first send of sig fault and
// forwards every other call.
func firstSendOf(sig string, fault harness.Fault) harness.Rule {
	var mu sync.Mutex
	done := false
	return func(c harness.FaultCall) harness.Fault {
		mu.Lock()
		defer mu.Unlock()
		if c.Signature != sig || done {
			return harness.Fault{Kind: harness.Forward}
		}
		done = true
		return fault
	}
}

// status is sig's status at the validator (nil: it never landed).
func status(t *testing.T, v *harness.Validator, sig string) *rpc.SignatureStatusesResult {
	t.Helper()
	st, err := v.RPC.GetSignatureStatuses(context.Background(), true, solana.MustSignatureFromBase58(sig))
	if err != nil {
		t.Fatal(err)
	}
	return st.Value[0]
}

// TestSendErrorsKeepOrReleaseTheTicket (D1, as issue 31 settled it): a
// send answered with an HTTP error page (429, 500, 502, 503: a gateway,
// which may have passed the request on) or with something that is not
// JSON-RPC may have reached the node: the submit answers `submitted` with
// the signature, the transaction is kept and sent again by the tracker, it
// lands without any retry and is counted once, and submitting it again
// answers `duplicate`. Only the node's own refusal, while the cluster does
// not know the signature, is an RPC_ERROR that releases the ticket: then
// the same submission sent again lands. (Issue 21 released the ticket on an
// error page too: issue 31 found a 500 whose send the node took 1.5 s later,
// landed and never counted.)
func TestSendErrorsKeepOrReleaseTheTicket(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	proxy := v.NewFaultProxy(t)
	s := startService(t, v, "SOLANA_RPC_URL="+proxy.URL)
	cases := []struct {
		name    string
		fault   harness.Fault
		message string // the RPC_ERROR's; "" when the transaction is kept
	}{
		{"HTTP 429", harness.Fault{Kind: harness.Status, Status: 429}, ""},
		{"HTTP 500", harness.Fault{Kind: harness.Status, Status: 500}, ""},
		{"HTTP 502", harness.Fault{Kind: harness.Status, Status: 502}, ""},
		{"HTTP 503", harness.Fault{Kind: harness.Status, Status: 503}, ""},
		{"malformed JSON", harness.Fault{Kind: harness.Malformed}, ""},
		{"the node refuses it", harness.Fault{Kind: harness.Refuse}, "the cluster refused the transaction: Node is behind by 42 slots (code -32005)"},
	}
	wallets := landingWallets(t, v, len(cases))
	rs := make([]reclaim, len(cases))
	var sigs []string
	for i, tc := range cases {
		r := s.prepare(t, wallets[i])
		rs[i] = r
		proxy.Set("sendTransaction", firstSendOf(r.sig, tc.fault))
		res := s.submitOne(t, r)
		if sends := proxy.SendsOf(r.sig); len(sends) == 0 || sends[0].Fault != tc.fault.Kind {
			t.Fatalf("%s: sends %+v", tc.name, sends)
		}
		sigs = append(sigs, r.sig)
		if tc.message == "" {
			if res.Status != "submitted" || res.Signature == nil || *res.Signature != r.sig {
				t.Fatalf("%s: the submit answered %v; want submitted with its signature", tc.name, res)
			}
			continue
		}
		if res.Status != "failed" || res.Signature != nil || res.Error == nil || res.Error.Code != "RPC_ERROR" || res.Error.Message != tc.message {
			t.Fatalf("%s: the submit answered %v; want failed, RPC_ERROR %q", tc.name, res, tc.message)
		}
		if st := status(t, v, r.sig); st != nil {
			t.Fatalf("%s: the cluster has the transaction: %+v", tc.name, st)
		}
		again := s.submitOne(t, r)
		if again.Status != "submitted" || again.Signature == nil || *again.Signature != r.sig {
			t.Fatalf("%s: the same submission again answered %v, want submitted", tc.name, again)
		}
	}
	waitConfirmed(t, v, sigs)
	waitFor(t, "stats count each reclaim once", 60*time.Second, func() bool { return s.transactions(t) == int64(len(cases)) })
	for i, tc := range cases[:len(cases)-1] {
		if again := s.submitOne(t, rs[i]); again.Status != "duplicate" || again.Signature == nil || *again.Signature != rs[i].sig {
			t.Fatalf("%s: the kept transaction submitted again answered %v, want duplicate", tc.name, again)
		}
	}
}

// TestSendCutAfterTheNodeTookIt (D2): the connection of a send breaks after
// the node took the transaction and before its answer, on a kept-alive
// connection. The transport does not send it again (a node answers the
// second send -32002 "already processed", which the relay took for a
// refusal: the claim was deleted, and the landed transaction was never
// counted); the submit answers `submitted`, and the ledger counts it.
func TestSendCutAfterTheNodeTookIt(t *testing.T) {
	t.Parallel()
	v, proxy, s, r := proxiedReclaim(t)
	confirmed := func(ctx context.Context) {
		for ctx.Err() == nil {
			if st, err := v.RPC.GetSignatureStatuses(ctx, false, solana.MustSignatureFromBase58(r.sig)); err == nil && st.Value[0] != nil &&
				st.Value[0].ConfirmationStatus != rpc.ConfirmationStatusProcessed {
				return
			}
			time.Sleep(100 * time.Millisecond) // polling the cluster, not synchronising
		}
	}
	proxy.Set("sendTransaction", firstSendOf(r.sig, harness.Fault{Kind: harness.Cut, CutWhen: confirmed}))
	res := s.submitOne(t, r)
	sends := proxy.SendsOf(r.sig)
	if len(sends) == 0 || !sends[0].Reused {
		t.Fatalf("the send did not come on a kept-alive connection (the case under test): %+v", sends)
	}
	if st := status(t, v, r.sig); st == nil || st.Err != nil {
		t.Fatalf("the transaction did not land: %+v", st)
	}
	if res.Status != "submitted" || res.Signature == nil || *res.Signature != r.sig {
		t.Fatalf("the transaction landed and the submit answered %v", res)
	}
	waitFor(t, "stats count the landed reclaim", 60*time.Second, func() bool { return s.transactions(t) == 1 })
	if sends := proxy.SendsOf(r.sig); len(sends) != 1 {
		t.Fatalf("sent %d times, want once: %+v", len(sends), sends)
	}
}

// TestHangingSendIsAnswered (D3): a provider that never answers a send
// gets the relay's send deadline, not the client's patience: the submit
// answers well within the server's 60 s write timeout, the transaction is
// kept (it may have reached the cluster), and once the provider answers
// again the tracker's rebroadcast lands it and the ledger counts it. Before,
// the submit hung until the client gave up, and the give-up marked it
// submitted with no send ever reaching the cluster.
func TestHangingSendIsAnswered(t *testing.T) {
	t.Parallel()
	v, proxy, s, r := proxiedReclaim(t)
	proxy.Set("sendTransaction", harness.Always(harness.Fault{Kind: harness.Hang}))

	client := &http.Client{Timeout: 25 * time.Second, Transport: openapitest.Transport(nil)}
	req := r.submitRequest(s.url)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("no answer within 25 s (%s): %v", time.Since(start).Round(time.Millisecond), err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	took := time.Since(start)
	var out struct{ Results []submitResult }
	if resp.StatusCode != 200 || json.Unmarshal(raw, &out) != nil || len(out.Results) != 1 {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	if res := out.Results[0]; res.Status != "submitted" || res.Signature == nil || *res.Signature != r.sig {
		t.Fatalf("answered %v after %s", res, took)
	}
	if took > 20*time.Second {
		t.Fatalf("answered after %s", took)
	}
	t.Logf("answered after %s", took.Round(time.Millisecond))
	for _, sd := range proxy.SendsOf(r.sig) {
		if sd.Fault != harness.Hang {
			t.Fatalf("a send was forwarded: %+v", sd)
		}
	}
	proxy.Set("sendTransaction", nil) // the provider answers again
	waitConfirmed(t, v, []string{r.sig})
	waitFor(t, "stats count the landed reclaim", 60*time.Second, func() bool { return s.transactions(t) == 1 })
	var forwarded []harness.Send
	for _, sd := range proxy.SendsOf(r.sig) {
		if sd.Fault == harness.Forward {
			forwarded = append(forwarded, sd)
		}
	}
	if len(forwarded) == 0 || !forwarded[0].SkipPreflight {
		t.Fatalf("the transaction landed by %+v, want a rebroadcast (skipPreflight)", forwarded)
	}
}

// metric reads one sample of the server's /metrics (-1 when absent).
func metric(t *testing.T, s *service, sample string) float64 {
	t.Helper()
	resp, err := http.Get(s.server.MetricsURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			var f float64
			if err := json.Unmarshal([]byte(rest), &f); err == nil {
				return f
			}
		}
	}
	return -1
}

// String shows a result with its error's code and message.
func (r submitResult) String() string {
	out := r.Status
	if r.Signature != nil {
		out += " " + *r.Signature
	}
	if r.Error != nil {
		out += " " + r.Error.Code + ": " + r.Error.Message
	}
	return out
}
