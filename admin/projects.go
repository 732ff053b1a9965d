package admin

import (
	"net/http"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// projectForm is the project form (create and settings) as filled in, with a
// message per rejected field.
type projectForm struct {
	Name   string
	Wallet string
	Errors map[string]string
}

// readProjectForm reads the form and checks each field with the project
// domain's rules, so every rejected field gets its message at once.
func readProjectForm(r *http.Request) projectForm {
	f := projectForm{
		Name:   strings.TrimSpace(r.PostFormValue("name")),
		Wallet: strings.TrimSpace(r.PostFormValue("donation_wallet")),
		Errors: map[string]string{},
	}
	if project.ValidateName(f.Name) != nil {
		f.Errors["name"] = "Give the project a name of 1 to 100 characters."
	}
	if project.ValidateDonationWallet(f.Wallet) != nil {
		f.Errors["donation_wallet"] = "The donation wallet must be a Solana address (base58, 32 bytes), or left empty."
	}
	return f
}

// projectItem is one project on the projects page.
type projectItem struct {
	ID, Name, Role, Created string
}

func projectItems(list []owner.ProjectRole) []projectItem {
	out := make([]projectItem, len(list))
	for i, m := range list {
		out[i] = projectItem{ID: m.Project.ID, Name: m.Project.Name, Role: roleTitle(m.Role), Created: when(m.Project.CreatedAt)}
	}
	return out
}

func (c *console) projectsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	c.renderProjects(w, r, rq, http.StatusOK, projectForm{})
}

func (c *console) renderProjects(w http.ResponseWriter, r *http.Request, rq *request, status int, f projectForm) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	list, err := c.Projects.ProjectsOf(ctx, rq.owner.ID)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	c.render(w, r, status, projectsView(rq.page("Projects", ""), projectItems(list), f))
}

func (c *console) createProject(w http.ResponseWriter, r *http.Request, rq *request) {
	f := readProjectForm(r)
	if len(f.Errors) > 0 {
		c.renderProjects(w, r, rq, http.StatusUnprocessableEntity, f)
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	p, err := c.Projects.CreateProject(ctx, rq.owner, f.Name, f.Wallet)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, projectURL(p.ID, ""), http.StatusSeeOther)
}

func (c *console) settingsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	f := projectForm{Name: rq.actor.Project.Name, Wallet: rq.actor.Project.DonationWallet}
	p := rq.page("Settings", "settings")
	p.Notice = settingsNotices[r.URL.Query().Get("done")]
	c.renderSettings(w, r, rq, p, http.StatusOK, f, membersData{}, originsData{})
}

func (c *console) saveSettings(w http.ResponseWriter, r *http.Request, rq *request) {
	f := readProjectForm(r)
	if len(f.Errors) > 0 {
		c.renderSettings(w, r, rq, rq.page("Settings", "settings"), http.StatusUnprocessableEntity, f, membersData{}, originsData{})
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	if _, err := c.Settings.UpdateProject(ctx, rq.actor, f.Name, f.Wallet); err != nil {
		c.refuse(w, r, err)
		return
	}
	http.Redirect(w, r, projectURL(rq.actor.Project.ID, "/settings?done=saved"), http.StatusSeeOther)
}
