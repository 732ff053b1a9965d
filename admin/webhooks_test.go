package admin_test

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/seal"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	webhooks "github.com/reclaim-sol/reclaim/backend/service/webhook"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// hosts resolves names as a DNS server would: hooks.example is public,
// internal.example a private address.
type hosts map[string]string

func (h hosts) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := h[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, errors.New("no such host")
}

// withWebhooks wires the webhooks page over the harness's store (its
// History), as `reclaim serve` does, with a resolver of its own.
func withWebhooks(d *admin.Deps) {
	box, err := seal.New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		panic(err)
	}
	store := d.History.(*storagetest.Store)
	hooks := webhooks.NewService(store, store, webhooks.Options{
		Box: box, Resolver: hosts{"hooks.example": "93.184.216.34", "internal.example": "10.0.0.5"}, Now: d.Now,
	})
	projects := project.NewService(store, auth.NewHasher([]byte(strings.Repeat("p", 32))), d.Now)
	o := owner.NewService(store, projects, owner.Options{Passwords: cheap, Now: d.Now, Webhooks: hooks})
	d.Webhooks, d.WebhookChanges = hooks, o
}

// An owner adds an endpoint (its secret shown once, its URL's query never),
// is refused http, private and unresolvable URLs with a message, sends a
// test event that the deliveries list shows, redelivers it, rotates the
// secret and removes the endpoint; a viewer sees the page read-only and is
// refused every change; another project's endpoint is a 404; a form
// without its token is refused.
func TestWebhooksPage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false, withWebhooks)
	h.owner("alice@example.com")
	h.owner("bob@example.com")
	alice := h.browser()
	csrf := alice.signIn("alice@example.com")
	id := alice.createProject(csrf, "Acme")
	base := "/admin/projects/" + id + "/webhooks"
	if page := alice.get(base); page.StatusCode != 200 || byTestID(page.doc, "webhooks-empty") == nil || byTestID(page.doc, "add-webhook") == nil {
		t.Fatalf("a new project's webhooks page: %d, want empty with the add form", page.StatusCode)
	}
	rejected := []struct{ name, url, want string }{
		{"http", "http://hooks.example/h", "https"},
		{"a private address", "https://internal.example/h", "public"},
		{"a literal private address", "https://192.168.1.10/h", "public"},
		{"loopback", "https://127.0.0.1/h", "public"},
		{"credentials", "https://user:pass@hooks.example/h", ""},
		{"unresolvable", "https://nowhere.example/h", ""},
	}
	for _, c := range rejected {
		resp := alice.post(base, url.Values{"csrf_token": {csrf}, "url": {c.url}})
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(byTestID(resp.doc, "webhook-url-error")), c.want) {
			t.Errorf("%s: %d %q; want 422 saying %q", c.name, resp.StatusCode, text(byTestID(resp.doc, "webhook-url-error")), c.want)
		}
	}
	resp := alice.post(base, url.Values{"csrf_token": {csrf}, "url": {"https://hooks.example/h?token=s3cret"}, "event": {"submission.confirmed"}})
	secret := attr(byTestID(resp.doc, "new-secret"), "value")
	if resp.StatusCode != 200 || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("add: %d, secret %q", resp.StatusCode, secret)
	}
	if strings.Contains(resp.body, "s3cret") || text(byTestID(resp.doc, "endpoint-url")) != "https://hooks.example/h?…" {
		t.Fatalf("the page shows the URL's query: %q", text(byTestID(resp.doc, "endpoint-url")))
	}
	ep := text(byTestID(resp.doc, "endpoint-id"))
	if page := alice.get(base); strings.Contains(page.body, secret) {
		t.Fatal("the secret is shown again")
	}
	if resp := alice.post(base+"/"+ep+"/test", url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("test event: %d", resp.StatusCode)
	}
	page := alice.get(base)
	rows := allByTestID(page.doc, "delivery-row")
	if len(rows) != 1 || !strings.Contains(text(rows[0]), "webhook.test") || text(byTestID(rows[0], "delivery-state")) != "pending" {
		t.Fatalf("deliveries after a test event: %d rows", len(rows))
	}
	form := byTestID(rows[0], "delivery-redeliver").Parent
	if resp := alice.post(attr(form, "action"), url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("redeliver: %d", resp.StatusCode)
	}
	resp = alice.post(base+"/"+ep+"/rotate", url.Values{"csrf_token": {csrf}})
	if rotated := attr(byTestID(resp.doc, "new-secret"), "value"); resp.StatusCode != 200 || !strings.HasPrefix(rotated, "whsec_") || rotated == secret {
		t.Fatalf("rotate: %d %q", resp.StatusCode, rotated)
	}

	// bob is a viewer: he sees the endpoint and its deliveries, changes nothing.
	if resp := alice.post("/admin/projects/"+id+"/members", url.Values{"csrf_token": {csrf}, "email": {"bob@example.com"}, "role": {"viewer"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add bob: %d", resp.StatusCode)
	}
	bob := h.browser()
	bobCSRF := bob.signIn("bob@example.com")
	page = bob.get(base)
	if page.StatusCode != 200 || byTestID(page.doc, "webhooks-readonly") == nil || byTestID(page.doc, "add-webhook") != nil ||
		byTestID(page.doc, "endpoint-remove") != nil || len(allByTestID(page.doc, "delivery-row")) != 1 {
		t.Fatalf("viewer's page: %d", page.StatusCode)
	}
	for _, path := range []string{base, base + "/" + ep + "/remove", base + "/" + ep + "/rotate", base + "/" + ep + "/test", base + "/" + ep + "/enable"} {
		if resp := bob.post(path, url.Values{"csrf_token": {bobCSRF}, "url": {"https://hooks.example/b"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("viewer POST %s: %d, want 403", path, resp.StatusCode)
		}
	}

	// Another project's endpoint is not found; a form without its token is refused.
	other := alice.createProject(csrf, "Other")
	if resp := alice.post("/admin/projects/"+other+"/webhooks/"+ep+"/remove", url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another project's endpoint: %d, want 404", resp.StatusCode)
	}
	if resp := alice.post(base+"/"+ep+"/remove", url.Values{}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("no CSRF token: %d, want 403", resp.StatusCode)
	}
	if resp := alice.post(base+"/"+ep+"/remove", url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove: %d", resp.StatusCode)
	}
	page = alice.get(base)
	if byTestID(page.doc, "webhooks-empty") == nil {
		t.Fatal("the endpoint is still listed")
	}
	var log []string
	for _, e := range allByTestID(page.doc, "webhook-audit-entry") {
		log = append(log, text(e))
	}
	if got := strings.Join(log, "|"); strings.Count(got, "alice@example.com") != 3 || strings.Contains(got, "s3cret") {
		t.Errorf("audit: %q, want added, rotated, removed by alice, without the query", got)
	}
}

// An owner clicking "Send test event" in a loop gets five through, then a
// 429 that says when to try again (Retry-After too); redeliveries spend
// the same bucket; twelve seconds later one more goes through. Another
// endpoint's bucket is its own.
func TestWebhookSendsThrottled(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false, withWebhooks)
	h.owner("alice@example.com")
	alice := h.browser()
	csrf := alice.signIn("alice@example.com")
	id := alice.createProject(csrf, "Acme")
	base := "/admin/projects/" + id + "/webhooks"
	for _, u := range []string{"https://hooks.example/a", "https://hooks.example/b"} {
		if resp := alice.post(base, url.Values{"csrf_token": {csrf}, "url": {u}}); resp.StatusCode != 200 {
			t.Fatalf("add %s: %d", u, resp.StatusCode)
		}
	}
	ids := allByTestID(alice.get(base).doc, "endpoint-id")
	if len(ids) != 2 {
		t.Fatalf("%d endpoints listed", len(ids))
	}
	ep, other := text(ids[0]), text(ids[1])
	sent := 0
	for range 480 {
		resp := alice.post(base+"/"+ep+"/test", url.Values{"csrf_token": {csrf}})
		if resp.StatusCode != http.StatusSeeOther {
			msg := text(byTestID(resp.doc, "error-message"))
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "12" || !strings.Contains(msg, "try again in 12 seconds") {
				t.Fatalf("test event %d: %d Retry-After %q %q; want 429 saying when", sent+1, resp.StatusCode, resp.Header.Get("Retry-After"), msg)
			}
			break
		}
		sent++
	}
	if sent != 5 {
		t.Fatalf("%d test events went through, want 5", sent)
	}
	rows := allByTestID(alice.get(base).doc, "delivery-row")
	if len(rows) != 5 {
		t.Fatalf("%d deliveries listed, want the 5 sent", len(rows))
	}
	form := byTestID(rows[0], "delivery-redeliver").Parent
	if resp := alice.post(attr(form, "action"), url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("redeliver over the throttle: %d, want 429", resp.StatusCode)
	}
	if resp := alice.post(base+"/"+other+"/test", url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("another endpoint's test event: %d %q", resp.StatusCode, text(byTestID(resp.doc, "error-message")))
	}
	h.clock.Advance(12 * time.Second)
	if resp := alice.post(attr(form, "action"), url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("redeliver 12 s later: %d", resp.StatusCode)
	}
	if resp := alice.post(base+"/"+ep+"/test", url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a second send 12 s later: %d, want 429", resp.StatusCode)
	}
}
