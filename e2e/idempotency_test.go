package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// postWithKey posts a JSON body with a session and an Idempotency-Key; it
// returns the status, the Idempotent-Replayed header and the body.
func (s *service) postWithKey(t *testing.T, path, token, key string, body any) (int, string, []byte) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", s.url+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := restClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), out
}

// A build repeated with its Idempotency-Key, even on another instance,
// answers the same transactions and tickets (Idempotent-Replayed: true),
// and a submit of those tickets lands once; the same key with a changed
// body is a 422 naming the reuse.
func TestIdempotentBuildAndSubmit(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	s := startService(t, v)
	other := s.another()
	owner, accounts := emptyWallet(t, v, 3)
	token := s.session(owner.PublicKey())
	path := "/v1/wallet/" + owner.PublicKey().String() + "/transactions"
	body := map[string]any{"items": closeAll(accounts), "priorityFeeLevel": "none"}

	code, replayed, first := s.postWithKey(t, path, token, "build-7f1c", body)
	if code != 200 || replayed != "" {
		t.Fatalf("first build: %d, replayed %q: %s", code, replayed, first)
	}
	code, replayed, again := other.postWithKey(t, path, token, "build-7f1c", body)
	if code != 200 || replayed != "true" || !bytes.Equal(again, first) {
		t.Fatalf("repeated build: %d, replayed %q:\n%s\nwant the first answer:\n%s", code, replayed, again, first)
	}
	var b built
	if err := json.Unmarshal(first, &b); err != nil || len(b.Transactions) != 1 || b.Transactions[0].SubmissionTicket == "" {
		t.Fatalf("build %s: %v", first, err)
	}

	changed := map[string]any{"items": closeAll(accounts[:2]), "priorityFeeLevel": "none"}
	code, _, refused := s.postWithKey(t, path, token, "build-7f1c", changed)
	var e struct{ Code, Param, Message string }
	if err := json.Unmarshal(refused, &e); err != nil || code != 422 || e.Code != "idempotency_key_reused" || e.Param != "Idempotency-Key" {
		t.Fatalf("changed body: %d %s, want 422 idempotency_key_reused", code, refused)
	}

	signed := map[string]any{"signed": []signedTx{{
		TransactionBase64: signTx(t, b.Transactions[0].TransactionBase64, owner), SubmissionTicket: b.Transactions[0].SubmissionTicket,
	}}}
	before := v.Balance(t, owner.PublicKey())
	code, _, sub1 := s.postWithKey(t, path+"/submit", token, "submit-7f1c", signed)
	code2, replayed, sub2 := other.postWithKey(t, path+"/submit", token, "submit-7f1c", signed)
	if code != 200 || code2 != 200 || replayed != "true" || !bytes.Equal(sub1, sub2) {
		t.Fatalf("submit %d %s, again %d (replayed %q) %s", code, sub1, code2, replayed, sub2)
	}
	var res struct{ Results []submitResult }
	if err := json.Unmarshal(sub1, &res); err != nil || res.Results[0].Signature == nil || res.Results[0].Status != "submitted" {
		t.Fatalf("submit %s: %v", sub1, err)
	}
	waitConfirmed(t, v, []string{*res.Results[0].Signature})
	if got := v.Balance(t, owner.PublicKey()) - before; got != b.Transactions[0].NetRebate {
		t.Fatalf("wallet rose by %d, want %d once", got, b.Transactions[0].NetRebate)
	}
}
