package admin

import (
	"errors"
	"net/http"
	"net/mail"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/owner"
)

// The messages of rejected member forms.
const (
	msgNoEmail        = "Enter the email of their console account."
	msgUnknownEmail   = "No console account uses this email: ask them to sign up or to be created with reclaim owner create."
	msgAlreadyMember  = "This account is already a member of this project: change its role in the list above."
	msgInvalidRole    = "Choose a role: owner or viewer."
	msgLastOwnerRole  = "This is the project's last owner: make another member an owner before changing this role."
	msgLastOwnerLeave = "This is the project's last owner and cannot be removed: make another member an owner first."
)

// membersData is the Members section of the settings page.
type membersData struct {
	Members []owner.Member
	Audit   []owner.AuditEntry
	// Email and Role are the add form as filled in, with their messages.
	Email    string
	Role     string
	EmailErr string
	RoleErr  string
	// Err is a rejected role change or removal, shown above the list.
	Err string
}

// settingsNotices are the confirmations of the settings page, by ?done=.
var settingsNotices = map[string]string{
	"saved":   "Settings saved.",
	"added":   "Member added.",
	"role":    "Role changed.",
	"removed": "Member removed.",
}

// renderSettings renders the settings page with its members.
func (c *console) renderSettings(w http.ResponseWriter, r *http.Request, rq *request, p page, status int, f projectForm, d membersData) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	var err error
	if d.Members, err = c.Store.ListMembers(ctx, rq.project.ID); err != nil {
		c.serverError(w, r, err)
		return
	}
	if d.Audit, err = c.Store.AuditLogActions(ctx, rq.project.ID, owner.MemberActions, auditShown); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.render(w, r, status, settingsView(p, f, d))
}

// rejectMembers shows the settings page again with a rejected member form.
func (c *console) rejectMembers(w http.ResponseWriter, r *http.Request, rq *request, d membersData) {
	f := projectForm{Name: rq.project.Name, Wallet: rq.project.DonationWallet}
	c.renderSettings(w, r, rq, rq.page("Settings", "settings"), http.StatusUnprocessableEntity, f, d)
}

func readRole(r *http.Request) (owner.Role, bool) {
	role := owner.Role(strings.TrimSpace(r.PostFormValue("role")))
	return role, owner.ValidRole(role)
}

func (c *console) addMember(w http.ResponseWriter, r *http.Request, rq *request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	role, ok := readRole(r)
	d := membersData{Email: email, Role: string(role)}
	if !ok {
		d.RoleErr = msgInvalidRole
	}
	if a, err := mail.ParseAddress(email); email == "" || len(email) > 254 || err != nil || a.Address != email {
		d.EmailErr = msgNoEmail
	}
	if d.EmailErr != "" || d.RoleErr != "" {
		c.rejectMembers(w, r, rq, d)
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	o, err := c.Store.OwnerByEmail(ctx, email)
	if errors.Is(err, owner.ErrNotFound) {
		d.EmailErr = msgUnknownEmail
		c.rejectMembers(w, r, rq, d)
		return
	}
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	err = c.Store.AddMember(ctx, rq.project.ID, o.ID, role)
	if errors.Is(err, owner.ErrConflict) {
		d.EmailErr = msgAlreadyMember
		c.rejectMembers(w, r, rq, d)
		return
	}
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	c.auditMember(r, rq, owner.ActionMemberAdded, o, role)
	http.Redirect(w, r, projectURL(rq.project.ID, "/settings?done=added#members"), http.StatusSeeOther)
}

// pathMember returns the path's member when they belong to the path's
// project; anyone else is a 404, as a key of another project is.
func (c *console) pathMember(w http.ResponseWriter, r *http.Request, rq *request) (owner.Owner, bool) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	o, err := c.Store.OwnerByID(ctx, r.PathValue("member"))
	if err == nil {
		_, err = c.Store.Membership(ctx, rq.project.ID, o.ID)
	}
	if errors.Is(err, owner.ErrNotFound) {
		c.notFound(w, r)
		return owner.Owner{}, false
	}
	if err != nil {
		c.serverError(w, r, err)
		return owner.Owner{}, false
	}
	return o, true
}

