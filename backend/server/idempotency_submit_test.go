package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// Issue 31: a keyed submit whose entry failed RPC_ERROR (the node refused
// the transaction, its ticket not consumed) is not kept under its key: the
// same submit with the same key after the fault cleared runs again and
// sends (submitted, not a replay); that answer is kept and replayed. And a
// submit's key is leased as long as a submit can run (relay.SendGrace), a
// build's as the service's default.
func TestIdempotentSubmitRetriesACurableFailure(t *testing.T) {
	t.Parallel()
	cluster := newGoldenCluster(t)
	cluster.add(cluster.owner, ownerAccounts[0])
	e := goldenEnv(t, cluster.url, 10_000)
	goldenProject(t, e, "prj_golden", seededAddress("donation wallet").String())
	owner, key := cluster.owner.String(), apiKey(goldenAPIKey("prj_golden"))
	path := "/v1/wallet/" + owner + "/transactions"
	items := []any{map[string]any{"type": "empty_account", "address": seededAddress("empty").String(), "action": "close"}}
	var b reclaimv1.BuildTransactionsResponse
	built := e.rest("POST", path, creds(key, header(idempotency.Header, "build-1")), map[string]any{"items": items, "priorityFeeLevel": "none"}).status(200)
	var out struct {
		Transactions []struct{ TransactionBase64, SubmissionTicket string }
	}
	if err := json.Unmarshal(built.body, &out); err != nil || len(out.Transactions) != 1 {
		t.Fatalf("built %s: %v", built.body, err)
	}
	for _, tx := range out.Transactions {
		b.Transactions = append(b.Transactions, &reclaimv1.BuiltTransaction{TransactionBase64: tx.TransactionBase64, SubmissionTicket: tx.SubmissionTicket})
	}
	body := submitBody(t, signedAll(t, &b, seeded("owner"))...)
	submit := func() (string, *response) {
		r := e.rest("POST", path+"/submit", creds(key, header(idempotency.Header, "submit-1")), body).status(200)
		var res struct {
			Results []struct {
				Status string
				Error  *struct{ Code string }
			}
		}
		if err := json.Unmarshal(r.body, &res); err != nil || len(res.Results) != 1 {
			t.Fatalf("submit %s: %v", r.body, err)
		}
		got := res.Results[0].Status
		if res.Results[0].Error != nil {
			got += " " + res.Results[0].Error.Code
		}
		return got, r
	}

	cluster.refuseSend.Store(true)
	if got, r := submit(); got != "failed RPC_ERROR" || r.header.Get(idempotency.ReplayedHeader) != "" {
		t.Fatalf("refused: %s (replayed %q)", r.body, r.header.Get(idempotency.ReplayedHeader))
	}
	cluster.refuseSend.Store(false)
	got, first := submit()
	if got != "submitted" || first.header.Get(idempotency.ReplayedHeader) != "" {
		t.Fatalf("the retry after the fault cleared: %s (replayed %q), want submitted, run again", first.body, first.header.Get(idempotency.ReplayedHeader))
	}
	if _, again := submit(); again.header.Get(idempotency.ReplayedHeader) != "true" || !bytes.Equal(again.body, first.body) {
		t.Fatalf("then: %s (replayed %q), want the stored submitted answer", again.body, again.header.Get(idempotency.ReplayedHeader))
	}

	scope := idempotency.Scope("key_prj_golden", "")
	for k, want := range map[string]time.Duration{"submit-1": relay.SendGrace, "build-1": idempotency.NewService(nil, nil, nil).Lease} {
		rec, ok, err := e.store.KeyRecord(context.Background(), "prj_golden", idempotency.Hash(scope, k))
		if err != nil || !ok {
			t.Fatalf("%s: no record: %v", k, err)
		}
		if got := rec.LeaseUntil.Sub(rec.CreatedAt); got != want {
			t.Errorf("%s: leased %s, want %s", k, got, want)
		}
	}
}
