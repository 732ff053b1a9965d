package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// submissionsUntil is submissions waiting until each is final when final
// is set (waitUntil=final), else until each is landed or final.
func (s *service) submissionsUntil(t *testing.T, owner solana.PublicKey, token string, final bool, sigs ...string) []submissionStatus {
	t.Helper()
	q := url.Values{"signature": sigs, "waitSeconds": {"30"}}
	if final {
		q.Set("waitUntil", "final")
	}
	var out struct{ Submissions []submissionStatus }
	if code := s.call("GET", "/v1/wallet/"+owner.String()+"/submissions?"+q.Encode(), bearerOf(token), nil, &out); code != 200 || len(out.Submissions) != len(sigs) {
		t.Fatalf("submissions: %d, %d answers for %d signatures", code, len(out.Submissions), len(sigs))
	}
	return out.Submissions
}

// TestLandedBeforeConfirmed: a relayed reclaim on the local validator is
// landed (the long poll answers it) while the validator has it at
// confirmed commitment and not finalized, with the slot that holds it and
// the figures the chain shows, while stats do not count it; then
// confirmed at finalized, counted. An endpoint that names
// submission.landed gets it, then submission.confirmed, both with includes
// and slot; an endpoint that names no type gets submission.confirmed alone.
func TestLandedBeforeConfirmed(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	recv := newHookReceiver(t, func(int, *http.Request) int { return http.StatusOK })
	plain := newHookReceiver(t, func(int, *http.Request) int { return http.StatusOK })
	s := startService(t, v, "RECLAIM_WEBHOOK_ALLOW_INSECURE=1")
	_, secret := s.addWebhook(t, recv.URL+"/hooks", "submission.landed", "submission.confirmed")
	s.addWebhook(t, plain.URL+"/hooks")
	before := s.transactions(t)
	w := landingWallets(t, v, 1)[0]
	r := s.prepare(t, w)
	start := time.Now()
	if res := s.submitOne(t, r); res.Status != "submitted" {
		t.Fatalf("submit: %+v", res)
	}
	got := s.submissionsUntil(t, r.owner, r.token, false, r.sig)[0]
	tookLanded := time.Since(start)
	counted := s.transactions(t)
	// Read after the stats: landed then means landed while they were read.
	still := s.submissions(t, r.owner, r.token, 0, r.sig)[0]
	if got.Status != "landed" || got.Slot == 0 || got.Landed == nil || got.ConfirmedAt != "" || len(got.Includes) != 1 {
		t.Fatalf("the long poll answered %+v after %s, want landed with a slot and figures", got, tookLanded)
	}
	if still.Status == "landed" && counted != before {
		t.Errorf("stats count %d transactions while the only one is landed, want %d", counted, before)
	}
	sig := solana.MustSignatureFromBase58(r.sig)
	st, err := v.RPC.GetSignatureStatuses(t.Context(), true, sig)
	if err != nil || st.Value[0] == nil || st.Value[0].Slot != got.Slot {
		t.Fatalf("the validator's status %+v %v, landed at slot %d", st, err, got.Slot)
	}
	version := uint64(0)
	tx, err := v.RPC.GetTransaction(t.Context(), sig, &rpc.GetTransactionOpts{
		Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &version,
	})
	if err != nil || tx.Meta == nil {
		t.Fatal(err)
	}
	// fee is the network fee (the chain's) and the service fee.
	rose, l := int64(tx.Meta.PostBalances[0])-int64(tx.Meta.PreBalances[0]), got.Landed
	if l.NetRebate != rose || l.Fee <= tx.Meta.Fee || int64(l.GrossRebate-l.Fee-l.DonationAmount) != l.NetRebate {
		t.Fatalf("landed figures %+v, the chain: balance %+d, fee %d", got.Landed, rose, tx.Meta.Fee)
	}
	t.Logf("landed %s after the submit, at slot %d", tookLanded.Round(time.Millisecond), got.Slot)

	final := s.submissionsUntil(t, r.owner, r.token, true, r.sig)[0]
	if final.Status != "confirmed" || final.Slot != got.Slot || *final.Landed != *got.Landed || final.ConfirmedAt == "" {
		t.Fatalf("confirmed %+v after landed %+v", final, got)
	}
	t.Logf("confirmed %s after the submit", time.Since(start).Round(time.Millisecond))
	waitFor(t, "stats count it", 30*time.Second, func() bool { return s.transactions(t) == before+1 })

	waitFor(t, "submission.landed and submission.confirmed", 60*time.Second, func() bool {
		return len(recv.requests()) >= 2 && len(plain.requests()) >= 1
	})
	events := verifyWithStandardWebhooks(t, secret, recv.requests())
	if len(events) != 2 || events[0].Type != "submission.landed" || events[1].Type != "submission.confirmed" {
		t.Fatalf("events %+v, want submission.landed then submission.confirmed", events)
	}
	for _, e := range events {
		if e.Data.Signature != r.sig || e.Data.Slot != got.Slot || len(e.Data.Includes) != 1 ||
			int64(e.Data.Landed.NetRebate) != got.Landed.NetRebate || e.Data.Landed.Fee != got.Landed.Fee {
			t.Fatalf("%s: %+v, want slot %d, one item, the landed figures %+v", e.Type, e.Data, got.Slot, got.Landed)
		}
	}
	if events[0].Data.Status != "landed" || events[0].Data.ConfirmedAt != "" || events[1].Data.Status != "confirmed" {
		t.Fatalf("statuses %+v", events)
	}
	// Let any late delivery arrive: the plain endpoint never gets landed.
	if ev := plainEvents(t, plain); len(ev) != 1 || ev[0] != "submission.confirmed" {
		t.Fatalf("the endpoint that names no type got %v, want submission.confirmed alone", ev)
	}
}

