package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestFrontRunCreditsTheBuildsProject (issue 30, finding 3): two projects of
// one service, one wallet, the same item, no donation, the shared polled
// blockhash and fees. The wallet signs and sends its own project's build
// itself; once it landed, the other project, with a session it minted for
// the wallet, reports the wallet's signature with the ticket of its own
// build, and relays the signed bytes with it: both end HASH_MISMATCH. The
// wallet's project then reports it and is credited: the ledger row, the
// stats and the webhook are the victim's, none the attacker's.
func TestFrontRunCreditsTheBuildsProject(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	victim := startService(t, v, "RECLAIM_WEBHOOK_ALLOW_INSECURE=1")
	attacker := *victim
	attacker.projectID = victim.cli("project", "create", "--name", "attacker")
	attacker.apiKey = victim.cli("apikey", "create", "--project", attacker.projectID)
	ok := func(int, *http.Request) int { return http.StatusNoContent }
	victimHooks, attackerHooks := newHookReceiver(t, ok), newHookReceiver(t, ok)
	victim.addWebhook(t, victimHooks.URL)
	attacker.addWebhook(t, attackerHooks.URL)

	w := landingWallets(t, v, 1)[0]
	owner := w.owner.PublicKey()
	theirs := attacker.build(t, owner, attacker.session(owner), map[string]any{"items": closeAll([]solana.PublicKey{w.account}), "priorityFeeLevel": "none"})
	r := victim.prepare(t, w)
	if len(theirs.Transactions) != 1 {
		t.Fatalf("the attacker built %d transactions", len(theirs.Transactions))
	}
	attackerTicket := theirs.Transactions[0].SubmissionTicket

	walletSends(t, v, r)
	waitFor(t, "the wallet's transaction is confirmed", time.Minute, func() bool {
		st := status(t, v, r.sig)
		return st != nil && st.ConfirmationStatus != rpc.ConfirmationStatusProcessed
	})

	attackerToken := attacker.session(owner)
	if res := attacker.report(t, owner, attackerToken, attackerTicket, r.sig); res.Status != "failed" || res.Error == nil || res.Error.Code != "HASH_MISMATCH" {
		t.Fatalf("the attacker's report of the wallet's signature: %+v", res)
	}
	relayed := attacker.submit(t, owner, attackerToken, signedTx{TransactionBase64: r.signed.TransactionBase64, SubmissionTicket: attackerTicket})[0]
	if relayed.Status != "failed" || relayed.Error == nil || relayed.Error.Code != "HASH_MISMATCH" {
		t.Fatalf("the attacker's relay of the wallet's bytes: %+v", relayed)
	}
	if res := victim.report(t, owner, r.token, r.signed.SubmissionTicket, r.sig); res.Status != "submitted" {
		t.Fatalf("the victim's report: %+v", res)
	}
	if got := victim.final(t, owner, r.token, r.sig); got.Status != "confirmed" {
		t.Fatalf("the victim's submission: %+v", got)
	}
	if n := victim.transactions(t); n != 1 {
		t.Fatalf("the victim's stats count %d transactions, want 1", n)
	}
	if n := attacker.transactions(t); n != 0 {
		t.Fatalf("the attacker's stats count %d transactions, want 0", n)
	}
	var event hookEvent
	waitFor(t, "the victim's webhook", time.Minute, func() bool {
		for _, req := range victimHooks.requests() {
			if json.Unmarshal(req.Body, &event) == nil && event.Data.Signature == r.sig && event.Data.Status == "confirmed" {
				return true
			}
		}
		return false
	})
	if event.Data.ProjectID != victim.projectID {
		t.Fatalf("the confirmation event names project %s, want %s", event.Data.ProjectID, victim.projectID)
	}
	for _, req := range attackerHooks.requests() {
		t.Errorf("the attacker's endpoint got an event: %s", req.Body)
	}
}
