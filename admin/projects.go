package admin

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/reclaim-sol/reclaim/backend/auth"
	"github.com/reclaim-sol/reclaim/backend/owner"
	"github.com/reclaim-sol/reclaim/backend/project"
)

// projectForm is the project form (create and settings) as filled in, with a
// message per rejected field.
type projectForm struct {
	Name   string
	Wallet string
	Errors map[string]string
}

func readProjectForm(r *http.Request) projectForm {
	f := projectForm{
		Name:   strings.TrimSpace(r.PostFormValue("name")),
		Wallet: strings.TrimSpace(r.PostFormValue("donation_wallet")),
		Errors: map[string]string{},
	}
	if n := utf8.RuneCountInString(f.Name); n == 0 || n > 100 {
		f.Errors["name"] = "Give the project a name of 1 to 100 characters."
	}
	if f.Wallet != "" {
		if err := auth.ValidateAddress(f.Wallet); err != nil {
			f.Errors["donation_wallet"] = "The donation wallet must be a Solana address (base58, 32 bytes), or left empty."
		}
	}
	return f
}

func (c *console) projectsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	c.renderProjects(w, r, rq, http.StatusOK, projectForm{})
}

func (c *console) renderProjects(w http.ResponseWriter, r *http.Request, rq *request, status int, f projectForm) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	list, err := c.Store.ProjectsOf(ctx, rq.owner.ID)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	c.render(w, r, status, projectsView(rq.page("Projects", ""), list, f))
}

func (c *console) createProject(w http.ResponseWriter, r *http.Request, rq *request) {
	f := readProjectForm(r)
	if len(f.Errors) > 0 {
		c.renderProjects(w, r, rq, http.StatusUnprocessableEntity, f)
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	p, err := c.Store.CreateOwnedProject(ctx, project.Project{Name: f.Name, DonationWallet: f.Wallet, CreatedAt: c.Now().UTC()}, rq.owner.ID)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, projectURL(p.ID, ""), http.StatusSeeOther)
}

func (c *console) settingsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	f := projectForm{Name: rq.project.Name, Wallet: rq.project.DonationWallet}
	p := rq.page("Settings", "settings")
	p.Notice = settingsNotices[r.URL.Query().Get("done")]
	c.renderSettings(w, r, rq, p, http.StatusOK, f, membersData{})
}

func (c *console) saveSettings(w http.ResponseWriter, r *http.Request, rq *request) {
	f := readProjectForm(r)
	if len(f.Errors) > 0 {
		c.renderSettings(w, r, rq, rq.page("Settings", "settings"), http.StatusUnprocessableEntity, f, membersData{})
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	if _, err := c.Store.UpdateProject(ctx, rq.project.ID, f.Name, f.Wallet); err != nil {
		c.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, projectURL(rq.project.ID, "/settings?done=saved"), http.StatusSeeOther)
}

// roleLabel is how a membership is shown.
func roleLabel(m owner.ProjectRole) string {
	if m.Role.CanManage() {
		return "Owner"
	}
	return "Viewer"
}
