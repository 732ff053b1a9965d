package admin

import (
	"errors"
	"net/http"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// The messages of rejected member forms.
const (
	msgNoEmail        = "Enter the email of their console account."
	msgAlreadyMember  = "This account is already a member of this project: change its role in the list above."
	msgInvalidRole    = "Choose a role: owner or viewer."
	msgLastOwnerRole  = "This is the project's last owner: make another member an owner before changing this role."
	msgLastOwnerLeave = "This is the project's last owner and cannot be removed: make another member an owner first."
)

// membersData is the Members section of the settings page.
type membersData struct {
	Members []memberItem
	Audit   []memberEvent
	// Email and Role are the add form as filled in, with their messages.
	Email    string
	Role     string
	EmailErr string
	RoleErr  string
	// Err is a rejected role change or removal, shown above the list.
	Err string
}

// memberItem is one row of the members list.
type memberItem struct {
	ID, Email string
	Role      owner.Role
	Since     string
}

func memberItems(ms []owner.Member) []memberItem {
	out := make([]memberItem, len(ms))
	for i, m := range ms {
		out[i] = memberItem{ID: m.OwnerID, Email: m.Email, Role: m.Role, Since: when(m.Since)}
	}
	return out
}

// memberEvent is one line of the members' activity: when, who, and what
// they did, e.g. "made b@example.com an owner".
type memberEvent struct {
	When, By, Text string
}

func memberEvents(entries []owner.AuditEntry) []memberEvent {
	out := make([]memberEvent, len(entries))
	for i, e := range entries {
		out[i] = memberEvent{When: when(e.CreatedAt), By: e.OwnerEmail, Text: memberAuditText(e)}
	}
	return out
}

// settingsNotices are the confirmations of the settings page, by ?done=.
var settingsNotices = map[string]string{
	"saved": "Settings saved.",
	// The same whether the email has an account or not (addMember).
	"added":   "If a console account uses this email, it is a member of this project now. If none does yet, they need one first (sign-up, or reclaim owner create by the operator); then add them again.",
	"role":    "Role changed.",
	"removed": "Member removed.",
	// origins.go
	"origin-added":   "Origin added: pages served from it may call the API with this project's session tokens within a few seconds.",
	"origin-removed": "Origin removed: browsers on it are refused within a few seconds.",
}

// renderSettings renders the settings page with its browser origins and
// members.
func (c *console) renderSettings(w http.ResponseWriter, r *http.Request, rq *request, p page, status int, f projectForm, d membersData, o originsData) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	origins, err := c.Origins.Origins(ctx, rq.actor.Project.ID)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	originAudit, err := c.Audit.AuditLog(ctx, rq.actor.Project.ID, owner.OriginActions, auditShown)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	o.Origins, o.Audit = originItems(origins), originEvents(originAudit)
	members, err := c.Members.Members(ctx, rq.actor.Project.ID)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	audit, err := c.Audit.AuditLog(ctx, rq.actor.Project.ID, owner.MemberActions, auditShown)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d.Members, d.Audit = memberItems(members), memberEvents(audit)
	c.render(w, r, status, settingsView(p, f, d, o))
}

// rejectMembers shows the settings page again with a rejected member form.
func (c *console) rejectMembers(w http.ResponseWriter, r *http.Request, rq *request, d membersData) {
	f := projectForm{Name: rq.actor.Project.Name, Wallet: rq.actor.Project.DonationWallet}
	c.renderSettings(w, r, rq, rq.page("Settings", "settings"), http.StatusUnprocessableEntity, f, d, originsData{})
}

func readRole(r *http.Request) owner.Role {
	return owner.Role(strings.TrimSpace(r.PostFormValue("role")))
}

// addMember checks the form with the owner domain's rules (every rejected
// field at once), then adds the member through the owner service, which
// checks them again. An email without an account gets the answer an added
// one does, so that the form tells no one which emails have accounts.
func (c *console) addMember(w http.ResponseWriter, r *http.Request, rq *request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	role := readRole(r)
	d := membersData{Email: email, Role: string(role)}
	if !owner.ValidRole(role) {
		d.RoleErr = msgInvalidRole
	}
	if owner.ValidateEmail(email) != nil {
		d.EmailErr = msgNoEmail
	}
	if d.EmailErr != "" || d.RoleErr != "" {
		c.rejectMembers(w, r, rq, d)
		return
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	_, err := c.MemberChanges.AddMember(ctx, rq.actor, email, role)
	switch {
	case errors.Is(err, owner.ErrConflict):
		d.EmailErr = msgAlreadyMember // a member is in the list already: this tells nothing new
	case err != nil && !errors.Is(err, owner.ErrNoAccount):
		c.refuse(w, r, err)
		return
	default:
		http.Redirect(w, r, projectURL(rq.actor.Project.ID, "/settings?done=added#members"), http.StatusSeeOther)
		return
	}
	c.rejectMembers(w, r, rq, d)
}

func (c *console) setMemberRole(w http.ResponseWriter, r *http.Request, rq *request) {
	memberID, role := r.PathValue("member"), readRole(r)
	ctx, cancel := c.dbContext(r)
	defer cancel()
	if err := c.MemberChanges.SetRole(ctx, rq.actor, memberID, role); err != nil {
		c.memberError(w, r, rq, err, msgLastOwnerRole)
		return
	}
	next := "/settings?done=role#members"
	if memberID == rq.owner.ID && !role.CanManage() {
		next = "/settings?done=role" // now a viewer: there is no member form to come back to
	}
	http.Redirect(w, r, projectURL(rq.actor.Project.ID, next), http.StatusSeeOther)
}

func (c *console) removeMember(w http.ResponseWriter, r *http.Request, rq *request) {
	memberID := r.PathValue("member")
	ctx, cancel := c.dbContext(r)
	defer cancel()
	if err := c.MemberChanges.RemoveMember(ctx, rq.actor, memberID); err != nil {
		c.memberError(w, r, rq, err, msgLastOwnerLeave)
		return
	}
	if memberID == rq.owner.ID {
		// They left the project: its pages are now a 404 to them.
		http.Redirect(w, r, "/admin/projects", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, projectURL(rq.actor.Project.ID, "/settings?done=removed#members"), http.StatusSeeOther)
}

// memberError answers a refused member change: the last owner (with
// lastOwner, the message for this change) and an invalid role show the
// settings page again; someone who is not a member of this project is a 404,
// as a key of another project is.
func (c *console) memberError(w http.ResponseWriter, r *http.Request, rq *request, err error, lastOwner string) {
	invalid, isInvalid := fault.As(err, fault.KindInvalid)
	switch {
	case errors.Is(err, owner.ErrLastOwner):
		c.rejectMembers(w, r, rq, membersData{Err: lastOwner})
	case isInvalid && invalid.Param() == "role":
		c.rejectMembers(w, r, rq, membersData{Err: msgInvalidRole})
	default:
		c.refuse(w, r, err)
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
