package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

func TestSignedOutVisitorsAreSentToSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	b := h.browser()
	for _, path := range []string{"/admin/projects", "/admin/projects/prj_x", "/admin/projects/prj_x/keys"} {
		resp := b.get(path)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/admin/signin") {
			t.Errorf("GET %s signed out: %d %s, want 303 to the sign-in page", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if resp := b.get("/admin/signup"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("sign-up without RECLAIM_ALLOW_SIGNUP: %d, want 404", resp.StatusCode)
	}
	resp := b.get("/admin/signin")
	if resp.Header.Get("Cache-Control") != "no-store" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("headers = %v", resp.Header)
	}
}

func TestSignInCookieAndSignOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	b := h.browser()
	page := b.get("/admin/signin?next=/admin/projects")
	resp := b.post("/admin/signin", url.Values{
		"csrf_token": {value(page.doc, "csrf_token")}, "email": {"Alice@Example.com"}, "password": {password},
		"next": {"/admin/projects"},
	})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/projects" {
		t.Fatalf("sign in: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "reclaim_session" {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Path != "/admin" || cookie.Secure {
		t.Fatalf("session cookie = %+v, want HttpOnly, SameSite=Lax, Path=/admin, not Secure on plain HTTP", cookie)
	}
	if strings.Contains(resp.Header.Get("Location"), cookie.Value) {
		t.Error("the session id is in a URL")
	}
	if got := text(byTestID(b.get("/admin/projects").doc, "owner-email")); got != "alice@example.com" {
		t.Errorf("signed in as %q", got)
	}
	// An open redirect through next is refused.
	b2 := h.browser()
	page = b2.get("/admin/signin")
	resp = b2.post("/admin/signin", url.Values{
		"csrf_token": {value(page.doc, "csrf_token")}, "email": {"alice@example.com"}, "password": {password},
		"next": {"//evil.example/x"},
	})
	if resp.Header.Get("Location") != "/admin/projects" {
		t.Errorf("next=//evil.example: redirected to %q", resp.Header.Get("Location"))
	}

	csrf := b.csrf()
	if resp := b.post("/admin/signout", url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: %d", resp.StatusCode)
	}
	if resp := b.get("/admin/projects"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("after sign-out: %d, want a redirect to sign in", resp.StatusCode)
	}
	// The old cookie is dead on the server too, not only in this jar.
	replay := h.browser()
	u, _ := url.Parse(h.srv.URL + "/admin/")
	replay.client.Jar.SetCookies(u, []*http.Cookie{{Name: "reclaim_session", Value: cookie.Value, Path: "/admin"}})
	if resp := replay.get("/admin/projects"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("replayed cookie after sign-out: %d, want a redirect to sign in", resp.StatusCode)
	}
}

func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")

	idle := h.browser()
	idle.signIn("alice@example.com")
	h.clock.Advance(29 * time.Minute)
	if resp := idle.get("/admin/projects"); resp.StatusCode != http.StatusOK {
		t.Fatalf("after 29 idle minutes: %d, want 200", resp.StatusCode)
	}
	h.clock.Advance(31 * time.Minute)
	if resp := idle.get("/admin/projects"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("after 31 idle minutes: %d, want a redirect to sign in", resp.StatusCode)
	}

	busy := h.browser()
	busy.signIn("alice@example.com")
	for elapsed := time.Duration(0); elapsed < 12*time.Hour-20*time.Minute; elapsed += 20 * time.Minute {
		h.clock.Advance(20 * time.Minute)
		if resp := busy.get("/admin/projects"); resp.StatusCode != http.StatusOK {
			t.Fatalf("active session after %v: %d", elapsed, resp.StatusCode)
		}
	}
	h.clock.Advance(20 * time.Minute)
	if resp := busy.get("/admin/projects"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("after 12 hours: %d, want a redirect to sign in (absolute expiry)", resp.StatusCode)
	}
}

