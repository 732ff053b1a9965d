package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// hookRequest is one POST a receiver got.
type hookRequest struct {
	ID, Timestamp, Signature string
	Body                     []byte
	At                       time.Time
}

// hookReceiver is an integrator's webhook endpoint: it records every POST
// and answers with answer(n) for the n-th (from 0).
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []hookRequest
	answer func(n int, r *http.Request) int
}

func newHookReceiver(t *testing.T, answer func(n int, r *http.Request) int) *hookReceiver {
	t.Helper()
	h := &hookReceiver{answer: answer}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		n := len(h.got)
		h.got = append(h.got, hookRequest{
			ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"), Signature: r.Header.Get("webhook-signature"),
			Body: body, At: time.Now(),
		})
		h.mu.Unlock()
		w.WriteHeader(h.answer(n, r))
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) requests() []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookRequest(nil), h.got...)
}

// addWebhook adds an endpoint for the receiver with the CLI, that receives
// events alone (none: the default types); it returns its id and secret.
func (s *service) addWebhook(t *testing.T, url string, events ...string) (id, secret string) {
	t.Helper()
	args := []string{"webhooks", "add", "--project", s.projectID, "--url", url}
	for _, e := range events {
		args = append(args, "--event", e)
	}
	lines := strings.Split(s.cli(args...), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "whsec_") {
		t.Fatalf("webhooks add printed %q", lines)
	}
	return lines[0], lines[1]
}

// hookEvent is a webhook body, as round-shared names its fields.
type hookEvent struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      struct {
		Signature     string      `json:"signature"`
		Status        string      `json:"status"`
		Includes      []selection `json:"includes"`
		Slot          uint64      `json:"slot"`
		ConfirmedAt   string      `json:"confirmedAt"`
		Landed        struct{ Fee, GrossRebate, NetRebate, DonationAmount uint64 }
		ProjectID     string `json:"projectId"`
		WalletAddress string `json:"walletAddress"`
	} `json:"data"`
}

// verifyWithStandardWebhooks checks each request's signature with the
// Standard Webhooks reference library from npm, as a receiver would, and
// returns the events it verified.
func verifyWithStandardWebhooks(t *testing.T, secret string, reqs []hookRequest) []hookEvent {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed (CI=true: webhook signatures must be verified by standardwebhooks)")
		}
		t.Skip("node is not installed")
	}
	dir, err := filepath.Abs("webhookclient")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if err := harness.EnsureNodeModules(ctx, dir, os.Stderr); err != nil {
		t.Fatal(err)
	}
	type item struct {
		Secret  string            `json:"secret"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	in := make([]item, len(reqs))
	for i, r := range reqs {
		in[i] = item{Secret: secret, Body: string(r.Body), Headers: map[string]string{
			"webhook-id": r.ID, "webhook-timestamp": r.Timestamp, "webhook-signature": r.Signature,
		}}
	}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "node", "verify.js")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(raw)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("verify.js: %v\n%s", err, out)
	}
	var res []struct {
		OK      bool            `json:"ok"`
		Error   string          `json:"error"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("verify.js printed %s: %v", out, err)
	}
	events := make([]hookEvent, len(res))
	for i, r := range res {
		if !r.OK {
			t.Fatalf("standardwebhooks refused delivery %d (%s): %s", i, reqs[i].ID, r.Error)
		}
		if err := json.Unmarshal(r.Payload, &events[i]); err != nil {
			t.Fatal(err)
		}
	}
	return events
}

// reclaimOne closes a new wallet's n empty accounts through s and returns
// the wallet, the built transaction and its signature once confirmed.
func reclaimOne(t *testing.T, v *harness.Validator, s *service, n int) (solana.PublicKey, builtTx, string) {
	t.Helper()
	owner, accounts := emptyWallet(t, v, n)
	token := s.session(owner.PublicKey())
	b := s.build(t, owner.PublicKey(), token, map[string]any{"items": closeAll(accounts), "priorityFeeLevel": "none"})
	if len(b.Transactions) != 1 {
		t.Fatalf("%d transactions", len(b.Transactions))
	}
	res := s.submit(t, owner.PublicKey(), token, signedTx{
		TransactionBase64: signTx(t, b.Transactions[0].TransactionBase64, owner), SubmissionTicket: b.Transactions[0].SubmissionTicket,
	})
	if res[0].Signature == nil || res[0].Status != "submitted" {
		t.Fatalf("submit: %+v", res[0])
	}
	return owner.PublicKey(), b.Transactions[0], *res[0].Signature
}