// plainEvents are the event types hook received.
func plainEvents(t *testing.T, hook *hookReceiver) []string {
	t.Helper()
	var out []string
	for _, r := range hook.requests() {
		var e struct{ Type string }
		if err := json.Unmarshal(r.Body, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Type)
	}
	return out
}

// The landed latency benchmark: reclaims relayed through the validator
// (400 ms slots) behind a harness.DelayProxy, each followed from its submit
// request by the three ways an integrator sees it: the status route's long
// poll (until landed, then waitUntil=final), MCP's get_submission_status
// (the same, as an agent with the API key) and a webhook endpoint that
// names submission.landed and submission.confirmed. It reports, per flow
// and delay, the time from the submit to landed and to confirmed, p50 and
// p95:
//
//	E2E_LATENCY=1 go test ./e2e -run TestLandedLatency -v -count=1
//
// runs 20 reclaims (E2E_LANDED_N) at no delay and at E2E_LATENCY_MS
// (default 100) per RPC request: the table of docs/performance.md. Without
// E2E_LATENCY it runs 2 reclaims at 100 ms, which keeps it working.
func TestLandedLatency(t *testing.T) {
	t.Parallel()
	full := os.Getenv("E2E_LATENCY") != ""
	n, delays := 2, []time.Duration{100 * time.Millisecond}
	if full {
		n = envInts(t, "E2E_LANDED_N", []int{20})[0]
		delays = []time.Duration{0, time.Duration(envInts(t, "E2E_LATENCY_MS", []int{100})[0]) * time.Millisecond}
	}
	v := harness.Shared(t)
	proxy := v.NewDelayProxy(t, 0)
	hooks := newHookReceiver(t, func(int, *http.Request) int { return http.StatusOK })
	s := startService(t, v, "SOLANA_RPC_URL="+proxy.URL, "RECLAIM_WEBHOOK_ALLOW_INSECURE=1")
	s.addWebhook(t, hooks.URL+"/hooks", "submission.landed", "submission.confirmed")
	agent := mcpSession(t, s)
	var table []string
	for _, d := range delays {
		ws := landingWallets(t, v, n)
		proxy.SetDelay(d)
		// timings[flow][i]: from reclaim i's submit to landed and to confirmed.
		timings := map[string][][2]time.Duration{}
		var mu sync.Mutex
		record := func(flow string, i int, which int, took time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if timings[flow] == nil {
				timings[flow] = make([][2]time.Duration, n)
			}
			timings[flow][i][which] = took
		}
		// Waves of 4 reclaims at once: each is built just before its
		// submit (a ticket lives a minute).
		for at := 0; at < n; at += 4 {
			var wg sync.WaitGroup
			for i := at; i < min(at+4, n); i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					landedFlows(t, s, agent, hooks, ws[i], func(flow string, which int, took time.Duration) { record(flow, i, which, took) })
				}()
			}
			wg.Wait()
		}
		for _, flow := range []string{"status route", "MCP", "webhook"} {
			line := fmt.Sprintf("| %s | %d ms | %d | %s | %s | %s | %s |", flow, d.Milliseconds(), n,
				quantile(timings[flow], 0, 0.5), quantile(timings[flow], 0, 0.95), quantile(timings[flow], 1, 0.5), quantile(timings[flow], 1, 0.95))
			table = append(table, line)
		}
	}
	proxy.SetDelay(0)
	t.Logf("from the submit request to landed and to confirmed, load average %s:\n| flow | RPC delay | reclaims | landed p50 | landed p95 | confirmed p50 | confirmed p95 |\n|---|---|---|---|---|---|---|\n%s",
		loadAverage(), strings.Join(table, "\n"))
}