// Sign-in limits through the form: an address that keeps failing waits,
// told how long, with Retry-After; the account's owner, from another
// address, signs in at once; unknown emails fail as known ones do.
func TestSignInThrottling(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	attacker := h.browser()
	attacker.from = "203.0.113.9"
	try := func(b *browser, email, pw string) *response {
		return b.submit("/admin/signin", url.Values{"email": {email}, "password": {pw}})
	}
	for i := 1; i <= 5; i++ {
		if resp := try(attacker, "alice@example.com", "wrong password!"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i, resp.StatusCode)
		}
	}
	resp := try(attacker, "alice@example.com", password)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("right password right after 5 failures from one address: %d Retry-After %q, want 429 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if msg := text(byTestID(resp.doc, "form-error")); msg != "Too many failed sign-ins. Wait 1 second before trying again." {
		t.Errorf("throttle message = %q", msg)
	}
	// The wait doubles with each failure, up to five minutes, never a lock.
	for i, wait := range []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300} {
		h.clock.Advance(wait * time.Second)
		if resp := try(attacker, "alice@example.com", "wrong password!"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d after waiting %ds: %d, want 401", i+6, wait, resp.StatusCode)
		}
	}
	if resp := try(attacker, "alice@example.com", password); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "300" ||
		text(byTestID(resp.doc, "form-error")) != "Too many failed sign-ins. Wait 5 minutes before trying again." {
		t.Fatalf("after 16 failures: %d Retry-After %q %q, want five minutes", resp.StatusCode, resp.Header.Get("Retry-After"), text(byTestID(resp.doc, "form-error")))
	}
	// Alice, elsewhere, is not kept out.
	alice := h.browser()
	alice.from = "198.51.100.7"
	if resp := try(alice, "alice@example.com", password); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the owner from a clean address while her account is attacked: %d %q, want 303", resp.StatusCode, text(byTestID(resp.doc, "form-error")))
	}
	h.clock.Advance(5 * time.Minute)
	if resp := try(attacker, "alice@example.com", password); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the attacker's address after its wait, with the right password: %d, want 303", resp.StatusCode)
	}
	// Unknown emails fail the same way.
	other := h.browser()
	other.from = "192.0.2.44"
	if resp := try(other, "nobody@example.com", password); resp.StatusCode != http.StatusUnauthorized ||
		text(byTestID(resp.doc, "form-error")) != "The email or the password is incorrect." {
		t.Errorf("unknown email: %d %q", resp.StatusCode, text(byTestID(resp.doc, "form-error")))
	}
}

