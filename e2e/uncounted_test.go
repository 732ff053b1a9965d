package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// Issue 31's first three findings, through a fault proxy between the real
// reclaim binary and the validator: a transaction that lands is counted
// without any retry, and a keyed retry cures what a retry may cure.

// submitBody is the submit body of r.
func (r reclaim) submitBody() map[string]any { return map[string]any{"signed": []signedTx{r.signed}} }

// submitPath is the submit route of r's wallet.
func (r reclaim) submitPath() string {
	return "/v1/wallet/" + r.owner.String() + "/transactions/submit"
}

// submitRequest is the submit of r to the instance at base, with the
// wallet's session, as a client sends it.
func (r reclaim) submitRequest(base string) *http.Request {
	raw, _ := json.Marshal(r.submitBody())
	req, _ := http.NewRequest("POST", base+r.submitPath(), bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.token)
	return req
}

// keyedResult decodes a keyed submit's answer: its one result.
func keyedResult(t *testing.T, code int, body []byte) submitResult {
	t.Helper()
	var out struct{ Results []submitResult }
	if code != 200 || json.Unmarshal(body, &out) != nil || len(out.Results) != 1 {
		t.Fatalf("submit: %d %s", code, body)
	}
	return out.Results[0]
}

// TestErrorPageForwardedLaterIsCounted: the gateway answers the send with
// an HTTP 500 page and still passes it on, and the node takes it 1.5 s
// later. Without any retry, the submission turns confirmed in the status
// API, the stats count it once, and submission.confirmed is delivered.
// Before, the service released the ticket and answered RPC_ERROR: the
// transaction landed (the wallet paid, the donation was paid) and stayed
// `unknown`, uncounted, for ever.
func TestErrorPageForwardedLaterIsCounted(t *testing.T) {
	t.Parallel()
	recv := newHookReceiver(t, func(int, *http.Request) int { return http.StatusOK })
	v, proxy, s, r := proxiedReclaim(t, "RECLAIM_WEBHOOK_ALLOW_INSECURE=1")
	s.addWebhook(t, recv.URL+"/hooks/reclaim")
	proxy.Set("sendTransaction", firstSendOf(r.sig, harness.Fault{Kind: harness.Status, Status: 500, ForwardAfter: 1500 * time.Millisecond}))
	start := time.Now()
	res := s.submitOne(t, r)
	if res.Status != "submitted" || res.Signature == nil || *res.Signature != r.sig {
		t.Fatalf("the submit answered %v; want submitted with its signature (the gateway may have passed it on)", res)
	}
	waitLanded(t, v, 30*time.Second, r.sig)
	got := s.submissions(t, r.owner, r.token, 30, r.sig)[0]
	for deadline := time.Now().Add(60 * time.Second); got.Status != "confirmed" && time.Now().Before(deadline); {
		got = s.submissions(t, r.owner, r.token, 30, r.sig)[0]
	}
	if got.Status != "confirmed" || got.Landed == nil {
		t.Fatalf("the landed transaction's status: %+v", got)
	}
	t.Logf("confirmed in the status API %s after the submit", time.Since(start).Round(time.Millisecond))
	waitFor(t, "stats count the landed reclaim", 30*time.Second, func() bool { return s.transactions(t) == 1 })
	waitFor(t, "submission.confirmed delivered", 60*time.Second, func() bool {
		for _, q := range recv.requests() {
			var e hookEvent
			if json.Unmarshal(q.Body, &e) == nil && e.Type == "submission.confirmed" && e.Data.Signature == r.sig {
				return true
			}
		}
		return false
	})
	if n := s.transactions(t); n != 1 {
		t.Fatalf("stats count %d, want 1", n)
	}
	t.Logf("sends: %+v", proxy.SendsOf(r.sig))
}

// TestKeyedSubmitRetriedAfterRPCError: the node refuses the send (nothing
// is processed, the ticket is released: RPC_ERROR, "retry"); the same
// submit retried with its Idempotency-Key once the node is healthy runs
// again (not a replay) and lands. Before, the error came back inside a 200
// and was stored under the key: every retry replayed it and sent nothing.
func TestKeyedSubmitRetriedAfterRPCError(t *testing.T) {
	t.Parallel()
	v, proxy, s, r := proxiedReclaim(t)
	proxy.Set("sendTransaction", harness.Always(harness.Fault{Kind: harness.Refuse}))
	code, replayed, body := s.postWithKey(t, r.submitPath(), r.token, "submit-after-rpc-error", r.submitBody())
	if res := keyedResult(t, code, body); res.Status != "failed" || res.Error == nil || res.Error.Code != "RPC_ERROR" || replayed != "" {
		t.Fatalf("refused: %v (replayed %q)", res, replayed)
	}
	proxy.Set("sendTransaction", nil) // the node is healthy again
	code, replayed, body = s.postWithKey(t, r.submitPath(), r.token, "submit-after-rpc-error", r.submitBody())
	if res := keyedResult(t, code, body); res.Status != "submitted" || res.Signature == nil || *res.Signature != r.sig || replayed != "" {
		t.Fatalf("the keyed retry answered %v (replayed %q); want submitted, run again", res, replayed)
	}
	waitLanded(t, v, 30*time.Second, r.sig)
	waitFor(t, "stats count the landed reclaim", 60*time.Second, func() bool { return s.transactions(t) == 1 })
	_, replayed, again := s.postWithKey(t, r.submitPath(), r.token, "submit-after-rpc-error", r.submitBody())
	if replayed != "true" || !bytes.Equal(again, body) {
		t.Fatalf("then: %s (replayed %q), want the stored submitted answer", again, replayed)
	}
}

