// Package owner holds the people who run projects in the admin console: their
// accounts, their memberships of projects (with a role), their browser
// sessions, the sign-in throttling state and the audit log of what they did
// to API keys.
//
// The package knows nothing of storage or HTTP: the storage package persists
// these types, the admin package serves them.
package owner

import (
	"errors"
	"time"

	"github.com/reclaim-sol/reclaim/backend/project"
)

// ErrNotFound is returned when an owner, membership or session does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when an email is already taken, or an owner is
// already a member of a project.
var ErrConflict = errors.New("conflict")

// ErrLastOwner is returned when a change would leave a project without an
// owner: its last owner can be neither demoted nor removed.
var ErrLastOwner = errors.New("the project's last owner")

// Role is what an owner may do in a project.
type Role string

// The roles of a membership.
const (
	// RoleOwner sees everything and manages keys and settings.
	RoleOwner Role = "owner"
	// RoleViewer sees the numbers and the keys' list, and changes nothing.
	RoleViewer Role = "viewer"
)

// ValidRole reports whether r is one of the roles.
func ValidRole(r Role) bool { return r == RoleOwner || r == RoleViewer }

// CanManage reports whether the role may create and revoke keys and change
// settings.
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

// SignInFailures is the throttling state of one key (an email and a client
// address): how many sign-ins failed in a row, and when the last one did.
type SignInFailures struct {
	Key      string
	Failures int
	LastAt   time.Time
}
