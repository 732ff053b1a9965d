package owner

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// Store keeps the console's accounts, sessions, sign-in failures, spent
// form tokens, memberships and audit log (storage.Console). A fake may embed Store and
// implement only what its test calls.
type Store interface {
	AccountStore
	SessionStore
	FailureStore
	TokenStore
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
	// DeleteSignInFailuresBefore forgets every key whose last failure was
	// before t.
	DeleteSignInFailuresBefore(ctx context.Context, t time.Time) error
}

// TokenStore remembers the single-use tokens that were spent (the sign-in
// forms'), until they expire.
type TokenStore interface {
	// SpendToken records id as spent until expires; it reports false when
	// it was spent already.
	SpendToken(ctx context.Context, id []byte, expires time.Time) (bool, error)
	// DeleteSpentTokensBefore forgets the tokens that expired before t.
	DeleteSpentTokensBefore(ctx context.Context, t time.Time) error
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
	// HashSlots bounds the password hashes and checks running at once
	// (DefaultHashSlots when zero); HashQueue those waiting for a slot
	// (DefaultHashQueuePerSlot per slot when zero), HashWait how long one
	// waits (DefaultHashWait when zero).
	HashSlots int
	HashQueue int
	HashWait  time.Duration
	// InSlot, when set, runs inside every password slot (the budget's and
	// the devices' lane) before its hash or check: tests hold a slot with
	// it, as a real flood's hashes do.
	InSlot func()
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives what fails after the fact: an audit entry not written, a
	// session sweep that did not run.
	Log *slog.Logger
	// Webhooks manages the projects' webhook endpoints (nil: the webhook
	// changes fail).
	Webhooks Webhooks
}

// Service is the console's domain: accounts, sign-in, sessions, members,
// roles and the audit log, over a Store, acting on projects and keys through
// Projects.
type Service struct {
	store     Store
	projects  Projects
	webhooks  Webhooks
	passwords Passwords
	budget    *hashBudget
	devices   *deviceLane
	now       func() time.Time
	log       *slog.Logger
	// dummy is checked for emails without an account (Passwords.dummy).
	dummy string

	sweepMu   sync.Mutex
	nextSweep time.Time
}

// NewService returns a Service over store and projects.
func NewService(store Store, projects Projects, opts Options) *Service {
	s := &Service{store: store, projects: projects, webhooks: opts.Webhooks, passwords: opts.Passwords, now: opts.Now, log: opts.Log}
	if s.passwords == (Passwords{}) {
		s.passwords = DefaultPasswords
	}
	s.dummy = s.passwords.dummy()
	slots, queue, wait := opts.HashSlots, opts.HashQueue, opts.HashWait
	if slots <= 0 {
		slots = DefaultHashSlots()
	}
	if queue <= 0 {
		queue = DefaultHashQueuePerSlot * slots
	}
	if wait <= 0 {
		wait = DefaultHashWait
	}
	s.budget = newHashBudget(slots, queue, wait, opts.InSlot)
	s.devices = newDeviceLane(wait, opts.InSlot)
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// sweepEvery is how often, at most, a Service deletes what can no longer be
// used.
const sweepEvery = time.Minute

// sweep deletes, at most once per sweepEvery, the sessions that ended, the
// sign-in failures that are forgotten and the spent tokens that expired;
// losing a race with another instance is harmless.
func (s *Service) sweep(ctx context.Context) {
	now := s.now()
	s.sweepMu.Lock()
	due := !now.Before(s.nextSweep)
	if due {
		s.nextSweep = now.Add(sweepEvery)
	}
	s.sweepMu.Unlock()
	if !due {
		return
	}
	if err := s.store.DeleteSessionsBefore(ctx, now, now.Add(-SessionIdle)); err != nil {
		s.log.Warn("owner: sweep sessions", "err", err)
	}
	if err := s.store.DeleteSignInFailuresBefore(ctx, now.Add(-forgetAfter)); err != nil {
		s.log.Warn("owner: sweep sign-in failures", "err", err)
	}
	if err := s.store.DeleteSpentTokensBefore(ctx, now); err != nil {
		s.log.Warn("owner: sweep spent tokens", "err", err)
	}
}
