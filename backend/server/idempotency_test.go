package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// creds puts several headers on a request.
func creds(cs ...cred) cred {
	return func(h http.Header) {
		for _, c := range cs {
			c(h)
		}
	}
}

func key(k string) cred { return header(idempotency.Header, k) }

type idemEnv struct {
	*env
	cluster *fakeCluster
	wallet  string
	token   string
	items   []any
}

func newIdemEnv(t *testing.T, opts ...option) *idemEnv {
	fc := newFakeCluster(t)
	fc.add(4)
	e := newEnv(t, append([]option{withRPC(fc.url)}, opts...)...)
	ie := &idemEnv{env: e, cluster: fc, wallet: fc.owner.String()}
	ie.token = e.session(ie.wallet)
	items := e.rest("GET", "/v1/wallet/"+ie.wallet+"/assets", bearer(ie.token), nil).status(200).json()["items"].([]any)
	for _, it := range items {
		m := it.(map[string]any)
		if acts := m["actions"].([]any); len(acts) > 0 {
			ie.items = append(ie.items, map[string]any{"type": m["type"], "address": m["address"], "action": acts[0]})
		}
	}
	return ie
}

func (ie *idemEnv) build(c cred, donation float64) *response {
	return ie.rest("POST", "/v1/wallet/"+ie.wallet+"/transactions", c,
		map[string]any{"items": ie.items, "donationPercentage": donation, "priorityFeeLevel": "none"})
}

func (ie *idemEnv) simulated() int {
	ie.cluster.mu.Lock()
	defer ie.cluster.mu.Unlock()
	return ie.cluster.simulated
}

// A build repeated with its key gets the first answer again, byte for
// byte (the same transactions and tickets), replayed and not built again;
// with another body, 422 naming the reuse.
func TestIdempotentBuildOverREST(t *testing.T) {
	t.Parallel()
	ie := newIdemEnv(t)
	first := ie.build(creds(bearer(ie.token), key("build-1")), 0.1).status(200)
	if first.header.Get(idempotency.ReplayedHeader) != "" {
		t.Fatal("a first answer says it is replayed")
	}
	sims := ie.simulated()
	ie.clock.Advance(time.Second) // a second build would issue other tickets
	again := ie.build(creds(bearer(ie.token), key("build-1")), 0.1).status(200)
	if !bytes.Equal(again.body, first.body) || again.header.Get(idempotency.ReplayedHeader) != "true" || ie.simulated() != sims {
		t.Fatalf("replay: equal %v, header %q, %d simulations after %d", bytes.Equal(again.body, first.body),
			again.header.Get(idempotency.ReplayedHeader), ie.simulated(), sims)
	}
	// The structured-field form of the same key is the same key.
	quoted := ie.build(creds(bearer(ie.token), key(`"build-1"`)), 0.1).status(200)
	if !bytes.Equal(quoted.body, first.body) {
		t.Fatal("the quoted key is another key")
	}
	r := ie.build(creds(bearer(ie.token), key("build-1")), 0.2)
	msg := r.restErr(http.StatusUnprocessableEntity, "idempotency_key_reused")
	if !strings.Contains(msg, "different request") || r.json()["param"] != idempotency.Header {
		t.Fatalf("reuse: %s", r.body)
	}
	// Without a key, or with another, a build runs again: new tickets.
	other := ie.build(creds(bearer(ie.token), key("build-2")), 0.1).status(200)
	if bytes.Equal(other.body, first.body) || other.header.Get(idempotency.ReplayedHeader) != "" {
		t.Fatal("another key replays the first")
	}
}

// The same key from another credential is another key: an API key and a
// session minted from it, or sessions of two wallets.
func TestIdempotencyKeyBelongsToItsCredential(t *testing.T) {
	t.Parallel()
	ie := newIdemEnv(t)
	first := ie.build(creds(bearer(ie.token), key("k")), 0.1).status(200)
	ie.clock.Advance(time.Second)
	// A fresh session of the same key and wallet: the same credential.
	same := ie.build(creds(bearer(ie.session(ie.wallet)), key("k")), 0.1).status(200)
	if !bytes.Equal(same.body, first.body) {
		t.Error("a new session of the same API key and wallet is another credential")
	}
	byKey := ie.build(creds(apiKey(ie.apiKey), key("k")), 0.1).status(200)
	if bytes.Equal(byKey.body, first.body) || byKey.header.Get(idempotency.ReplayedHeader) != "" {
		t.Error("the API key replays its session's answer")
	}
	otherKey, _ := ie.newAPIKey(ie.project.ID)
	byOther := ie.build(creds(apiKey(otherKey), key("k")), 0.2).status(200)
	if byOther.header.Get(idempotency.ReplayedHeader) != "" {
		t.Error("another API key's request is replayed")
	}
}

