// Package admin is the console where project owners manage their projects,
// API keys and stats in the browser. It is served under /admin by the same
// binary as the API, rendered on the server with templ; forms work without
// JavaScript.
//
// Every number comes from the same code as the API (ledger.Service), so the
// console and GET /v1/stats never disagree. Every page under
// /admin/projects/{id} first checks the signed-in owner's membership: a
// project the owner does not belong to is a 404, whatever the URL says.
package admin

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/reclaim-sol/reclaim/backend/auth"
	"github.com/reclaim-sol/reclaim/backend/ledger"
	"github.com/reclaim-sol/reclaim/backend/owner"
	"github.com/reclaim-sol/reclaim/backend/project"
)

//go:embed static
var staticFiles embed.FS

// Store is what the console reads and writes.
type Store interface {
	auth.KeyCreator
	GetProject(ctx context.Context, id string) (project.Project, error)
	ListAPIKeys(ctx context.Context, projectID string) ([]project.APIKey, error)
	APIKeyByID(ctx context.Context, id string) (project.APIKey, error)
	RevokeAPIKey(ctx context.Context, hash []byte, at time.Time) (project.APIKey, error)

	CreateOwner(ctx context.Context, o owner.Owner) (owner.Owner, error)
	OwnerByEmail(ctx context.Context, email string) (owner.Owner, error)
	OwnerByID(ctx context.Context, id string) (owner.Owner, error)
	CreateOwnedProject(ctx context.Context, p project.Project, ownerID string) (project.Project, error)
	Membership(ctx context.Context, projectID, ownerID string) (owner.Membership, error)
	ProjectsOf(ctx context.Context, ownerID string) ([]owner.ProjectRole, error)
	UpdateProject(ctx context.Context, id, name, donationWallet string) (project.Project, error)
	AddMember(ctx context.Context, projectID, ownerID string, role owner.Role) error
	ListMembers(ctx context.Context, projectID string) ([]owner.Member, error)
	SetMemberRole(ctx context.Context, projectID, ownerID string, role owner.Role) (owner.Membership, error)
	RemoveMember(ctx context.Context, projectID, ownerID string) (owner.Membership, error)

	CreateSession(ctx context.Context, s owner.Session) error
	SessionByHash(ctx context.Context, idHash []byte) (owner.Session, error)
	TouchSession(ctx context.Context, idHash []byte, at time.Time) error
	DeleteSession(ctx context.Context, idHash []byte) error
	DeleteSessionsBefore(ctx context.Context, t, idleBefore time.Time) error
	SignInFailures(ctx context.Context, key string) (owner.SignInFailures, error)
	RecordSignInFailure(ctx context.Context, key string, at time.Time) (owner.SignInFailures, error)
	ClearSignInFailures(ctx context.Context, key string) error

	AddAudit(ctx context.Context, e owner.AuditEntry) error
	AuditLogActions(ctx context.Context, projectID string, actions []owner.Action, limit int) ([]owner.AuditEntry, error)
	DailyTotals(ctx context.Context, projectID string, from, to time.Time) ([]ledger.DailyTotal, error)
	LatestEntries(ctx context.Context, projectID string, limit int) ([]ledger.Entry, error)
}

// Ledger answers the stats and leaderboard questions, as it does for the API.
type Ledger interface {
	Stats(ctx context.Context, projectID string) (ledger.Stats, error)
	Leaderboard(ctx context.Context, projectID string, p ledger.FilterParams) ([]ledger.LeaderboardEntry, error)
}

// Deps are the console's dependencies.
type Deps struct {
	Store  Store
	Ledger Ledger
	// Hasher computes API key hashes, as the API's authenticator does.
	Hasher *auth.Hasher
	// Passwords hashes new owner passwords (DefaultPasswords when zero).
	Passwords Passwords
	// Explorer links transactions and wallets to a block explorer.
	Explorer Explorer
	// AllowSignup lets anyone create an owner account at /admin/signup.
	AllowSignup bool
	// SecureCookies marks cookies Secure even on plain HTTP (behind a TLS
	// proxy); they are Secure anyway on a TLS connection.
	SecureCookies bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	Log *slog.Logger
	// DBTimeout bounds the database work of one request (5 s when zero).
	DBTimeout time.Duration
}

// Session lifetimes.
const (
	idleTimeout     = 30 * time.Minute
	absoluteTimeout = 12 * time.Hour
	touchEvery      = time.Minute
)

type console struct {
	Deps
}

// New returns the console's handler, serving every path under /admin/.
func New(d Deps) http.Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Passwords == (Passwords{}) {
		d.Passwords = DefaultPasswords
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.DBTimeout == 0 {
		d.DBTimeout = 5 * time.Second
	}
	if d.Explorer.Cluster == "" {
		d.Explorer.Cluster = ClusterLocalnet
	}
	c := &console{Deps: d}
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	mux.Handle("GET /admin/static/", http.StripPrefix("/admin/static/", staticHandler(http.FileServerFS(static))))

	mux.HandleFunc("GET /admin/{$}", c.home)
	mux.HandleFunc("GET /admin/signin", c.signInPage)
	mux.HandleFunc("POST /admin/signin", c.signIn)
	mux.HandleFunc("GET /admin/signup", c.signUpPage)
	mux.HandleFunc("POST /admin/signup", c.signUp)
	mux.HandleFunc("POST /admin/signout", c.signedIn(c.signOut))

	mux.HandleFunc("GET /admin/projects", c.signedIn(c.projectsPage))
	mux.HandleFunc("POST /admin/projects", c.signedIn(c.createProject))
	mux.HandleFunc("GET /admin/projects/{project}", c.inProject(c.overview))
	mux.HandleFunc("GET /admin/projects/{project}/keys", c.inProject(c.keysPage))
	mux.HandleFunc("POST /admin/projects/{project}/keys", c.inProject(c.manager(c.createKey)))
	mux.HandleFunc("GET /admin/projects/{project}/keys/{key}/revoke", c.inProject(c.manager(c.revokePage)))
	mux.HandleFunc("POST /admin/projects/{project}/keys/{key}/revoke", c.inProject(c.manager(c.revokeKey)))
	mux.HandleFunc("GET /admin/projects/{project}/settings", c.inProject(c.settingsPage))
	mux.HandleFunc("POST /admin/projects/{project}/settings", c.inProject(c.manager(c.saveSettings)))
	mux.HandleFunc("POST /admin/projects/{project}/members", c.inProject(c.manager(c.addMember)))
	mux.HandleFunc("POST /admin/projects/{project}/members/{member}/role", c.inProject(c.manager(c.setMemberRole)))
	mux.HandleFunc("POST /admin/projects/{project}/members/{member}/remove", c.inProject(c.manager(c.removeMember)))
	mux.HandleFunc("/admin/", c.notFound)

	// Cross-origin state-changing requests are refused before any handler
	// (Sec-Fetch-Site, then Origin against Host); the CSRF token is checked
	// in the handlers on top of it.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.fail(w, r, http.StatusForbidden, "This request came from another site and was refused.")
	}))
	return securityHeaders(cop.Handler(mux))
}

// securityHeaders sets what every console response carries: no caching of
// pages that hold tenant data, a strict content policy, no framing.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func staticHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// dbContext bounds the database work of one request.
func (c *console) dbContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), c.DBTimeout)
}
