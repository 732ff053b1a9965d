package owner

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/project"
)

// Store keeps the console's accounts, sessions, sign-in failures,
// memberships and audit log (storage.Store). A fake may embed Store and
// implement only what its test calls.
type Store interface {
	AccountStore
	SessionStore
	FailureStore
	MemberStore
	AuditStore
}

// AccountStore keeps owners. CreateOwner lowercases the email and gives
// ErrConflict when it is taken; the lookups give ErrNotFound.
type AccountStore interface {
	CreateOwner(ctx context.Context, o Owner) (Owner, error)
	OwnerByEmail(ctx context.Context, email string) (Owner, error)
	OwnerByID(ctx context.Context, id string) (Owner, error)
}

// SessionStore keeps browser sessions by the hash of their id.
type SessionStore interface {
	CreateSession(ctx context.Context, s Session) error
	// SessionByHash returns the session, expired or not, or ErrNotFound.
	SessionByHash(ctx context.Context, idHash []byte) (Session, error)
	TouchSession(ctx context.Context, idHash []byte, at time.Time) error
	DeleteSession(ctx context.Context, idHash []byte) error
	// DeleteSessionsBefore removes the sessions that expired before t or
	// were last seen before idleBefore.
	DeleteSessionsBefore(ctx context.Context, t, idleBefore time.Time) error
}

// FailureStore counts failed sign-ins by throttling key.
type FailureStore interface {
	// SignInFailures returns the failures under key: none is a zero count.
	SignInFailures(ctx context.Context, key string) (SignInFailures, error)
	RecordSignInFailure(ctx context.Context, key string, at time.Time) (SignInFailures, error)
	ClearSignInFailures(ctx context.Context, key string) error
}

// MemberStore keeps who belongs to which project, with which role.
type MemberStore interface {
	// CreateOwnedProject stores p and makes ownerID its owner, atomically.
	CreateOwnedProject(ctx context.Context, p project.Project, ownerID string) (project.Project, error)
	// Membership gives ErrNotFound when the owner is not a member or the
	// project does not exist: the two look alike.
	Membership(ctx context.Context, projectID, ownerID string) (Membership, error)
	ProjectsOf(ctx context.Context, ownerID string) ([]ProjectRole, error)
	// AddMember gives ErrConflict for a member, ErrNotFound for an unknown
	// project or owner.
	AddMember(ctx context.Context, projectID, ownerID string, role Role) error
	// ListMembers lists owners first, then by email.
	ListMembers(ctx context.Context, projectID string) ([]Member, error)
	// ChangeMembership applies change to a membership atomically (see
	// MemberChange) and returns the membership as it was; a non-member
	// gives ErrNotFound.
	ChangeMembership(ctx context.Context, projectID, ownerID string, change MemberChange) (Membership, error)
}

// AuditStore keeps the audit log.
type AuditStore interface {
	AddAudit(ctx context.Context, e AuditEntry) error
	AuditLogActions(ctx context.Context, projectID string, actions []Action, limit int) ([]AuditEntry, error)
}

// Projects is the project domain the console acts on (project.Service).
type Projects interface {
	Get(ctx context.Context, id string) (project.Project, error)
	Update(ctx context.Context, id, name, donationWallet string) (project.Project, error)
	CreateKey(ctx context.Context, projectID, name string) (string, project.APIKey, error)
	Revoke(ctx context.Context, projectID, keyID string) (project.APIKey, bool, error)
	AddOrigin(ctx context.Context, projectID, origin string) (project.Origin, error)
	RemoveOrigin(ctx context.Context, projectID, origin string) (string, error)
}

// Options are a Service's optional settings.
type Options struct {
	// Passwords hashes new passwords (DefaultPasswords when zero).
	Passwords Passwords
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives what fails after the fact: an audit entry not written, a
	// session sweep that did not run.
	Log *slog.Logger
}

// Service is the console's domain: accounts, sign-in, sessions, members,
// roles and the audit log, over a Store, acting on projects and keys through
// Projects.
type Service struct {
	store     Store
	projects  Projects
	passwords Passwords
	now       func() time.Time
	log       *slog.Logger

	dummyOnce sync.Once
	dummy     string
}

// NewService returns a Service over store and projects.
func NewService(store Store, projects Projects, opts Options) *Service {
	s := &Service{store: store, projects: projects, passwords: opts.Passwords, now: opts.Now, log: opts.Log}
	if s.passwords == (Passwords{}) {
		s.passwords = DefaultPasswords
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}
