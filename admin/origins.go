package admin

import (
	"errors"
	"net/http"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// The messages of rejected origin forms.
const (
	msgOriginListed   = "This origin is listed already."
	msgOriginNotFound = "This origin is not listed (any more): reload the page."
)

// originsData is the Allowed origins section of the settings page.
type originsData struct {
	Origins []originItem
	Audit   []memberEvent
	// Origin is the add form as filled in, with its message.
	Origin    string
	OriginErr string
	// Err is a rejected removal, shown above the list.
	Err string
}

// originItem is one row of the origins list.
type originItem struct {
	Origin, Since string
}

func originItems(list []project.Origin) []originItem {
	out := make([]originItem, len(list))
	for i, o := range list {
		out[i] = originItem{Origin: o.Origin, Since: when(o.CreatedAt)}
	}
	return out
}

func originEvents(entries []owner.AuditEntry) []memberEvent {
	out := make([]memberEvent, len(entries))
	for i, e := range entries {
		text := "added " + e.Origin
		if e.Action == owner.ActionOriginRemoved {
			text = "removed " + e.Origin
		}
		out[i] = memberEvent{When: when(e.CreatedAt), By: e.OwnerEmail, Text: text}
	}
	return out
}

// rejectOrigins shows the settings page again with a rejected origin form.
func (c *console) rejectOrigins(w http.ResponseWriter, r *http.Request, rq *request, o originsData) {
	f := projectForm{Name: rq.actor.Project.Name, Wallet: rq.actor.Project.DonationWallet}
	c.renderSettings(w, r, rq, rq.page("Settings", "settings"), http.StatusUnprocessableEntity, f, membersData{}, o)
}

// addOrigin adds a browser origin through the owner service (audited),
// which checks it with the project domain's rules.
func (c *console) addOrigin(w http.ResponseWriter, r *http.Request, rq *request) {
	origin := strings.TrimSpace(r.PostFormValue("origin"))
	ctx, cancel := c.dbContext(r)
	defer cancel()
	_, err := c.OriginChanges.AddOrigin(ctx, rq.actor, origin)
	invalid, isInvalid := fault.As(err, fault.KindInvalid)
	switch {
	case isInvalid:
		c.rejectOrigins(w, r, rq, originsData{Origin: origin, OriginErr: invalid.Error()})
	case errors.Is(err, project.ErrConflict):
		c.rejectOrigins(w, r, rq, originsData{Origin: origin, OriginErr: msgOriginListed})
	case err != nil:
		c.refuse(w, r, err)
	default:
		http.Redirect(w, r, projectURL(rq.actor.Project.ID, "/settings?done=origin-added#origins"), http.StatusSeeOther)
	}
}

func (c *console) removeOrigin(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	err := c.OriginChanges.RemoveOrigin(ctx, rq.actor, r.PostFormValue("origin"))
	switch {
	case errors.Is(err, project.ErrNotFound):
		c.rejectOrigins(w, r, rq, originsData{Err: msgOriginNotFound})
	case err != nil:
		c.refuse(w, r, err)
	default:
		http.Redirect(w, r, projectURL(rq.actor.Project.ID, "/settings?done=origin-removed#origins"), http.StatusSeeOther)
	}
}
