package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// origins returns the settings page's allowed origins.
func origins(t *testing.T, b *browser, projectID string) []string {
	t.Helper()
	resp := b.get("/admin/projects/" + projectID + "/settings")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET settings: %d", resp.StatusCode)
	}
	var out []string
	for _, row := range allByTestID(resp.doc, "origin-value") {
		out = append(out, text(row))
	}
	return out
}

// Owners add and remove a project's browser origins on the settings page,
// each change audited; a rejected origin says why and keeps what was typed;
// viewers see the list and change nothing.
func TestOriginsLifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	h.owner("bob@example.com")
	alice := h.browser()
	csrf := alice.signIn("alice@example.com")
	id := alice.createProject(csrf, "Acme")
	base := "/admin/projects/" + id
	if page := alice.get(base + "/settings"); byTestID(page.doc, "origins-empty") == nil || byTestID(page.doc, "add-origin") == nil {
		t.Fatal("a new project's settings do not show the empty origins and the add form")
	}

	for _, o := range []string{" HTTPS://App.Example/ ", "http://localhost:5173"} {
		resp := alice.post(base+"/origins", url.Values{"csrf_token": {csrf}, "origin": {o}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != base+"/settings?done=origin-added#origins" {
			t.Fatalf("add %q: %d %s", o, resp.StatusCode, resp.Header.Get("Location"))
		}
		h.clock.Advance(time.Minute)
	}
	if got := strings.Join(origins(t, alice, id), " "); got != "https://app.example http://localhost:5173" {
		t.Errorf("origins = %q", got)
	}
	rejected := []struct{ name, origin, want string }{
		{"a path", "https://app.example/login", "no path"},
		{"no scheme", "app.example", "the scheme must be http or https"},
		{"a wildcard", "https://*.example", "wildcards are not allowed"},
		{"listed already", "https://app.example:443", "listed already"},
	}
	for _, c := range rejected {
		resp := alice.post(base+"/origins", url.Values{"csrf_token": {csrf}, "origin": {c.origin}})
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(byTestID(resp.doc, "origin-error")), c.want) {
			t.Errorf("%s: %d, %q; want 422 saying %q", c.name, resp.StatusCode, text(byTestID(resp.doc, "origin-error")), c.want)
		}
		if got := attr(byTestID(resp.doc, "origin-input"), "value"); got != c.origin {
			t.Errorf("%s: the form lost the origin: %q", c.name, got)
		}
	}
	h.clock.Advance(time.Minute)
	resp := alice.post(base+"/origins/remove", url.Values{"csrf_token": {csrf}, "origin": {"http://localhost:5173"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove: %d", resp.StatusCode)
	}
	resp = alice.post(base+"/origins/remove", url.Values{"csrf_token": {csrf}, "origin": {"http://localhost:5173"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(byTestID(resp.doc, "origins-error")), "not listed") {
		t.Errorf("remove again: %d %q", resp.StatusCode, text(byTestID(resp.doc, "origins-error")))
	}
	page := alice.get(base + "/settings")
	var log []string
	for _, e := range allByTestID(page.doc, "origin-audit-entry") {
		log = append(log, text(e))
	}
	if len(log) != 3 || !strings.Contains(log[0], "alice@example.com removed http://localhost:5173") ||
		!strings.Contains(log[2], "alice@example.com added https://app.example") {
		t.Errorf("origin activity = %q", log)
	}

	// Bob, a viewer, sees the origins and changes nothing.
	if _, err := h.owners.Share(t.Context(), id, "bob@example.com", owner.RoleViewer); err != nil {
		t.Fatal(err)
	}
	bob := h.browser()
	csrfB := bob.signIn("bob@example.com")
	page = bob.get(base + "/settings")
	if byTestID(page.doc, "add-origin") != nil || byTestID(page.doc, "origin-remove") != nil || byTestID(page.doc, "origins-readonly") == nil {
		t.Error("a viewer is offered origin changes")
	}
	if resp := bob.post(base+"/origins", url.Values{"csrf_token": {csrfB}, "origin": {"https://evil.example"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer adds an origin: %d, want 403", resp.StatusCode)
	}
	if resp := bob.post(base+"/origins/remove", url.Values{"csrf_token": {csrfB}, "origin": {"https://app.example"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer removes an origin: %d, want 403", resp.StatusCode)
	}
	if got := strings.Join(origins(t, alice, id), " "); got != "https://app.example" {
		t.Errorf("origins after the viewer's attempts = %q", got)
	}
}