func (c *console) setMemberRole(w http.ResponseWriter, r *http.Request, rq *request) {
	m, ok := c.pathMember(w, r, rq)
	if !ok {
		return
	}
	role, ok := readRole(r)
	if !ok {
		c.rejectMembers(w, r, rq, membersData{Err: msgInvalidRole})
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	before, err := c.Store.SetMemberRole(ctx, rq.project.ID, m.ID, role)
	switch {
	case errors.Is(err, owner.ErrLastOwner):
		c.rejectMembers(w, r, rq, membersData{Err: msgLastOwnerRole})
		return
	case errors.Is(err, owner.ErrNotFound):
		c.notFound(w, r)
		return
	case err != nil:
		c.serverError(w, r, err)
		return
	}
	if before.Role != role {
		c.auditMember(r, rq, owner.ActionMemberRoleChanged, m, role)
	}
	next := "/settings?done=role#members"
	if m.ID == rq.owner.ID && !role.CanManage() {
		next = "/settings?done=role" // now a viewer: there is no member form to come back to
	}
	http.Redirect(w, r, projectURL(rq.project.ID, next), http.StatusSeeOther)
}

func (c *console) removeMember(w http.ResponseWriter, r *http.Request, rq *request) {
	m, ok := c.pathMember(w, r, rq)
	if !ok {
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	before, err := c.Store.RemoveMember(ctx, rq.project.ID, m.ID)
	switch {
	case errors.Is(err, owner.ErrLastOwner):
		c.rejectMembers(w, r, rq, membersData{Err: msgLastOwnerLeave})
		return
	case errors.Is(err, owner.ErrNotFound):
		c.notFound(w, r)
		return
	case err != nil:
		c.serverError(w, r, err)
		return
	}
	c.auditMember(r, rq, owner.ActionMemberRemoved, m, before.Role)
	if m.ID == rq.owner.ID {
		// They left the project: its pages are now a 404 to them.
		http.Redirect(w, r, "/admin/projects", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, projectURL(rq.project.ID, "/settings?done=removed#members"), http.StatusSeeOther)
}

// auditMember records a change to a member; a failure is logged, not shown:
// the change itself succeeded.
func (c *console) auditMember(r *http.Request, rq *request, action owner.Action, m owner.Owner, role owner.Role) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	err := c.Store.AddAudit(ctx, owner.AuditEntry{
		ProjectID: rq.project.ID, OwnerID: rq.owner.ID, OwnerEmail: rq.owner.Email, Action: action,
		Member: owner.AuditMember{ID: m.ID, Email: m.Email, Role: role}, CreatedAt: c.Now().UTC(),
	})
	if err != nil {
		c.Log.Error("console: audit", "action", string(action), "member", m.ID, "err", err)
	}
}

// memberAuditText is how a member entry reads after the acting owner's email.
func memberAuditText(e owner.AuditEntry) string {
	m := e.Member
	switch e.Action {
	case owner.ActionMemberAdded:
		return "added " + m.Email + " as " + roleName(m.Role)
	case owner.ActionMemberRoleChanged:
		return "made " + m.Email + " " + article(m.Role) + " " + roleName(m.Role)
	case owner.ActionMemberRemoved:
		return "removed " + m.Email + " (" + roleName(m.Role) + ")"
	}
	return string(e.Action)
}

func roleName(r owner.Role) string {
	if r.CanManage() {
		return "owner"
	}
	return "viewer"
}

// roleTitle is how the members list shows a role, as the projects page does.
func roleTitle(r owner.Role) string {
	if r.CanManage() {
		return "Owner"
	}
	return "Viewer"
}

func article(r owner.Role) string {
	if r.CanManage() {
		return "an"
	}
	return "a"
}

// roleSelected reports whether the add form's role select shows want.
func roleSelected(got string, want owner.Role) bool {
	if got == "" {
		return want == owner.RoleViewer
	}
	return got == string(want)
}