// landedFlows submits w's reclaim through s and follows it in the three
// flows at once, telling each time seen (which: 0 landed, 1 confirmed) from
// the submit request.
func landedFlows(t *testing.T, s *service, agent *mcp.ClientSession, hooks *hookReceiver, w landingWallet, seen func(flow string, which int, took time.Duration)) {
	r := s.prepare(t, w)
	start := time.Now()
	if res := s.submitOne(t, r); res.Status != "submitted" {
		t.Errorf("submit: %+v", res)
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i, final := range []bool{false, true} {
			got := s.submissionsUntil(t, r.owner, r.token, final, r.sig)[0]
			seen("status route", i, time.Since(start))
			if want := []string{"landed", "confirmed"}[i]; got.Status != want && got.Status != "confirmed" {
				t.Errorf("status route: %s, want %s", got.Status, want)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i, final := range []bool{false, true} {
			args := map[string]any{"address": r.owner.String(), "signature": []string{r.sig}, "waitSeconds": 30}
			if final {
				args["waitUntil"] = "final"
			}
			res, err := agent.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_submission_status", Arguments: args})
			seen("MCP", i, time.Since(start))
			if err != nil || res.IsError {
				t.Errorf("get_submission_status: %v %+v", err, res)
				return
			}
			var out struct{ Submissions []submissionStatus }
			raw, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(raw, &out); err != nil || len(out.Submissions) != 1 {
				t.Errorf("get_submission_status answered %s: %v", raw, err)
				return
			}
			if want := []string{"landed", "confirmed"}[i]; out.Submissions[0].Status != want && out.Submissions[0].Status != "confirmed" {
				t.Errorf("MCP: %s, want %s", out.Submissions[0].Status, want)
			}
		}
	}()
	wg.Wait()
	waitFor(t, "both webhook events of "+r.sig, 60*time.Second, func() bool {
		n := 0
		for _, h := range hooks.requests() {
			var e hookEvent
			if json.Unmarshal(h.Body, &e) != nil || e.Data.Signature != r.sig {
				continue
			}
			switch e.Type {
			case "submission.landed":
				seen("webhook", 0, h.At.Sub(start))
			case "submission.confirmed":
				seen("webhook", 1, h.At.Sub(start))
			}
			n++
		}
		return n >= 2
	})
}

// mcpSession connects to s's /mcp with its API key, as an agent does.
func mcpSession(t *testing.T, s *service) *mcp.ClientSession {
	t.Helper()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: s.url + "/mcp", HTTPClient: &http.Client{Transport: withHeader{s.key(), http.DefaultTransport}}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// quantile is the q-quantile (nearest rank) of the which-th times, in
// milliseconds.
func quantile(times [][2]time.Duration, which int, q float64) string {
	var s []time.Duration
	for _, tm := range times {
		s = append(s, tm[which])
	}
	if len(s) == 0 {
		return "-"
	}
	slices.Sort(s)
	k := max(int(float64(len(s))*q+0.999999)-1, 0)
	return strconv.FormatInt(s[min(k, len(s)-1)].Milliseconds(), 10) + " ms"
}
