package admin

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

func TestMembersViewRendering(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)
	members := memberItems([]owner.Member{
		{OwnerID: "own_a", Email: "a@example.com", Role: owner.RoleOwner, Since: since},
		{OwnerID: "own_b", Email: "b@example.com", Role: owner.RoleViewer, Since: since},
	})
	audit := memberEvents([]owner.AuditEntry{
		{OwnerEmail: "a@example.com", Action: owner.ActionMemberRemoved, Member: owner.AuditMember{Email: "c@example.com", Role: "viewer"}, CreatedAt: since},
		{OwnerEmail: "a@example.com", Action: owner.ActionMemberRoleChanged, Member: owner.AuditMember{Email: "b@example.com", Role: "owner"}, CreatedAt: since},
		{OwnerEmail: "a@example.com", Action: owner.ActionMemberAdded, Member: owner.AuditMember{Email: "b@example.com", Role: "viewer"}, CreatedAt: since},
	})
	cases := []struct {
		name    string
		role    owner.Role
		d       membersData
		present []string
		absent  []string
	}{
		{name: "owner", role: owner.RoleOwner, d: membersData{Members: members},
			present: []string{"members-table", "add-member", "member-role-form", "member-remove", "member-audit-empty"},
			absent:  []string{"members-readonly", "members-error", "member-email-error"}},
		{name: "viewer", role: owner.RoleViewer, d: membersData{Members: members, Audit: audit},
			present: []string{"members-table", "members-readonly", "member-audit-log"},
			absent:  []string{"add-member", "member-role-form", "member-remove", "member-role-select"}},
		{name: "rejected add", role: owner.RoleOwner, d: membersData{Members: members, Email: "x@example.com", Role: "admin", EmailErr: msgNoEmail, RoleErr: msgInvalidRole},
			present: []string{"member-email-error", "member-role-error"}},
		{name: "rejected change", role: owner.RoleOwner, d: membersData{Members: members, Err: msgLastOwnerRole},
			present: []string{"members-error"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := render(t, settingsView(projectPage(c.role, "settings"), projectForm{Name: "Acme"}, c.d, originsData{}))
			for _, id := range c.present {
				if len(find(doc, id)) == 0 {
					t.Errorf("no %s", id)
				}
			}
			for _, id := range c.absent {
				if len(find(doc, id)) != 0 {
					t.Errorf("unexpected %s", id)
				}
			}
			rows := find(doc, "member-row")
			if len(rows) != 2 {
				t.Fatalf("%d member rows, want 2", len(rows))
			}
			if got := textOf(find(rows[1], "member-email")) + " " + textOf(find(rows[1], "member-role")); got != "b@example.com Viewer" {
				t.Errorf("second row = %q", got)
			}
			if got := textOf(rows); got == "" || !strings.Contains(got, "2026-05-01 09:30 UTC") {
				t.Errorf("first row %q lacks the since date", got)
			}
		})
	}

	doc := render(t, settingsView(projectPage(owner.RoleViewer, "settings"), projectForm{}, membersData{Members: members, Audit: audit}, originsData{}))
	entries := find(doc, "member-audit-entry")
	want := []string{
		"a@example.com removed c@example.com (viewer)",
		"a@example.com made b@example.com an owner",
		"a@example.com added b@example.com as viewer",
	}
	if len(entries) != len(want) {
		t.Fatalf("%d audit entries, want %d", len(entries), len(want))
	}
	for i, w := range want {
		if got := textOf(entries[i : i+1]); !strings.Contains(got, w) {
			t.Errorf("entry %d = %q, want %q", i, got, w)
		}
	}

	// The add form keeps what was typed; every control has a label.
	doc = render(t, settingsView(projectPage(owner.RoleOwner, "settings"), projectForm{}, membersData{Members: members, Email: "x@example.com", Role: "owner", EmailErr: msgAlreadyMember}, originsData{}))
	in := find(doc, "member-email-input")[0]
	if attrOf(in, "value") != "x@example.com" || attrOf(in, "aria-invalid") != "true" {
		t.Errorf("email input = %v", in.Attr)
	}
	if got := selected(find(doc, "member-role-input")[0]); got != "owner" {
		t.Errorf("role select shows %q, want owner as typed", got)
	}
	labels := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Data == "label" {
			labels[attrOf(n, "for")] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, id := range []string{"member-email", "member-role", "role-own_a", "role-own_b"} {
		if !labels[id] {
			t.Errorf("control %s has no label", id)
		}
	}
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// selected returns the value of a select's selected option.
func selected(sel *html.Node) string {
	for o := sel.FirstChild; o != nil; o = o.NextSibling {
		if o.Data != "option" {
			continue
		}
		for _, a := range o.Attr {
			if a.Key == "selected" {
				return attrOf(o, "value")
			}
		}
	}
	return ""
}
