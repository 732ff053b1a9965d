package admin

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/a-h/templ"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// page is what the layout needs: who is signed in, where they are.
type page struct {
	Title string
	// Email is the signed-in owner's; "" on the signed-out pages.
	Email string
	CSRF  string
	// Project is set on a project's pages, with the owner's Role and the
	// active Tab ("overview", "keys", "settings").
	Project *projectHeader
	Role    owner.Role
	Tab     string
	// Notice is a confirmation shown at the top of the page.
	Notice string
}

// projectHeader is the project a page is about.
type projectHeader struct {
	ID, Name, DonationWallet string
}

func (rq *request) page(title, tab string) page {
	p := page{Title: title, Email: rq.owner.Email, CSRF: rq.session.CSRFToken, Tab: tab}
	if a := rq.actor; a.Project.ID != "" {
		p.Project = &projectHeader{ID: a.Project.ID, Name: a.Project.Name, DonationWallet: a.Project.DonationWallet}
		p.Role = a.Role
	}
	return p
}

func (c *console) render(w http.ResponseWriter, r *http.Request, status int, comp templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := comp.Render(r.Context(), w); err != nil {
		c.Log.Warn("console: render", "path", r.URL.Path, "err", err)
	}
}

// fail renders an error page with a message for the owner.
func (c *console) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	c.render(w, r, status, errorView(page{Title: http.StatusText(status)}, status, msg))
}

// forbidden answers a viewer who asked for a change only owners may make.
func (c *console) forbidden(w http.ResponseWriter, r *http.Request) {
	c.fail(w, r, http.StatusForbidden, "Viewers cannot change API keys or settings. Ask an owner of this project.")
}

func (c *console) notFound(w http.ResponseWriter, r *http.Request) {
	c.fail(w, r, http.StatusNotFound, "There is nothing here, or you do not have access to it.")
}

// refuse answers an error of the domain services: what does not exist, or
// is not the owner's to see, is a 404; a viewer's change a 403; anything
// else a 500 that leaks nothing.
func (c *console) refuse(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, owner.ErrNotFound), errors.Is(err, project.ErrNotFound):
		c.notFound(w, r)
	case errors.Is(err, owner.ErrForbidden):
		c.forbidden(w, r)
	default:
		c.serverError(w, r, err)
	}
}

// serverError logs the cause and shows a message that leaks nothing.
func (c *console) serverError(w http.ResponseWriter, r *http.Request, err error) {
	c.Log.Error("console: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	c.fail(w, r, http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment.")
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// projectURL is the path of a project page; suffix is "", "/keys" or "/settings".
func projectURL(id, suffix string) string {
	return "/admin/projects/" + url.PathEscape(id) + suffix
}
