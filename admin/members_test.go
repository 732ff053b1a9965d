package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// formPost is a form and where it goes.
type formPost struct {
	path string
	form url.Values
}

// members returns the settings page's members as "email:role".
func members(t *testing.T, b *browser, projectID string) []string {
	t.Helper()
	resp := b.get("/admin/projects/" + projectID + "/settings")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET settings: %d", resp.StatusCode)
	}
	var out []string
	for _, row := range allByTestID(resp.doc, "member-row") {
		out = append(out, text(byTestID(row, "member-email"))+":"+text(byTestID(row, "member-role")))
	}
	return out
}

func TestMembersLifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	bob := h.owner("bob@example.com")
	h.owner("carol@example.com")
	alice := h.browser()
	csrf := alice.signIn("alice@example.com")
	id := alice.createProject(csrf, "Acme")
	base := "/admin/projects/" + id
	aliceID := attr(byTestID(alice.get(base+"/settings").doc, "member-row"), "data-member-id")

	if got := strings.Join(members(t, alice, id), " "); got != "alice@example.com:Owner" {
		t.Fatalf("members of a new project = %q", got)
	}
	page := alice.get(base + "/settings")
	if byTestID(page.doc, "add-member") == nil || byTestID(page.doc, "member-audit-empty") == nil {
		t.Error("an owner is not offered the add form, or the empty activity")
	}

	resp := alice.post(base+"/members", url.Values{"csrf_token": {csrf}, "email": {" Bob@Example.com "}, "role": {"viewer"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != base+"/settings?done=added#members" {
		t.Fatalf("add bob: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	added := text(byTestID(alice.get(resp.Header.Get("Location")).doc, "notice"))
	if !strings.HasPrefix(added, "If a console account uses this email, it is a member of this project now.") {
		t.Errorf("notice = %q", added)
	}
	if got := strings.Join(members(t, alice, id), " "); got != "alice@example.com:Owner bob@example.com:Viewer" {
		t.Errorf("members = %q", got)
	}

	// Every rejected add says why, keeps what was typed and changes nothing.
	rejected := []struct {
		name, email, role, errID, want string
	}{
		{"already a member", "bob@example.com", "owner", "member-email-error", "already a member"},
		{"the owner herself", "alice@example.com", "viewer", "member-email-error", "already a member"},
		{"invalid role", "carol@example.com", "admin", "member-role-error", "Choose a role: owner or viewer"},
		{"no role", "carol@example.com", "", "member-role-error", "Choose a role"},
		{"no email", "  ", "viewer", "member-email-error", "Enter the email"},
		{"not an email", "carol", "viewer", "member-email-error", "Enter the email"},
	}
	for _, c := range rejected {
		resp := alice.post(base+"/members", url.Values{"csrf_token": {csrf}, "email": {c.email}, "role": {c.role}})
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(strings.ToLower(text(byTestID(resp.doc, c.errID))), strings.ToLower(c.want)) {
			t.Errorf("%s: %d, %s = %q, want %q", c.name, resp.StatusCode, c.errID, text(byTestID(resp.doc, c.errID)), c.want)
		}
		if got := attr(byTestID(resp.doc, "member-email-input"), "value"); got != strings.TrimSpace(c.email) {
			t.Errorf("%s: the form lost the email: %q", c.name, got)
		}
		if len(allByTestID(resp.doc, "member-row")) != 2 {
			t.Errorf("%s: the rejected page lists %d members, want 2", c.name, len(allByTestID(resp.doc, "member-row")))
		}
	}

	// An email without an account is answered as an added one is: the form
	// tells no one which emails have accounts.
	resp = alice.post(base+"/members", url.Values{"csrf_token": {csrf}, "email": {"nobody@example.com"}, "role": {"viewer"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != base+"/settings?done=added#members" || resp.body != "" {
		t.Errorf("add an email without an account: %d %s %q, want the answer of an added member", resp.StatusCode, resp.Header.Get("Location"), resp.body)
	}
	if got := strings.Join(members(t, alice, id), " "); got != "alice@example.com:Owner bob@example.com:Viewer" {
		t.Errorf("members after adding an email without an account = %q", got)
	}

	// The last owner can be neither demoted nor removed.
	resp = alice.post(base+"/members/"+aliceID+"/role", url.Values{"csrf_token": {csrf}, "role": {"viewer"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(byTestID(resp.doc, "members-error")), "last owner") {
		t.Errorf("demote the last owner: %d %q", resp.StatusCode, text(byTestID(resp.doc, "members-error")))
	}
	resp = alice.post(base+"/members/"+aliceID+"/remove", url.Values{"csrf_token": {csrf}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(byTestID(resp.doc, "members-error")), "last owner") {
		t.Errorf("remove the last owner: %d %q", resp.StatusCode, text(byTestID(resp.doc, "members-error")))
	}
	resp = alice.post(base+"/members/"+bob.ID+"/role", url.Values{"csrf_token": {csrf}, "role": {"admin"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(byTestID(resp.doc, "members-error")), "Choose a role") {
		t.Errorf("invalid role change: %d %q", resp.StatusCode, text(byTestID(resp.doc, "members-error")))
	}
	if got := strings.Join(members(t, alice, id), " "); got != "alice@example.com:Owner bob@example.com:Viewer" {
		t.Errorf("members after the rejections = %q", got)
	}

	// Bob, a viewer, sees the members and changes nothing.
	bobB := h.browser()
	csrfB := bobB.signIn("bob@example.com")
	page = bobB.get(base + "/settings")
	if len(allByTestID(page.doc, "member-row")) != 2 || byTestID(page.doc, "members-readonly") == nil ||
		byTestID(page.doc, "add-member") != nil || byTestID(page.doc, "member-remove") != nil || byTestID(page.doc, "member-role-form") != nil {
		t.Error("a viewer does not see the list, or is offered the member forms")
	}
	viewerPosts := []formPost{
		{base + "/members", url.Values{"email": {"carol@example.com"}, "role": {"owner"}}},
		{base + "/members/" + bob.ID + "/role", url.Values{"role": {"owner"}}},
		{base + "/members/" + aliceID + "/role", url.Values{"role": {"viewer"}}},
		{base + "/members/" + aliceID + "/remove", url.Values{}},
	}
	for _, p := range viewerPosts {
		p.form.Set("csrf_token", csrfB)
		if resp := bobB.post(p.path, p.form); resp.StatusCode != http.StatusForbidden {
			t.Errorf("viewer POST %s: %d, want 403", p.path, resp.StatusCode)
		}
	}
	if got := strings.Join(members(t, alice, id), " "); got != "alice@example.com:Owner bob@example.com:Viewer" {
		t.Errorf("members after the viewer's posts = %q", got)
	}

	// Alice makes Bob an owner; then Bob demotes and removes Alice.
	h.clock.Advance(time.Minute)
	resp = alice.post(base+"/members/"+bob.ID+"/role", url.Values{"csrf_token": {csrf}, "role": {"owner"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != base+"/settings?done=role#members" {
		t.Fatalf("promote bob: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	h.clock.Advance(time.Minute)
	if resp := bobB.post(base+"/members/"+aliceID+"/role", url.Values{"csrf_token": {csrfB}, "role": {"viewer"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob demotes alice: %d %s", resp.StatusCode, text(byTestID(resp.doc, "members-error")))
	}
	if resp := alice.post(base+"/members/"+bob.ID+"/remove", url.Values{"csrf_token": {csrf}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("alice, now a viewer, removes bob: %d, want 403", resp.StatusCode)
	}
	if resp := bobB.post(base+"/members/"+bob.ID+"/remove", url.Values{"csrf_token": {csrfB}}); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("bob, now the last owner, leaves: %d, want 422", resp.StatusCode)
	}
	h.clock.Advance(time.Minute)
	resp = bobB.post(base+"/members/"+aliceID+"/remove", url.Values{"csrf_token": {csrfB}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != base+"/settings?done=removed#members" {
		t.Fatalf("bob removes alice: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := strings.Join(members(t, bobB, id), " "); got != "bob@example.com:Owner" {
		t.Errorf("members = %q", got)
	}
	if resp := alice.get(base + "/settings"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("alice, removed, GET settings: %d, want 404", resp.StatusCode)
	}

	// Who did what, and when, newest first; the keys' activity stays the keys'.
	page = bobB.get(base + "/settings")
	var got []string
	for _, e := range allByTestID(page.doc, "member-audit-entry") {
		got = append(got, text(e))
	}
	want := []string{
		"2026-05-20 12:03 UTC bob@example.com removed alice@example.com (viewer)",
		"2026-05-20 12:02 UTC bob@example.com made alice@example.com a viewer",
		"2026-05-20 12:01 UTC alice@example.com made bob@example.com an owner",
		"2026-05-20 12:00 UTC alice@example.com added bob@example.com as viewer",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("member activity:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if keys := bobB.get(base + "/keys"); byTestID(keys.doc, "audit-empty") == nil {
		t.Error("member changes show in the keys' activity")
	}
	entries, err := h.store.AuditLog(context.Background(), id, 10)
	if err != nil || len(entries) != 4 || entries[0].OwnerID != bob.ID || entries[0].Member.ID != aliceID || entries[0].Action != "member.removed" {
		t.Errorf("stored audit = %+v, %v", entries, err)
	}
}

func TestMembersCSRFAndTenancy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	h.owner("alice@example.com")
	bob := h.owner("bob@example.com")
	h.owner("mallory@example.com")
	alice := h.browser()
	csrf := alice.signIn("alice@example.com")
	id := alice.createProject(csrf, "Alice's secret project")
	base := "/admin/projects/" + id
	if err := h.store.AddMember(context.Background(), id, bob.ID, owner.RoleViewer); err != nil {
		t.Fatal(err)
	}

	posts := []formPost{
		{base + "/members", url.Values{"email": {"mallory@example.com"}, "role": {"owner"}}},
		{base + "/members/" + bob.ID + "/role", url.Values{"role": {"owner"}}},
		{base + "/members/" + bob.ID + "/remove", url.Values{}},
	}
	for _, p := range posts {
		for _, tok := range []string{"", csrf[:len(csrf)-2] + "xx"} {
			form := url.Values{}
			for k, v := range p.form {
				form[k] = v
			}
			if tok != "" {
				form.Set("csrf_token", tok)
			}
			if resp := alice.post(p.path, form); resp.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s with token %q: %d, want 403", p.path, tok, resp.StatusCode)
			}
		}
		form := url.Values{"csrf_token": {csrf}}
		for k, v := range p.form {
			form[k] = v
		}
		if resp := alice.post(p.path, form, "Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s cross-site: %d, want 403", p.path, resp.StatusCode)
		}
	}

	// Another tenant: Alice's project is a 404, and so is Alice's member id
	// on Mallory's own project.
	mallory := h.browser()
	csrfM := mallory.signIn("mallory@example.com")
	own := mallory.createProject(csrfM, "Mallory's")
	if resp := mallory.get(base + "/settings"); resp.StatusCode != http.StatusNotFound || strings.Contains(resp.body, "bob@example.com") {
		t.Errorf("mallory GET alice's settings: %d, or the page leaks a member", resp.StatusCode)
	}
	for _, p := range append(posts,
		formPost{"/admin/projects/" + own + "/members/" + bob.ID + "/role", url.Values{"role": {"owner"}}},
		formPost{"/admin/projects/" + own + "/members/" + bob.ID + "/remove", url.Values{}},
		formPost{"/admin/projects/" + own + "/members/own_doesnotexist/remove", url.Values{}},
	) {
		form := url.Values{"csrf_token": {csrfM}}
		for k, v := range p.form {
			form[k] = v
		}
		if resp := mallory.post(p.path, form); resp.StatusCode != http.StatusNotFound {
			t.Errorf("mallory POST %s: %d, want 404", p.path, resp.StatusCode)
		}
	}

	// Nothing changed, and nothing was recorded.
	if got := strings.Join(members(t, alice, id), " "); got != "alice@example.com:Owner bob@example.com:Viewer" {
		t.Errorf("members = %q", got)
	}
	if got := strings.Join(members(t, mallory, own), " "); got != "mallory@example.com:Owner" {
		t.Errorf("mallory's members = %q", got)
	}
	if entries, _ := h.store.AuditLog(context.Background(), id, 10); len(entries) != 0 {
		t.Errorf("%d audit entries after rejected posts", len(entries))
	}
}
