package admin

import (
	"net/http"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// auditShown is how many audit entries the keys page lists.
const auditShown = 50

// keysData is the keys page.
type keysData struct {
	Keys  []keyItem
	Audit []keyEvent
	// NewKey is the key just created: shown once, on this response only.
	NewKey  string
	Name    string
	NameErr string
}

// keyItem is one API key as the console shows it: never its hash.
type keyItem struct {
	ID, Name, Prefix, Created, LastUsed string
	// Revoked is when the key was revoked; "" while it is active.
	Revoked string
}

func newKeyItem(k project.APIKey) keyItem {
	return keyItem{
		ID: k.ID, Name: k.Name, Prefix: k.Prefix, Created: when(k.CreatedAt),
		LastUsed: whenPtr(k.LastUsedAt, "Never"), Revoked: whenPtr(k.RevokedAt, ""),
	}
}

func keyItems(keys []project.APIKey) []keyItem {
	out := make([]keyItem, len(keys))
	for i, k := range keys {
		out[i] = newKeyItem(k)
	}
	return out
}

// keyEvent is one line of the keys' activity.
type keyEvent struct {
	When, By, Verb, Prefix, Name string
}

func keyEvents(entries []owner.AuditEntry) []keyEvent {
	out := make([]keyEvent, len(entries))
	for i, e := range entries {
		verb := string(e.Action)
		switch e.Action {
		case owner.ActionKeyCreated:
			verb = "created key"
		case owner.ActionKeyRevoked:
			verb = "revoked key"
		}
		out[i] = keyEvent{When: when(e.CreatedAt), By: e.OwnerEmail, Verb: verb, Prefix: e.Key.Prefix, Name: e.Key.Name}
	}
	return out
}

func (c *console) keysPage(w http.ResponseWriter, r *http.Request, rq *request) {
	p := rq.page("API keys", "keys")
	if prefix := r.URL.Query().Get("revoked"); prefix != "" && len(prefix) <= 20 {
		p.Notice = "Key " + prefix + "… is revoked: requests with it now fail."
	}
	c.renderKeys(w, r, rq, p, http.StatusOK, keysData{})
}

func (c *console) renderKeys(w http.ResponseWriter, r *http.Request, rq *request, p page, status int, d keysData) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	keys, err := c.Keys.Keys(ctx, rq.actor.Project.ID)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	audit, err := c.Audit.AuditLog(ctx, rq.actor.Project.ID, owner.KeyActions, auditShown)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d.Keys, d.Audit = keyItems(keys), keyEvents(audit)
	c.render(w, r, status, keysView(p, d))
}

func (c *console) createKey(w http.ResponseWriter, r *http.Request, rq *request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if project.ValidateName(name) != nil {
		c.renderKeys(w, r, rq, rq.page("API keys", "keys"), http.StatusUnprocessableEntity,
			keysData{Name: name, NameErr: "Give the key a name of 1 to 100 characters, such as “production backend”."})
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	key, _, err := c.KeyChanges.CreateKey(ctx, rq.actor, name)
	if err != nil {
		c.refuse(w, r, err)
		return
	}
	// The key is in this response only: never in a URL, never cached.
	p := rq.page("API keys", "keys")
	p.Notice = "Key created. Copy it now: it will not be shown again."
	c.renderKeys(w, r, rq, p, http.StatusOK, keysData{NewKey: key})
}

func (c *console) revokePage(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	k, err := c.Keys.Key(ctx, rq.actor.Project.ID, r.PathValue("key"))
	if err != nil {
		c.refuse(w, r, err) // a key of another project is a 404, as an unknown one is
		return
	}
	c.render(w, r, http.StatusOK, revokeView(rq.page("Revoke key", "keys"), newKeyItem(k)))
}

func (c *console) revokeKey(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	k, err := c.KeyChanges.RevokeKey(ctx, rq.actor, r.PathValue("key"))
	if err != nil {
		c.refuse(w, r, err)
		return
	}
	http.Redirect(w, r, projectURL(rq.actor.Project.ID, "/keys?revoked="+urlQueryEscape(k.Prefix)), http.StatusSeeOther)
}