// A receiver that answers 500 twice and then 200 gets submission.confirmed
// for a real reclaim three times, the same event each time (one
// webhook-id), each signed so that the Standard Webhooks npm package
// verifies it, and with the landed figures the chain shows; the first
// retry comes within 10 s, the second within a minute.
func TestWebhookConfirmedAfterTwoFailures(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	recv := newHookReceiver(t, func(n int, _ *http.Request) int {
		if n < 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	s := startService(t, v, "RECLAIM_WEBHOOK_ALLOW_INSECURE=1")
	_, secret := s.addWebhook(t, recv.URL+"/hooks/reclaim")
	wallet, tx, sig := reclaimOne(t, v, s, 2)
	waitFor(t, "three attempts", 90*time.Second, func() bool { return len(recv.requests()) >= 3 })
	reqs := recv.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d attempts, want 3 (500, 500, 200)", len(reqs))
	}
	for _, r := range reqs[1:] {
		if r.ID != reqs[0].ID || !bytes.Equal(r.Body, reqs[0].Body) {
			t.Fatalf("a retry is another event: %s %s / %s %s", reqs[0].ID, reqs[0].Body, r.ID, r.Body)
		}
	}
	if d := reqs[1].At.Sub(reqs[0].At); d >= 10*time.Second {
		t.Errorf("first retry after %s, want < 10 s", d)
	}
	if d := reqs[2].At.Sub(reqs[1].At); d >= time.Minute {
		t.Errorf("second retry after %s, want < 1 min", d)
	}
	events := verifyWithStandardWebhooks(t, secret, reqs)
	e := events[2]
	if e.Type != "submission.confirmed" || e.Data.Status != "confirmed" || e.Data.Signature != sig ||
		e.Data.ProjectID != s.projectID || e.Data.WalletAddress != wallet.String() || e.Data.ConfirmedAt == "" {
		t.Fatalf("event %+v", e)
	}
	if e.Data.Landed.NetRebate != tx.NetRebate || e.Data.Landed.GrossRebate != tx.GrossRebate {
		t.Fatalf("landed %+v, built %+v", e.Data.Landed, tx)
	}
	maxVersion := uint64(0)
	landed, err := v.RPC.GetTransaction(t.Context(), solana.MustSignatureFromBase58(sig), &rpc.GetTransactionOpts{
		Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &maxVersion, Encoding: solana.EncodingBase64,
	})
	// fee is what the reclaim cost the wallet: the network's fee (the
	// chain's) and the service fee.
	l := e.Data.Landed
	if err != nil || landed.Meta == nil || l.Fee != l.GrossRebate-l.NetRebate-l.DonationAmount || l.Fee <= landed.Meta.Fee {
		t.Fatalf("landed %+v, chain: %v %v", l, landed, err)
	}
}

// An instance killed while its delivery is under way loses nothing: the
// event was written with the status change, and another instance on the
// same database delivers it once the dead one's lease ends.
func TestWebhookSurvivesKill(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	first := make(chan struct{})
	release := make(chan struct{})
	recv := newHookReceiver(t, func(n int, r *http.Request) int {
		if n == 0 {
			close(first)
			select { // held until the instance is dead
			case <-release:
			case <-r.Context().Done():
			}
			return http.StatusOK
		}
		return http.StatusOK
	})
	defer close(release)
	s := startService(t, v, "RECLAIM_WEBHOOK_ALLOW_INSECURE=1")
	_, secret := s.addWebhook(t, recv.URL+"/hook")
	_, _, sig := reclaimOne(t, v, s, 1)
	select {
	case <-first:
	case <-time.After(60 * time.Second):
		t.Fatal("no delivery attempt within 60 s")
	}
	if st := s.server.Stop(os.Kill); st.Success() {
		t.Fatalf("the instance exited %v, want killed", st)
	}
	s.another()
	waitFor(t, "the event delivered by the other instance", 2*time.Minute, func() bool { return len(recv.requests()) >= 2 })
	reqs := recv.requests()
	if reqs[1].ID != reqs[0].ID {
		t.Fatalf("redelivered as another event: %s, %s", reqs[0].ID, reqs[1].ID)
	}
	events := verifyWithStandardWebhooks(t, secret, reqs[1:2])
	if events[0].Type != "submission.confirmed" || events[0].Data.Signature != sig {
		t.Fatalf("event %+v", events[0])
	}
}

// Two instances on one database deliver each event exactly once to a
// healthy receiver: every delivery is recorded delivered after one
// attempt, and the receiver saw each webhook-id once.
func TestWebhooksTwoInstancesDeliverOnce(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	recv := newHookReceiver(t, func(int, *http.Request) int { return http.StatusNoContent })
	s := startService(t, v, "RECLAIM_WEBHOOK_ALLOW_INSECURE=1")
	instances := []*service{s, s.another()}
	id, secret := s.addWebhook(t, recv.URL+"/hook")
	const n = 4
	sigs := map[string]bool{}
	for i := range n {
		_, _, sig := reclaimOne(t, v, instances[i%2], 1)
		sigs[sig] = true
	}
	waitFor(t, "every event", 90*time.Second, func() bool { return len(recv.requests()) >= n })
	waitFor(t, "every delivery recorded", 30*time.Second, func() bool {
		return strings.Count(s.cli("webhooks", "deliveries", "--project", s.projectID, "--id", id), " delivered ") == n
	})
	table := s.cli("webhooks", "deliveries", "--project", s.projectID, "--id", id)
	for _, line := range strings.Split(table, "\n")[1:] {
		if f := strings.Fields(line); len(f) < 5 || f[3] != "delivered" || f[4] != "1" {
			t.Errorf("delivery %q: want delivered after 1 attempt", line)
		}
	}
	reqs := recv.requests()
	seen := map[string]bool{}
	for _, r := range reqs {
		if seen[r.ID] {
			t.Errorf("event %s delivered twice", r.ID)
		}
		seen[r.ID] = true
	}
	for _, e := range verifyWithStandardWebhooks(t, secret, reqs) {
		if !sigs[e.Data.Signature] || e.Type != "submission.confirmed" {
			t.Errorf("event %+v is not one of ours", e)
		}
		delete(sigs, e.Data.Signature)
	}
	if len(reqs) != n || len(sigs) != 0 {
		t.Fatalf("%d requests, %d signatures without an event", len(reqs), len(sigs))
	}
}
