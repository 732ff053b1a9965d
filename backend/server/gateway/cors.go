package gateway

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	connectcors "connectrpc.com/cors"
	"github.com/rs/cors"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// OriginSource lists the browser origins of every project
// (project.Service).
type OriginSource interface {
	AllOrigins(ctx context.Context) ([]project.Origin, error)
}

// SessionProjects tells which project a session token belongs to, without
// authenticating it (auth.Authenticator).
type SessionProjects interface {
	SessionProject(token string) (string, bool)
}

// CORS is the API's cross-origin policy for browsers.
type CORS struct {
	// Default lists the origins allowed for every project
	// (RECLAIM_CORS_ORIGINS); "*" allows any.
	Default []string
	// Origins lists each project's own origins (nil: Default only).
	Origins OriginSource
	// Refresh bounds how stale the copy of the projects' origins may get
	// (2 s when zero): a change in the console applies within it.
	Refresh time.Duration
}

// exposedHeaders are the response headers a cross-origin page may read:
// the gRPC-Web status trailers sent as headers, and ours.
var exposedHeaders = append(connectcors.ExposedHeaders(), "X-RateLimit-Limit", "X-RateLimit-Remaining", "Retry-After", "RateLimit-Policy", "RateLimit")

// OriginPolicy decides which origins may call the API from a browser. A
// preflight carries no credential, so it is allowed for an origin any
// project lists (or the operator's default); the request itself then gets
// CORS headers only when its session token's project lists its origin (or
// the default does), otherwise the browser keeps the response from the page.
// X-Api-Key is never allowed: not in a preflight (it is not an allowed
// header) and not on a request (no CORS headers), so a page can never use an
// API key.
type OriginPolicy struct {
	any      bool
	defaults map[string]bool
	src      OriginSource
	sessions SessionProjects
	refresh  time.Duration
	timeout  time.Duration
	now      func() time.Time
	log      *slog.Logger
	// paths are the paths outside /v1/ and the Connect procedures the
	// policy covers (/mcp), public the documents any page may read.
	paths  map[string]bool
	public map[string]bool

	mu      sync.Mutex
	fetched time.Time
	byProj  map[string]map[string]bool
	union   map[string]bool
}

// CORSPaths are the paths besides /v1/ and the Connect procedures a policy
// covers: API ones (the MCP endpoint) and public documents any page may read
// (the OpenAPI document, /mcp's protected-resource metadata).
type CORSPaths struct {
	API, Public []string
}

// NewOriginPolicy returns the cross-origin policy c, covering /v1/, the
// Connect procedures and paths.
func NewOriginPolicy(c CORS, paths CORSPaths, sessions SessionProjects, dbTimeout time.Duration, log *slog.Logger) *OriginPolicy {
	p := &OriginPolicy{
		defaults: map[string]bool{}, src: c.Origins, sessions: sessions, refresh: c.Refresh,
		timeout: dbTimeout, now: time.Now, log: log, paths: map[string]bool{}, public: map[string]bool{},
	}
	for _, path := range paths.API {
		p.paths[path] = true
	}
	for _, path := range paths.Public {
		p.public[path] = true
	}
	for _, o := range c.Default {
		if o == "*" {
			p.any = true
		}
		p.defaults[o] = true
	}
	if p.refresh <= 0 {
		p.refresh = 2 * time.Second
	}
	if p.timeout <= 0 {
		p.timeout = 5 * time.Second
	}
	return p
}