// killedMidSend starts two instances on one ledger, each calling the
// validator through its own path of one fault proxy, and has the first
// one's submit of a reclaim (with Idempotency-Key key) held in its send by
// the proxy while the instance is killed (SIGKILL): the claim stays
// `sending`, with the key in flight. It returns the proxy, the surviving
// instance, the reclaim and when the kill was.
func killedMidSend(t *testing.T, key string) (*harness.Validator, *harness.FaultProxy, *service, reclaim, time.Time) {
	t.Helper()
	v := harness.Shared(t)
	proxy := v.NewFaultProxy(t)
	a := startService(t, v, "SOLANA_RPC_URL="+proxy.URL+"/a")
	b := a.another("SOLANA_RPC_URL=" + proxy.URL + "/b")
	r := a.prepare(t, landingWallets(t, v, 1)[0])
	held := make(chan struct{})
	t.Cleanup(func() { close(held) })
	proxy.Set("sendTransaction", func(c harness.FaultCall) harness.Fault {
		if c.Path == "/a" {
			return harness.Fault{Kind: harness.Hang, Until: held}
		}
		return harness.Fault{Kind: harness.Forward}
	})
	first := make(chan error, 1)
	go func() { // the client of the killed instance: its answer never comes
		req := r.submitRequest(a.url)
		req.Header.Set("Idempotency-Key", key)
		resp, err := restClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		first <- err
	}()
	waitFor(t, "the send reaches the proxy", 30*time.Second, func() bool { return len(proxy.SendsOf(r.sig)) > 0 })
	a.server.Stop(syscall.SIGKILL)
	if err := <-first; err == nil {
		t.Fatal("the killed instance answered its submit")
	}
	return v, proxy, b, r, time.Now()
}

// TestKilledMidSendIsCountedWithoutARetry: nobody retries the submit of an
// instance killed mid-send. The claim it left `sending` holds the signed
// bytes: once its submit can no longer be running, the other instance's
// tracker adopts it and sends it again, and it lands and is counted.
// Before, the tracker never sent a claim left sending: it expired unsent.
func TestKilledMidSendIsCountedWithoutARetry(t *testing.T) {
	t.Parallel()
	v, proxy, b, r, killed := killedMidSend(t, "submit-never-retried")
	waitLanded(t, v, 60*time.Second, r.sig)
	waitFor(t, "stats count the landed reclaim", 60*time.Second, func() bool { return b.transactions(t) == 1 })
	var adopted []harness.Send
	for _, sd := range rebroadcasts(proxy, r.sig) {
		if sd.Path == "/b" {
			adopted = append(adopted, sd)
		}
	}
	if len(adopted) == 0 {
		t.Fatalf("landed without a rebroadcast by the surviving instance: %+v", proxy.SendsOf(r.sig))
	}
	t.Logf("first rebroadcast by the surviving instance %s after the kill", adopted[0].At.Sub(killed).Round(time.Millisecond))
}

// TestKeyedSubmitAfterAKillMidSend: after an instance was killed mid-send,
// the same submit with the same key, retried on another instance on the
// same ledger while the blockhash is valid, gets an answer (submitted or
// duplicate with the signature; 409 only while the first submit could
// still be running) and the transaction lands and is counted once. Before,
// the key's 90 s lease outlived the blockhash and no one sent a claim left
// sending: 409s, then TICKET_EXPIRED.
func TestKeyedSubmitAfterAKillMidSend(t *testing.T) {
	t.Parallel()
	const key = "submit-killed-mid-send"
	v, _, b, r, killed := killedMidSend(t, key)
	var res submitResult
	for {
		h, err := v.RPC.GetBlockHeight(context.Background(), rpc.CommitmentProcessed)
		if err != nil {
			t.Fatal(err)
		}
		if h > r.lastValid {
			t.Fatalf("no answer to the keyed retry while the blockhash lived (%s after the kill)", time.Since(killed).Round(time.Second))
		}
		code, replayed, body := b.postWithKey(t, r.submitPath(), r.token, key, r.submitBody())
		if code == http.StatusConflict {
			continue // the first submit could still be running: the service waited 15 s for it
		}
		if res = keyedResult(t, code, body); replayed != "" {
			t.Fatalf("the retry was a replay: %s", body)
		}
		break
	}
	t.Logf("the keyed retry answered %v %s after the kill", res, time.Since(killed).Round(time.Second))
	if (res.Status != "submitted" && res.Status != "duplicate") || res.Signature == nil || *res.Signature != r.sig {
		t.Fatalf("the keyed retry answered %v; want submitted or duplicate with its signature", res)
	}
	waitLanded(t, v, 30*time.Second, r.sig)
	waitFor(t, "stats count the landed reclaim", 60*time.Second, func() bool { return b.transactions(t) == 1 })
}