// The key works the same over Connect: a key first sent over REST replays
// over Connect (the request decodes to the same message), and the reuse
// refusal is invalid_argument with its reason as an ErrorInfo.
func TestIdempotencyOverConnect(t *testing.T) {
	t.Parallel()
	ie := newIdemEnv(t)
	first := ie.build(creds(bearer(ie.token), key("cross")), 0.1).status(200)
	var want struct {
		Transactions []struct{ SubmissionTicket string }
	}
	_ = json.Unmarshal(first.body, &want)
	c := ie.connectClients()
	items := make([]*reclaimv1.ItemSelection, len(ie.items))
	for i, it := range ie.items {
		m := it.(map[string]any)
		items[i] = &reclaimv1.ItemSelection{Type: m["type"].(string), Address: m["address"].(string), Action: m["action"].(string)}
	}
	donation, none := 0.1, "none"
	msg := &reclaimv1.BuildTransactionsRequest{Address: ie.wallet, Items: items, DonationPercentage: &donation, PriorityFeeLevel: &none}
	res, err := c.wallet.BuildTransactions(context.Background(), withCred(msg, creds(bearer(ie.token), key("cross"))))
	if err != nil {
		t.Fatal(err)
	}
	if res.Header().Get(idempotency.ReplayedHeader) != "true" || len(res.Msg.GetTransactions()) != len(want.Transactions) ||
		res.Msg.GetTransactions()[0].GetSubmissionTicket() != want.Transactions[0].SubmissionTicket {
		t.Fatalf("over Connect: replayed %q, %d transactions", res.Header().Get(idempotency.ReplayedHeader), len(res.Msg.GetTransactions()))
	}
	donation = 0.3
	_, err = c.wallet.BuildTransactions(context.Background(), withCred(msg, creds(bearer(ie.token), key("cross"))))
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || reasonOf(ce) != "idempotency_key_reused" {
		t.Fatalf("reuse over Connect: %v (reason %q)", err, reasonOf(ce))
	}
}

func reasonOf(ce *connect.Error) string {
	if ce == nil {
		return ""
	}
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if info, ok := v.(*errdetails.ErrorInfo); ok {
				return info.GetReason()
			}
		}
	}
	return ""
}

// A refusal of the request itself (a 4xx) is stored and replayed; a
// failure a retry may cure (a 503) is not: the retry runs again.
func TestIdempotencyStoresRefusalsNotFailures(t *testing.T) {
	t.Parallel()
	ie := newIdemEnv(t)
	bad := map[string]any{"items": []any{map[string]any{"type": "empty_account", "address": "not-base58!", "action": "close"}}}
	path := "/v1/wallet/" + ie.wallet + "/transactions"
	first := ie.rest("POST", path, creds(bearer(ie.token), key("bad")), bad)
	first.restErr(400, "invalid_argument")
	again := ie.rest("POST", path, creds(bearer(ie.token), key("bad")), bad)
	again.restErr(400, "invalid_argument")
	if again.header.Get(idempotency.ReplayedHeader) != "true" || again.json()["param"] != first.json()["param"] ||
		again.json()["message"] != first.json()["message"] {
		t.Fatalf("a stored refusal: %s (replayed %q), first %s", again.body, again.header.Get(idempotency.ReplayedHeader), first.body)
	}

	down := newEnv(t) // its cluster answers every call with an error: 503
	w := newWallet()
	tok := down.session(w)
	body := map[string]any{"items": []any{map[string]any{"type": "empty_account", "address": newWallet(), "action": "close"}}}
	for i := range 2 {
		r := down.rest("POST", "/v1/wallet/"+w+"/transactions", creds(bearer(tok), key("blip")), body)
		r.restErr(503, "unavailable")
		if r.header.Get(idempotency.ReplayedHeader) != "" {
			t.Fatalf("attempt %d: a 503 was stored and replayed", i+1)
		}
	}
}

// A request whose key is still in flight waits for the first one's answer
// (up to the service's Wait) or gets 409 idempotency_key_in_use.
func TestIdempotencyKeyInFlight(t *testing.T) {
	t.Parallel()
	store := storagetest.SQLite(t)
	ie := newIdemEnv(t, withStore(store), withDeps(func(d *server.Deps) {
		keys := idempotency.NewService(store, slog.New(slog.DiscardHandler), time.Now)
		keys.Wait = 0 // no waiting: the second gets 409 at once
		d.Idempotency = keys
	}))
	ie.cluster.hold = make(chan struct{})
	done := make(chan *response)
	go func() { done <- ie.build(creds(bearer(ie.token), key("slow")), 0.1) }()
	<-ie.cluster.started // the first is building
	r := ie.build(creds(bearer(ie.token), key("slow")), 0.1)
	r.restErr(http.StatusConflict, "idempotency_key_in_use")
	if r.header.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	close(ie.cluster.hold)
	first := (<-done).status(200)
	again := ie.build(creds(bearer(ie.token), key("slow")), 0.1).status(200)
	if !bytes.Equal(again.body, first.body) || again.header.Get(idempotency.ReplayedHeader) != "true" {
		t.Fatal("after the first finished: not its answer")
	}
}

func TestIdempotencyKeyHeaderChecked(t *testing.T) {
	t.Parallel()
	ie := newIdemEnv(t)
	for _, c := range []struct {
		name string
		h    cred
	}{
		{"empty", key("")},
		{"too long", key(strings.Repeat("k", 256))},
		{"two", func(h http.Header) { h.Add(idempotency.Header, "a"); h.Add(idempotency.Header, "b") }},
		{"a space", key("a b")},
	} {
		r := ie.build(creds(bearer(ie.token), c.h), 0.1)
		if msg := r.restErr(400, "invalid_argument"); !strings.Contains(msg, "Idempotency-Key") || r.json()["param"] != idempotency.Header {
			t.Errorf("%s: %s", c.name, r.body)
		}
	}
}