// Handler answers preflights and adds CORS headers to the API's responses
// (REST under /v1/ and the Connect procedures); the console and /healthz
// are left alone.
func (p *OriginPolicy) Handler(next http.Handler) http.Handler {
	c := cors.New(cors.Options{
		AllowOriginVaryRequestFunc: p.allow,
		AllowedMethods:             connectcors.AllowedMethods(),
		AllowedHeaders:             append(connectcors.AllowedHeaders(), "Authorization", "Idempotency-Key", "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-Id"),
		ExposedHeaders:             exposedHeaders,
		MaxAge:                     7200,
	})
	api := c.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") || strings.HasPrefix(r.URL.Path, "/reclaim.v1.") || p.paths[r.URL.Path] || p.public[r.URL.Path] {
			if r.Header.Get("Idempotency-Key") != "" {
				w = &exposeReplayed{ResponseWriter: w}
			}
			api.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allow is rs/cors's origin check, for preflights and requests alike.
func (p *OriginPolicy) allow(r *http.Request, origin string) (bool, []string) {
	vary := []string{"Authorization", "X-Api-Key"}
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		return p.anyProjectAllows(r.Context(), origin), nil
	}
	if r.Header.Get("X-Api-Key") != "" {
		return false, vary
	}
	if p.public[r.URL.Path] {
		return true, nil // a public document, for any tool
	}
	if origin == "" {
		// Not a browser: rs/cors asks only for the Vary headers, and
		// checking the session's signature here would check it twice.
		return false, vary
	}
	if token, ok := bearerToken(r.Header.Get("Authorization")); ok {
		if projectID, ok := p.sessions.SessionProject(token); ok {
			return p.Allows(r.Context(), origin, projectID), vary
		}
	}
	// No session (or not one of ours): the answer is a 401, which a page on
	// an origin some project lists may read.
	return p.anyProjectAllows(r.Context(), origin), vary
}

// Allows reports whether pages on origin may use projectID's sessions.
func (p *OriginPolicy) Allows(ctx context.Context, origin, projectID string) bool {
	if p.any || p.defaults[origin] {
		return true
	}
	byProj, _ := p.load(ctx)
	return byProj[projectID][origin]
}

func (p *OriginPolicy) anyProjectAllows(ctx context.Context, origin string) bool {
	if p.any || p.defaults[origin] {
		return true
	}
	_, union := p.load(ctx)
	return union[origin]
}

// load returns the projects' origins, read again once the copy is older
// than p.refresh. A failed read keeps the old copy (logged): browsers keep
// working through a database blip, and nothing new is allowed.
func (p *OriginPolicy) load(ctx context.Context) (map[string]map[string]bool, map[string]bool) {
	if p.src == nil {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := p.now(); p.fetched.IsZero() || now.Sub(p.fetched) >= p.refresh {
		p.fetched = now // also after a failure: retried once per refresh, not per request
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
		defer cancel()
		list, err := p.src.AllOrigins(ctx)
		if err != nil {
			p.log.WarnContext(ctx, "cors: reading the projects' origins failed; keeping the last copy", "err", err)
			return p.byProj, p.union
		}
		p.byProj, p.union = map[string]map[string]bool{}, map[string]bool{}
		for _, o := range list {
			if p.byProj[o.ProjectID] == nil {
				p.byProj[o.ProjectID] = map[string]bool{}
			}
			p.byProj[o.ProjectID][o.Origin] = true
			p.union[o.Origin] = true
		}
	}
	return p.byProj, p.union
}

// SameHost reports whether origin names host (a page of this server).
func SameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

// bearerToken is the token of an Authorization: Bearer header.
func bearerToken(authorization string) (string, bool) {
	scheme, token, ok := strings.Cut(authorization, " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// exposeReplayed lets a page read Idempotent-Replayed on the answers that
// carry it (a request with an Idempotency-Key), leaving every other
// answer's Access-Control-Expose-Headers as it was.
type exposeReplayed struct {
	http.ResponseWriter
	wrote bool
}

func (w *exposeReplayed) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		h := w.Header()
		if h.Get("Idempotent-Replayed") != "" && h.Get("Access-Control-Expose-Headers") != "" {
			h.Set("Access-Control-Expose-Headers", h.Get("Access-Control-Expose-Headers")+", Idempotent-Replayed")
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *exposeReplayed) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer's Flush.
func (w *exposeReplayed) Unwrap() http.ResponseWriter { return w.ResponseWriter }