// Every client has a bucket of sign-in and sign-up posts, whatever the
// emails: past ten at once, one every six seconds; and a bucket of
// accounts created: three at once, then one a minute.
func TestSignInFormsPerClientLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	b := h.browser()
	b.from = "203.0.113.9"
	for i := range 10 {
		// Sign-ups the form refuses, and sign-ins, each with an email of its own.
		path, want := "/admin/signup", http.StatusUnprocessableEntity
		if i%2 == 1 {
			path, want = "/admin/signin", http.StatusUnauthorized
		}
		form := url.Values{"email": {fmt.Sprintf("u%d@example.com", i)}, "password": {password}, "password_confirm": {"not the same"}}
		if resp := b.submit(path, form); resp.StatusCode != want {
			t.Fatalf("post %d to %s: %d, want %d", i, path, resp.StatusCode, want)
		}
	}
	resp := b.submit("/admin/signin", url.Values{"email": {"u10@example.com"}, "password": {password}})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "6" ||
		!strings.HasPrefix(text(byTestID(resp.doc, "form-error")), "Too many sign-ins from your network.") || value(resp.doc, "csrf_token") == "" {
		t.Fatalf("11th sign-in in 10 s: %d Retry-After %q %q, want 429, 5 s, and the form again", resp.StatusCode, resp.Header.Get("Retry-After"), text(byTestID(resp.doc, "form-error")))
	}
	other := h.browser()
	other.from = "198.51.100.7"
	if resp := other.submit("/admin/signup", url.Values{"email": {"new@example.com"}, "password": {password}, "password_confirm": {password}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("another client: %d, want its own bucket", resp.StatusCode)
	}
	for i := range 2 {
		c := h.browser()
		c.from = "198.51.100.7"
		if resp := c.submit("/admin/signup", url.Values{"email": {fmt.Sprintf("n%d@example.com", i)}, "password": {password}, "password_confirm": {password}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("account %d: %d", i+2, resp.StatusCode)
		}
	}
	c := h.browser()
	c.from = "198.51.100.7"
	resp = c.submit("/admin/signup", url.Values{"email": {"n3@example.com"}, "password": {password}, "password_confirm": {password}})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "60" ||
		!strings.HasPrefix(text(byTestID(resp.doc, "form-error")), "Too many accounts created from your network.") {
		t.Fatalf("4th account at once: %d Retry-After %q %q", resp.StatusCode, resp.Header.Get("Retry-After"), text(byTestID(resp.doc, "form-error")))
	}
}

func TestCSRFRejections(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	h.owner("alice@example.com")
	b := h.browser()
	csrf := b.signIn("alice@example.com")
	id := b.createProject(csrf, "Acme")
	keyID := createKey(t, b, csrf, id)

	posts := []struct {
		path string
		form url.Values
	}{
		{"/admin/projects", url.Values{"name": {"x"}}},
		{"/admin/projects/" + id + "/keys", url.Values{"name": {"x"}}},
		{"/admin/projects/" + id + "/keys/" + keyID + "/revoke", url.Values{}},
		{"/admin/projects/" + id + "/settings", url.Values{"name": {"x"}}},
		{"/admin/signout", url.Values{}},
	}
	cases := []struct {
		name    string
		token   string
		headers []string
	}{
		{name: "no token"},
		{name: "wrong token", token: csrf[:len(csrf)-2] + "xx"},
		{name: "cross-site fetch", token: csrf, headers: []string{"Sec-Fetch-Site", "cross-site"}},
		{name: "foreign origin", token: csrf, headers: []string{"Sec-Fetch-Site", "", "Origin", "https://evil.example"}},
	}
	for _, p := range posts {
		for _, c := range cases {
			form := url.Values{}
			for k, v := range p.form {
				form[k] = v
			}
			if c.token != "" {
				form.Set("csrf_token", c.token)
			}
			if resp := b.post(p.path, form, c.headers...); resp.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s, %s: %d, want 403", p.path, c.name, resp.StatusCode)
			}
		}
	}
	// Nothing changed: one project, the key still active, still signed in.
	if n := len(allByTestID(b.get("/admin/projects").doc, "project-item")); n != 1 {
		t.Errorf("%d projects after the rejected posts, want 1", n)
	}
	if got := text(byTestID(b.get("/admin/projects/"+id+"/keys").doc, "key-status")); got != "Active" {
		t.Errorf("key status = %q, want Active", got)
	}
	// The same token in the header is accepted (for scripts and htmx).
	if resp := b.post("/admin/projects/"+id+"/settings", url.Values{"name": {"Acme 2"}}, "X-CSRF-Token", csrf); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("token in X-CSRF-Token: %d, want 303", resp.StatusCode)
	}

	// The sign-in and sign-up forms carry a pre-session token.
	anon := h.browser()
	for _, path := range []string{"/admin/signin", "/admin/signup"} {
		form := url.Values{"email": {"alice@example.com"}, "password": {password}, "password_confirm": {password}}
		if resp := anon.post(path, form); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s without a token: %d, want 403", path, resp.StatusCode)
		}
		tok := value(anon.get(path).doc, "csrf_token")
		form.Set("csrf_token", tok)
		if resp := anon.post(path, form, "Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s cross-site: %d, want 403", path, resp.StatusCode)
		}
		fresh := h.browser()
		if resp := fresh.post(path, form); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s with another browser's token: %d, want 403", path, resp.StatusCode)
		}
	}
}

// createKey creates a key through the form and returns its id.
func createKey(t *testing.T, b *browser, csrf, projectID string) string {
	t.Helper()
	resp := b.post("/admin/projects/"+projectID+"/keys", url.Values{"csrf_token": {csrf}, "name": {"backend"}})
	if resp.StatusCode != http.StatusOK || text(byTestID(resp.doc, "new-key-panel")) == "" {
		t.Fatalf("create key: %d", resp.StatusCode)
	}
	rows := allByTestID(resp.doc, "key-row")
	return attr(rows[len(rows)-1], "data-key-id")
}

