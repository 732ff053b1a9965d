// Package owner holds the people who run projects in the admin console and
// the rules they live by: their accounts (email and argon2id password),
// signing in (with throttling), their browser sessions, their memberships of
// projects with a role (a project always keeps an owner), and the audit log
// of what they did to keys and members.
//
// Service is the one place these rules live: the console (package admin)
// and the command line (reclaim owner create, project create --owner,
// project share) both call it. The package knows nothing of storage or HTTP:
// the storage package implements Store, the admin package serves the pages.
//
// Errors are faults (backend/pkg/fault): the sentinels below, and input a
// person must correct, an invalid fault naming the form's field ("email",
// "password", "role").
package owner

import (
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// ErrNotFound is returned when an owner, membership or session does not exist.
var ErrNotFound = fault.New(fault.KindNotFound, "not found")

// ErrConflict is returned when an email is already taken, or an owner is
// already a member of a project.
var ErrConflict = fault.New(fault.KindConflict, "conflict")

// ErrLastOwner is returned when a change would leave a project without an
// owner: its last owner can be neither demoted nor removed.
var ErrLastOwner = fault.New(fault.KindConflict, "the project's last owner")

// ErrForbidden is returned when a viewer asks for a change only owners may
// make.
var ErrForbidden = fault.New(fault.KindPermissionDenied, "only the project's owners may do this")

// ErrNoAccount is returned when no console account uses an email that
// should name one (a new member's, a project's first owner's).
var ErrNoAccount = fault.New(fault.KindNotFound, "no console account uses this email")

// ErrBadCredentials is returned by SignIn when the email or the password is
// wrong; which one is never said.
var ErrBadCredentials = fault.New(fault.KindUnauthenticated, "the email or the password is incorrect")

// ErrSpent is returned by SpendToken for a single-use token that was used
// already.
var ErrSpent = fault.New(fault.KindConflict, "this token was used already")

// Role is what an owner may do in a project.
type Role string

// The roles of a membership.
const (
	// RoleOwner sees everything and manages keys, settings and members.
	RoleOwner Role = "owner"
	// RoleViewer sees the numbers and the keys' list, and changes nothing.
	RoleViewer Role = "viewer"
)

// ValidRole reports whether r is one of the roles.
func ValidRole(r Role) bool { return r == RoleOwner || r == RoleViewer }

// CanManage reports whether the role may create and revoke keys and change
// settings and members.
func (r Role) CanManage() bool { return r == RoleOwner }

// Owner is a console account. Email is stored lowercased and unique.
type Owner struct {
	ID    string
	Email string
	// PasswordHash is a PHC string (argon2id).
	PasswordHash string
	CreatedAt    time.Time
}

// Membership is an owner's role in one project.
type Membership struct {
	ProjectID string
	OwnerID   string
	Role      Role
	CreatedAt time.Time
}

// Member is one member of a project, as its members list shows them.
type Member struct {
	OwnerID string
	Email   string
	Role    Role
	// Since is when the owner joined the project.
	Since time.Time
}

// ProjectRole is a project seen by one of its members: the project and the
// member's role in it.
type ProjectRole struct {
	Project project.Project
	Role    Role
}

// Actor is an owner acting in one of their projects, as Service.Actor found
// them: every change to a project's keys, settings or members names one,
// for the role check and the audit log.
type Actor struct {
	Owner   Owner
	Project project.Project
	Role    Role
}

// Session is a signed-in browser. Only the hash of the cookie's random id is
// stored, so a stolen database yields no usable cookie.
type Session struct {
	IDHash  []byte
	OwnerID string
	// CSRFToken is the synchronizer token every form of the session carries.
	CSRFToken  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	// ExpiresAt is the absolute expiry, whatever the activity.
	ExpiresAt time.Time
}

// SignInFailures is the throttling state of one key (a client address, or
// an account's email): how many sign-ins failed, and when the last one did.
type SignInFailures struct {
	Key      string
	Failures int
	LastAt   time.Time
}
