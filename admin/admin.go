// Package admin is the console where project owners manage their projects,
// API keys and stats in the browser. It is served under /admin by the same
// binary as the API, rendered on the server with templ; forms work without
// JavaScript.
//
// The console is an adapter: the rules (accounts, sign-in throttling,
// sessions, roles, the last owner, the audit log, projects and keys) live in
// the owner and project domain services, which the command line calls too.
// Every number comes from the same code as the API (ledger.Service), so the
// console and GET /v1/stats never disagree. Every page under
// /admin/projects/{id} first checks the signed-in owner's membership: a
// project the owner does not belong to is a 404, whatever the URL says.
package admin

import (
	"context"
	"crypto/rand"
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

//go:embed static
var staticFiles embed.FS

// The console's dependencies are small interfaces, one per page or form,
// declared here and met by the domain services: owner.Service for accounts,
// sessions, members and the audited changes, project.Service for reading
// keys, ledger.Service and the store for the numbers.

// FormTokens spends the single-use tokens of the sign-in and sign-up forms
// (owner.Service): owner.ErrSpent when one was used already.
type FormTokens interface {
	SpendToken(ctx context.Context, id []byte, expires time.Time) error
}

// Accounts creates and signs in console accounts (owner.Service);
// PasswordsBusy says, before any other work, that the password budget would
// refuse one now (*owner.BusyError).
type Accounts interface {
	CreateOwner(ctx context.Context, email, password string) (owner.Owner, error)
	SignIn(ctx context.Context, email, password, client string, device owner.Device) (owner.Owner, error)
	PasswordsBusy(device owner.Device) error
}

// Sessions keeps signed-in browsers (owner.Service).
type Sessions interface {
	StartSession(ctx context.Context, ownerID string) (string, owner.Session, error)
	Session(ctx context.Context, id string) (owner.Session, owner.Owner, error)
	EndSession(ctx context.Context, s owner.Session) error
}

// Projects lists an owner's projects, creates one and opens one to its
// members (owner.Service).
type Projects interface {
	ProjectsOf(ctx context.Context, ownerID string) ([]owner.ProjectRole, error)
	CreateProject(ctx context.Context, o owner.Owner, name, donationWallet string) (project.Project, error)
	Actor(ctx context.Context, o owner.Owner, projectID string) (owner.Actor, error)
}

// Settings saves a project's settings (owner.Service).
type Settings interface {
	UpdateProject(ctx context.Context, a owner.Actor, name, donationWallet string) (project.Project, error)
}

// Keys reads a project's API keys (project.Service).
type Keys interface {
	Keys(ctx context.Context, projectID string) ([]project.APIKey, error)
	Key(ctx context.Context, projectID, keyID string) (project.APIKey, error)
}

// KeyChanges creates and revokes API keys, audited (owner.Service).
type KeyChanges interface {
	CreateKey(ctx context.Context, a owner.Actor, name string) (string, project.APIKey, error)
	RevokeKey(ctx context.Context, a owner.Actor, keyID string) (project.APIKey, error)
}

// Members lists a project's members (owner.Service).
type Members interface {
	Members(ctx context.Context, projectID string) ([]owner.Member, error)
}

// MemberChanges adds members, changes their roles and removes them, audited
// (owner.Service).
type MemberChanges interface {
	AddMember(ctx context.Context, a owner.Actor, email string, role owner.Role) (owner.Owner, error)
	SetRole(ctx context.Context, a owner.Actor, memberID string, role owner.Role) error
	RemoveMember(ctx context.Context, a owner.Actor, memberID string) error
}

// Origins reads the browser origins a project allows (project.Service).
type Origins interface {
	Origins(ctx context.Context, projectID string) ([]project.Origin, error)
}

// OriginChanges adds and removes a project's browser origins, audited
// (owner.Service).
type OriginChanges interface {
	AddOrigin(ctx context.Context, a owner.Actor, origin string) (project.Origin, error)
	RemoveOrigin(ctx context.Context, a owner.Actor, origin string) error
}

// Audit reads the audit log (owner.Service).
type Audit interface {
	AuditLog(ctx context.Context, projectID string, actions []owner.Action, limit int) ([]owner.AuditEntry, error)
}

// Ledger answers the stats and leaderboard questions, as it does for the API
// (ledger.Service).
type Ledger interface {
	Stats(ctx context.Context, projectID string) (ledger.Stats, error)
	Leaderboard(ctx context.Context, projectID string, p ledger.FilterParams) ([]ledger.LeaderboardEntry, error)
}

// History is the overview's chart and latest transactions (storage.Rankings).
type History interface {
	DailyTotals(ctx context.Context, projectID string, from, to time.Time) ([]ledger.DailyTotal, error)
	LatestEntries(ctx context.Context, projectID string, limit int) ([]ledger.Entry, error)
}

// Quotas tells a project's rate limit and how many of its requests were
// refused lately (cmd/reclaim, over project.Service and the refusals'
// counts).
type Quotas interface {
	QuotaReport(ctx context.Context, projectID string) (QuotaReport, error)
}

// QuotaReport is a project's rate limit as the overview shows it.
type QuotaReport struct {
	// RPS and Burst are the project's quota; Own tells it was set for
	// the project (else it is the deployment's default).
	RPS   float64
	Burst int
	Own   bool
	// WalletShare is the percentage of the quota one wallet may spend,
	// WalletRPS and WalletBurst what that comes to.
	WalletShare int
	WalletRPS   float64
	WalletBurst int
	// Refused24h is the requests refused in the last 24 hours, either
	// bucket (counted per instance, added to the database each minute).
	Refused24h int64
}

// Deps are the console's dependencies.
type Deps struct {
	// The services, by what each page asks of them; cmd/reclaim wires
	// owner.Service, project.Service, ledger.Service and the store.
	Accounts      Accounts
	FormTokens    FormTokens
	Sessions      Sessions
	Projects      Projects
	Settings      Settings
	Keys          Keys
	KeyChanges    KeyChanges
	Members       Members
	MemberChanges MemberChanges
	Origins       Origins
	OriginChanges OriginChanges
	Audit         Audit
	Ledger        Ledger
	// Webhooks and WebhookChanges are the webhooks page's (nil: no page).
	Webhooks       Webhooks
	WebhookChanges WebhookChanges
	History        History
	// Quotas is the overview's rate-limit panel (nil: none).
	Quotas Quotas
	// Explorer links transactions and wallets to a block explorer.
	Explorer Explorer
	// AllowSignup lets anyone create an owner account at /admin/signup.
	AllowSignup bool
	// SecureCookies marks cookies Secure even on plain HTTP (behind a TLS
	// proxy; they are Secure anyway on a TLS connection), and has every
	// response carry Strict-Transport-Security.
	SecureCookies bool
	// FormKey signs the sign-in forms' tokens (formtoken.go) and, through
	// a key derived from it, the device cookies (device.go): every
	// instance behind one balancer needs the same (backend/cmd derives it
	// from the API key pepper); a random key of this process when empty.
	FormKey []byte
	// ClientIP tells a request's client for the sign-in limits: the TCP
	// peer, or what a trusted proxy says (nil trusts none).
	ClientIP *clientip.Resolver
	// Now is the console's clock: the overview's chart, the sign-in forms'
	// tokens and limits (time.Now when nil).
	Now func() time.Time
	Log *slog.Logger
	// DBTimeout bounds the database work of one request (5 s when zero).
	DBTimeout time.Duration
}

type console struct {
	Deps
	forms formTokens
	// devices signs the returning browsers' cookies (device.go).
	devices deviceCookies
	// formsLimit and accountsLimit are the sign-in forms' per-client
	// buckets (signin.go).
	formsLimit, accountsLimit ratelimit.Limiter
}

// New returns the console's handler, serving every path under /admin/.
func New(d Deps) http.Handler {
	if d.Now == nil {
		d.Now = time.Now
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
	c := &console{Deps: d, forms: formTokens{key: d.FormKey}}
	if len(c.forms.key) == 0 {
		c.forms.key = make([]byte, 32)
		if _, err := rand.Read(c.forms.key); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
	}
	c.devices = newDeviceCookies(c.forms.key)
	c.formsLimit = ratelimit.NewMemory(1/formsEvery.Seconds(), formsBurst, ratelimit.WithClock(d.Now))
	c.accountsLimit = ratelimit.NewMemory(1/accountsEvery.Seconds(), accountsBurst, ratelimit.WithClock(d.Now))
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
	mux.HandleFunc("POST /admin/projects/{project}/origins", c.inProject(c.manager(c.addOrigin)))
	mux.HandleFunc("POST /admin/projects/{project}/origins/remove", c.inProject(c.manager(c.removeOrigin)))
	if d.Webhooks != nil && d.WebhookChanges != nil {
		mux.HandleFunc("GET /admin/projects/{project}/webhooks", c.inProject(c.webhooksPage))
		mux.HandleFunc("POST /admin/projects/{project}/webhooks", c.inProject(c.manager(c.addWebhook)))
		mux.HandleFunc("POST /admin/projects/{project}/webhooks/{endpoint}/remove", c.inProject(c.manager(c.removeWebhook)))
		mux.HandleFunc("POST /admin/projects/{project}/webhooks/{endpoint}/rotate", c.inProject(c.manager(c.rotateWebhook)))
		mux.HandleFunc("POST /admin/projects/{project}/webhooks/{endpoint}/enable", c.inProject(c.manager(c.enableWebhook)))
		mux.HandleFunc("POST /admin/projects/{project}/webhooks/{endpoint}/test", c.inProject(c.manager(c.testWebhook)))
		mux.HandleFunc("POST /admin/projects/{project}/webhooks/{endpoint}/deliveries/{delivery}/redeliver", c.inProject(c.manager(c.redeliverWebhook)))
	}
	mux.HandleFunc("/admin/", c.notFound)

	// Cross-origin state-changing requests are refused before any handler
	// (Sec-Fetch-Site, then Origin against Host); the CSRF token is checked
	// in the handlers on top of it.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.fail(w, r, http.StatusForbidden, "This request came from another site and was refused.")
	}))
	return securityHeaders(cop.Handler(mux), d.SecureCookies)
}

// hsts is the Strict-Transport-Security of a console served over HTTPS: a
// year, this host only (the operator's other hosts are theirs to decide).
const hsts = "max-age=31536000"

// securityHeaders sets what every console response carries: no caching of
// pages that hold tenant data, a strict content policy, no framing; and,
// with Secure cookies, HSTS, so that a browser that once reached the
// console over HTTPS never again sends its cookies, or its password, over
// plain HTTP.
func securityHeaders(next http.Handler, secure bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if secure {
			h.Set("Strict-Transport-Security", hsts)
		}
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
