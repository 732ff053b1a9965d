package admin

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/reclaim-sol/reclaim/backend/auth"
	"github.com/reclaim-sol/reclaim/backend/owner"
	"github.com/reclaim-sol/reclaim/backend/project"
)

// auditShown is how many audit entries the keys page lists.
const auditShown = 50

// keysData is the keys page.
type keysData struct {
	Keys  []project.APIKey
	Audit []owner.AuditEntry
	// NewKey is the key just created: shown once, on this response only.
	NewKey  string
	Name    string
	NameErr string
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
	var err error
	if d.Keys, err = c.Store.ListAPIKeys(ctx, rq.project.ID); err != nil {
		c.serverError(w, r, err)
		return
	}
	if d.Audit, err = c.Store.AuditLogActions(ctx, rq.project.ID, owner.KeyActions, auditShown); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.render(w, r, status, keysView(p, d))
}

func (c *console) createKey(w http.ResponseWriter, r *http.Request, rq *request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if n := utf8.RuneCountInString(name); n == 0 || n > 100 {
		c.renderKeys(w, r, rq, rq.page("API keys", "keys"), http.StatusUnprocessableEntity,
			keysData{Name: name, NameErr: "Give the key a name of 1 to 100 characters, such as “production backend”."})
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	key, k, err := auth.IssueAPIKey(ctx, c.Store, c.Hasher, rq.project.ID, name, c.Now())
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	c.audit(r, rq, owner.ActionKeyCreated, k)
	// The key is in this response only: never in a URL, never cached.
	p := rq.page("API keys", "keys")
	p.Notice = "Key created. Copy it now: it will not be shown again."
	c.renderKeys(w, r, rq, p, http.StatusOK, keysData{NewKey: key})
}

// projectKey returns the path's key when it belongs to the path's project.
func (c *console) projectKey(w http.ResponseWriter, r *http.Request, rq *request) (project.APIKey, bool) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	k, err := c.Store.APIKeyByID(ctx, r.PathValue("key"))
	if errors.Is(err, project.ErrNotFound) || (err == nil && k.ProjectID != rq.project.ID) {
		c.notFound(w, r)
		return project.APIKey{}, false
	}
	if err != nil {
		c.serverError(w, r, err)
		return project.APIKey{}, false
	}
	return k, true
}

func (c *console) revokePage(w http.ResponseWriter, r *http.Request, rq *request) {
	k, ok := c.projectKey(w, r, rq)
	if !ok {
		return
	}
	c.render(w, r, http.StatusOK, revokeView(rq.page("Revoke key", "keys"), k))
}

func (c *console) revokeKey(w http.ResponseWriter, r *http.Request, rq *request) {
	k, ok := c.projectKey(w, r, rq)
	if !ok {
		return
	}
	if k.RevokedAt == nil {
		ctx, cancel := c.dbContext(r)
		defer cancel()
		var err error
		if k, err = c.Store.RevokeAPIKey(ctx, k.Hash, c.Now()); err != nil {
			c.serverError(w, r, err)
			return
		}
		c.audit(r, rq, owner.ActionKeyRevoked, k)
	}
	http.Redirect(w, r, projectURL(rq.project.ID, "/keys?revoked="+urlQueryEscape(k.Prefix)), http.StatusSeeOther)
}

// audit records an action on a key; a failure is logged, not shown: the
// action itself succeeded.
func (c *console) audit(r *http.Request, rq *request, action owner.Action, k project.APIKey) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	err := c.Store.AddAudit(ctx, owner.AuditEntry{
		ProjectID: rq.project.ID, OwnerID: rq.owner.ID, OwnerEmail: rq.owner.Email, Action: action,
		Key: owner.AuditKey{ID: k.ID, Prefix: k.Prefix, Name: k.Name}, CreatedAt: c.Now().UTC(),
	})
	if err != nil {
		c.Log.Error("console: audit", "action", string(action), "key", k.ID, "err", err)
	}
}