func TestTenancy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	bob := h.owner("bob@example.com")
	alice := h.browser()
	csrfA := alice.signIn("alice@example.com")
	id := alice.createProject(csrfA, "Alice's secret project")
	keyID := createKey(t, alice, csrfA, id)

	mallory := h.browser()
	csrfB := mallory.signIn("bob@example.com")
	bobsProject := mallory.createProject(csrfB, "Bob's")
	bobsKey := createKey(t, mallory, csrfB, bobsProject)

	gets := []string{
		"/admin/projects/" + id,
		"/admin/projects/" + id + "/keys",
		"/admin/projects/" + id + "/settings",
		"/admin/projects/" + id + "/keys/" + keyID + "/revoke",
		"/admin/projects/prj_doesnotexist",
		// Bob's own project with Alice's key id: the key is not his project's.
		"/admin/projects/" + bobsProject + "/keys/" + keyID + "/revoke",
	}
	for _, path := range gets {
		resp := mallory.get(path)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("bob GET %s: %d, want 404", path, resp.StatusCode)
		}
		if strings.Contains(resp.body, "Alice") || strings.Contains(resp.body, keyID[4:]) {
			t.Errorf("bob GET %s: the page leaks Alice's data", path)
		}
	}
	posts := []string{
		"/admin/projects/" + id + "/keys",
		"/admin/projects/" + id + "/settings",
		"/admin/projects/" + id + "/keys/" + keyID + "/revoke",
		"/admin/projects/" + bobsProject + "/keys/" + keyID + "/revoke",
	}
	for _, path := range posts {
		if resp := mallory.post(path, url.Values{"csrf_token": {csrfB}, "name": {"pwned"}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("bob POST %s: %d, want 404", path, resp.StatusCode)
		}
	}
	// Alice's project and key are untouched.
	resp := alice.get("/admin/projects/" + id + "/keys")
	if text(byTestID(resp.doc, "project-name")) != "Alice's secret project" || text(byTestID(resp.doc, "key-status")) != "Active" {
		t.Errorf("alice's project changed: %q, key %q", text(byTestID(resp.doc, "project-name")), text(byTestID(resp.doc, "key-status")))
	}
	if len(allByTestID(resp.doc, "key-row")) != 1 {
		t.Errorf("alice's project has %d keys, want 1", len(allByTestID(resp.doc, "key-row")))
	}
	_ = bobsKey

	// Shared as a viewer, Bob sees the project and changes nothing.
	if err := h.store.AddMember(context.Background(), id, bob.ID, owner.RoleViewer); err != nil {
		t.Fatal(err)
	}
	resp = mallory.get("/admin/projects/" + id + "/keys")
	if resp.StatusCode != http.StatusOK || byTestID(resp.doc, "viewer-badge") == nil {
		t.Fatalf("viewer GET keys: %d", resp.StatusCode)
	}
	if byTestID(resp.doc, "create-key") != nil || byTestID(resp.doc, "revoke-link") != nil {
		t.Error("a viewer is offered the key forms")
	}
	if resp := mallory.get("/admin/projects/" + id + "/settings"); byTestID(resp.doc, "settings") != nil || byTestID(resp.doc, "settings-readonly") == nil {
		t.Error("a viewer is offered the settings form")
	}
	for _, path := range posts[:3] {
		if resp := mallory.post(path, url.Values{"csrf_token": {csrfB}, "name": {"pwned"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("viewer POST %s: %d, want 403", path, resp.StatusCode)
		}
	}
	if resp := mallory.get("/admin/projects/" + id + "/keys/" + keyID + "/revoke"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("viewer GET the revoke page: %d, want 403", resp.StatusCode)
	}
	if resp := mallory.get("/admin/projects/" + id); resp.StatusCode != http.StatusOK {
		t.Errorf("viewer GET overview: %d, want 200", resp.StatusCode)
	}
}

func TestKeyLifecycleAndAudit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	b := h.browser()
	csrf := b.signIn("alice@example.com")
	id := b.createProject(csrf, "Acme")

	if resp := b.get("/admin/projects/" + id + "/keys"); byTestID(resp.doc, "keys-empty") == nil || byTestID(resp.doc, "audit-empty") == nil {
		t.Error("no empty state on a project without keys")
	}
	if resp := b.post("/admin/projects/"+id+"/keys", url.Values{"csrf_token": {csrf}, "name": {"  "}}); resp.StatusCode != http.StatusUnprocessableEntity ||
		text(byTestID(resp.doc, "key-name-error")) == "" {
		t.Errorf("key without a name: %d %q", resp.StatusCode, text(byTestID(resp.doc, "key-name-error")))
	}
	resp := b.post("/admin/projects/"+id+"/keys", url.Values{"csrf_token": {csrf}, "name": {"production backend"}})
	key := attr(byTestID(resp.doc, "new-key"), "value")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(key, "ak_live_") {
		t.Fatalf("create key: %d, key %q", resp.StatusCode, key)
	}
	if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("Location") != "" {
		t.Errorf("key page headers: %v", resp.Header)
	}
	k, err := h.store.APIKeyByHash(context.Background(), h.hasher.Hash(key))
	if err != nil || k.ProjectID != id || k.RevokedAt != nil || k.Name != "production backend" {
		t.Fatalf("stored key = %+v, %v", k, err)
	}
	if got := text(byTestID(resp.doc, "key-prefix")); got != k.Prefix+"…" {
		t.Errorf("listed prefix %q, want %q", got, k.Prefix)
	}
	// Shown once: the next view of the page has no key.
	if page := b.get("/admin/projects/" + id + "/keys"); byTestID(page.doc, "new-key") != nil || strings.Contains(page.body, key) {
		t.Error("the key is shown again")
	}

	confirm := b.get("/admin/projects/" + id + "/keys/" + k.ID + "/revoke")
	if confirm.StatusCode != http.StatusOK || byTestID(confirm.doc, "revoke-submit") == nil {
		t.Fatalf("revoke confirmation: %d", confirm.StatusCode)
	}
	h.clock.Advance(time.Minute)
	resp = b.post("/admin/projects/"+id+"/keys/"+k.ID+"/revoke", url.Values{"csrf_token": {csrf}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	k, _ = h.store.APIKeyByHash(context.Background(), h.hasher.Hash(key))
	if k.RevokedAt == nil || !k.RevokedAt.Equal(h.clock.Now()) {
		t.Errorf("revoked at %v, want %v", k.RevokedAt, h.clock.Now())
	}
	page := b.get(resp.Header.Get("Location"))
	if !strings.HasPrefix(text(byTestID(page.doc, "key-status")), "Revoked") || !strings.Contains(text(byTestID(page.doc, "notice")), "revoked") {
		t.Errorf("after revoking: status %q, notice %q", text(byTestID(page.doc, "key-status")), text(byTestID(page.doc, "notice")))
	}
	entries := allByTestID(page.doc, "audit-entry")
	if len(entries) != 2 || !strings.Contains(text(entries[0]), "alice@example.com revoked key") ||
		!strings.Contains(text(entries[1]), "alice@example.com created key") || !strings.Contains(text(entries[1]), "2026-05-20 12:00 UTC") {
		for _, e := range entries {
			t.Log(text(e))
		}
		t.Errorf("audit log has %d entries, want revoked then created, by alice", len(entries))
	}
}

func TestProjectForms(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	b := h.browser()
	csrf := b.signIn("alice@example.com")
	if resp := b.get("/admin/projects"); byTestID(resp.doc, "projects-empty") == nil {
		t.Error("no empty state without projects")
	}
	const wallet = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	cases := []struct {
		name, project, wallet, errID string
	}{
		{name: "no name", project: " ", errID: "name-error"},
		{name: "long name", project: strings.Repeat("x", 101), errID: "name-error"},
		{name: "bad wallet", project: "Acme", wallet: "not-an-address", errID: "donation_wallet-error"},
		{name: "short wallet", project: "Acme", wallet: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9Pus", errID: "donation_wallet-error"},
	}
	for _, c := range cases {
		resp := b.post("/admin/projects", url.Values{"csrf_token": {csrf}, "name": {c.project}, "donation_wallet": {c.wallet}})
		if resp.StatusCode != http.StatusUnprocessableEntity || text(byTestID(resp.doc, c.errID)) == "" {
			t.Errorf("%s: %d, %s = %q", c.name, resp.StatusCode, c.errID, text(byTestID(resp.doc, c.errID)))
		}
		if v := attr(byTestID(resp.doc, "project-name-input"), "value"); v != strings.TrimSpace(c.project) {
			t.Errorf("%s: the form lost the name: %q", c.name, v)
		}
	}
	id := b.createProject(csrf, "Acme")
	resp := b.post("/admin/projects/"+id+"/settings", url.Values{"csrf_token": {csrf}, "name": {"Acme Wallet"}, "donation_wallet": {wallet}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save settings: %d", resp.StatusCode)
	}
	p, _ := h.store.GetProject(context.Background(), id)
	if p.Name != "Acme Wallet" || p.DonationWallet != wallet {
		t.Errorf("project = %+v", p)
	}
	if page := b.get(resp.Header.Get("Location")); text(byTestID(page.doc, "notice")) != "Settings saved." {
		t.Errorf("notice = %q", text(byTestID(page.doc, "notice")))
	}
	if resp := b.post("/admin/projects/"+id+"/settings", url.Values{"csrf_token": {csrf}, "name": {""}, "donation_wallet": {"x"}}); resp.StatusCode != http.StatusUnprocessableEntity ||
		byTestID(resp.doc, "name-error") == nil || byTestID(resp.doc, "donation_wallet-error") == nil {
		t.Errorf("bad settings: %d", resp.StatusCode)
	}
}

func TestSignUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	h.owner("taken@example.com")
	b := h.browser()
	cases := []struct{ name, email, pw, confirm, want string }{
		{"bad email", "not an email", password, password, "email address"},
		{"short password", "new@example.com", "short", "short", "at least 12"},
		{"mismatch", "new@example.com", password, password + "x", "differ"},
		{"taken", "taken@example.com", password, password, "exists already"},
	}
	tok := value(b.get("/admin/signup").doc, "csrf_token")
	for _, c := range cases {
		resp := b.post("/admin/signup", url.Values{"csrf_token": {tok}, "email": {c.email}, "password": {c.pw}, "password_confirm": {c.confirm}})
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(byTestID(resp.doc, "form-error")), c.want) {
			t.Errorf("%s: %d %q", c.name, resp.StatusCode, text(byTestID(resp.doc, "form-error")))
		}
		tok = value(resp.doc, "csrf_token") // each answer's form carries a fresh token
	}
	resp := b.post("/admin/signup", url.Values{"csrf_token": {tok}, "email": {"new@example.com"}, "password": {password}, "password_confirm": {password}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign up: %d", resp.StatusCode)
	}
	if got := text(byTestID(b.get("/admin/projects").doc, "owner-email")); got != "new@example.com" {
		t.Errorf("signed in as %q after sign-up", got)
	}
}

func TestOverviewSharesTheAPINumbers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	b := h.browser()
	csrf := b.signIn("alice@example.com")
	id := b.createProject(csrf, "Acme")

	resp := b.get("/admin/projects/" + id)
	for _, empty := range []string{"chart-empty", "board-empty", "latest-empty"} {
		if byTestID(resp.doc, empty) == nil {
			t.Errorf("no %s on a new project", empty)
		}
	}
	const payerA, payerB = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "So11111111111111111111111111111111111111112"
	ctx := context.Background()
	day := func(d int) *time.Time { t := h.clock.Now().AddDate(0, 0, -d); return &t }
	for i, e := range []struct {
		payer, typ      string
		status          ledger.Status
		gross, donation int64
		at              *time.Time
	}{
		{payerA, ledger.TypeTokenBurn, ledger.StatusConfirmed, 2_039_280, 203_928, day(0)},
		{payerA, ledger.TypeTokenAccountClosure, ledger.StatusConfirmed, 2_039_280, 0, day(1)},
		{payerB, ledger.TypeNFTBurn, ledger.StatusConfirmed, 10_000_000_000, 0, day(40)},
		{payerB, ledger.TypeTokenBurn, ledger.StatusFailed, 5_000_000, 0, nil},
	} {
		fees := int64(5000)
		err := h.store.InsertEntry(ctx, ledger.Entry{
			ProjectID: id, Payer: e.payer, Type: e.typ, GrossRebate: e.gross, DonationAmount: e.donation,
			NetworkFee: fees, Fees: fees, NetRebate: e.gross - fees - e.donation, ItemCount: 1,
			TicketJTI: "jti" + string(rune('a'+i)), Signature: "5sig" + string(rune('a'+i)) + "xxxxxxxxxxxxxxxx",
			Status: e.status, ConfirmedAt: e.at, CreatedAt: h.clock.Now().Add(time.Duration(i) * time.Second),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	stats, err := ledger.NewService(h.store).Stats(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	resp = b.get("/admin/projects/" + id)
	want := map[string]string{
		"stat-gross":        "10.00407856 SOL",
		"stat-net":          "10.003859632 SOL",
		"stat-transactions": "3",
		"stat-wallets":      "2",
		"stat-donations":    "1",
		"stat-donated":      "0.000203928 SOL",
	}
	if stats.TotalGrossRebate != 10_004_078_560 || stats.TotalTransactionCount != 3 {
		t.Fatalf("the API's stats = %+v", stats)
	}
	for id, w := range want {
		if got := text(byTestID(resp.doc, id)); got != w {
			t.Errorf("%s = %q, want %q", id, got, w)
		}
	}
	// The chart covers 30 days: the 40-day-old transaction is not in it.
	bars := allByTestID(byTestID(resp.doc, "chart-count"), "bar")
	if len(bars) != 30 {
		t.Fatalf("%d bars, want 30", len(bars))
	}
	if h := attr(bars[29], "height"); h != "122.0" {
		t.Errorf("today's bar height = %s, want full height", h)
	}
	if !strings.Contains(text(byTestID(resp.doc, "chart")), "Transactions per day: 2 in total") {
		t.Errorf("chart caption: %q", text(byTestID(resp.doc, "chart")))
	}
	rows := allByTestID(resp.doc, "board-row")
	if len(rows) != 2 || !strings.Contains(text(rows[0]), "So11…1112") {
		t.Errorf("leaderboard rows: %d", len(rows))
	}
	latest := allByTestID(resp.doc, "latest-row")
	if len(latest) != 4 || text(byTestID(latest[0], "latest-status")) != "failed" {
		t.Errorf("latest rows: %d, first status %q", len(latest), text(byTestID(latest[0], "latest-status")))
	}
	link := attr(byTestID(resp.doc, "explorer-link"), "href")
	if !strings.HasPrefix(link, "https://explorer.solana.com/tx/5sigd") || !strings.Contains(link, "cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899") {
		t.Errorf("explorer link = %q", link)
	}

	// The API's filters: type, dates, payer; and the API's errors.
	resp = b.get("/admin/projects/" + id + "?transactionType=nft_burn")
	if rows := allByTestID(resp.doc, "board-row"); len(rows) != 1 || !strings.Contains(text(rows[0]), "10") {
		t.Errorf("nft_burn filter: %d rows", len(rows))
	}
	resp = b.get("/admin/projects/" + id + "?startDate=" + day(2).Format("2006-01-02") + "&payer=" + payerA)
	if rows := allByTestID(resp.doc, "board-row"); len(rows) != 1 || !strings.Contains(text(rows[0]), "0.00407856") {
		t.Errorf("date and payer filter: %d rows", len(rows))
	}
	resp = b.get("/admin/projects/" + id + "?startDate=yesterday")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(text(byTestID(resp.doc, "filter-error")), "startDate \"yesterday\" is not an ISO 8601 date") {
		t.Errorf("bad date: %d %q", resp.StatusCode, text(byTestID(resp.doc, "filter-error")))
	}
	if text(byTestID(resp.doc, "stat-transactions")) != "3" {
		t.Error("a bad filter hides the rest of the overview")
	}
}

func TestLeaderboardPaging(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	b := h.browser()
	csrf := b.signIn("alice@example.com")
	id := b.createProject(csrf, "Acme")
	ctx := context.Background()
	at := h.clock.Now()
	for i := range 45 {
		payer := strings.Repeat("1", 31) + string("23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"[i])
		err := h.store.InsertEntry(ctx, ledger.Entry{
			ProjectID: id, Payer: payer, Type: ledger.TypeTokenBurn, GrossRebate: int64(1000 + i), NetRebate: int64(1000 + i),
			ItemCount: 1, TicketJTI: payer, Status: ledger.StatusConfirmed, ConfirmedAt: &at,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	resp := b.get("/admin/projects/" + id)
	if n := len(allByTestID(resp.doc, "board-row")); n != 20 || byTestID(resp.doc, "board-next") == nil || byTestID(resp.doc, "board-prev") != nil {
		t.Fatalf("first page: %d rows", n)
	}
	next := attr(byTestID(resp.doc, "board-next"), "href")
	resp = b.get(strings.TrimSuffix(next, "#leaderboard"))
	if n := len(allByTestID(resp.doc, "board-row")); n != 20 || byTestID(resp.doc, "board-prev") == nil {
		t.Fatalf("second page: %d rows", n)
	}
	if first := text(allByTestID(resp.doc, "board-row")[0].FirstChild); first != "21" {
		t.Errorf("second page starts with %q, want rank 21", first)
	}
	resp = b.get(strings.TrimSuffix(attr(byTestID(resp.doc, "board-next"), "href"), "#leaderboard"))
	if n := len(allByTestID(resp.doc, "board-row")); n != 5 || byTestID(resp.doc, "board-next") != nil {
		t.Errorf("last page: %d rows", n)
	}
}
