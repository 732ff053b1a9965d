package admin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// Cookies. Both are HttpOnly, SameSite=Lax, scoped to /admin, and Secure on
// TLS or with SecureCookies. The session cookie holds the session's random
// id (owner.Service keeps only its SHA-256), and the session holds the
// token its forms carry; before there is a session, the pre-session cookie
// holds a random id the sign-in and sign-up forms' single-use tokens are
// bound to (formtoken.go).
const (
	sessionCookie = "reclaim_session"
	csrfCookie    = "reclaim_csrf"
	csrfField     = "csrf_token"
	csrfHeader    = "X-CSRF-Token"
	maxFormBytes  = 64 << 10
)

// request is what a signed-in handler knows about its caller.
type request struct {
	owner   owner.Owner
	session owner.Session
	// actor is set under /admin/projects/{project}: the owner in that
	// project, with their role.
	actor owner.Actor
}

type handler func(w http.ResponseWriter, r *http.Request, rq *request)

func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func (c *console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	//nolint:gosec // G124: Secure on TLS or when configured (RECLAIM_SECURE_COOKIES); a console on loopback over plain HTTP must still sign in
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/admin", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil || c.SecureCookies,
	})
}

// startSession signs ownerID in and gives the browser the new session's id
// and a fresh device cookie for the account.
func (c *console) startSession(w http.ResponseWriter, r *http.Request, ownerID string) error {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	id, _, err := c.Sessions.StartSession(ctx, ownerID)
	if err != nil {
		return err
	}
	c.setCookie(w, r, sessionCookie, id, int(owner.SessionMaxAge.Seconds()))
	c.setDeviceCookie(w, r, ownerID)
	return nil
}

// currentSession returns the live session of the request's cookie with its
// owner, or owner.ErrNotFound.
func (c *console) currentSession(r *http.Request) (owner.Session, owner.Owner, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return owner.Session{}, owner.Owner{}, owner.ErrNotFound
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	return c.Sessions.Session(ctx, ck.Value)
}

// signedIn runs h for a signed-in owner; others are sent to the sign-in
// page. A POST must carry the session's CSRF token.
func (c *console) signedIn(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, o, err := c.currentSession(r)
		if errors.Is(err, owner.ErrNotFound) {
			c.toSignIn(w, r)
			return
		}
		if err != nil {
			c.serverError(w, r, err)
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			got := r.Header.Get(csrfHeader)
			if got == "" {
				got = r.PostFormValue(csrfField)
			}
			if !tokensEqual(got, s.CSRFToken) {
				c.fail(w, r, http.StatusForbidden, "This form has expired or did not come from this console. Reload the page and try again.")
				return
			}
		}
		h(w, r, &request{owner: o, session: s})
	}
}

func tokensEqual(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// toSignIn sends a signed-out visitor to the sign-in page, to come back to
// the page they asked for (a path, never a secret).
func (c *console) toSignIn(w http.ResponseWriter, r *http.Request) {
	target := "/admin/signin"
	if r.Method == http.MethodGet && r.URL.Path != "/admin/" {
		target += "?next=" + urlQueryEscape(r.URL.Path)
	}
	http.Redirect(w, r, target, http.StatusSeeOther) //nolint:gosec // G710: our own sign-in path; the page asked for rides escaped in its query
}

// safeNext returns next when it is a console path, else the projects page.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/admin/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return "/admin/projects"
}

// inProject runs h when the signed-in owner belongs to the path's project;
// any other project is a 404, indistinguishable from one that does not exist.
func (c *console) inProject(h handler) http.HandlerFunc {
	return c.signedIn(func(w http.ResponseWriter, r *http.Request, rq *request) {
		ctx, cancel := c.dbContext(r)
		defer cancel()
		a, err := c.Projects.Actor(ctx, rq.owner, r.PathValue("project"))
		if errors.Is(err, owner.ErrNotFound) {
			c.notFound(w, r)
			return
		}
		if err != nil {
			c.serverError(w, r, err)
			return
		}
		rq.actor = a
		h(w, r, rq)
	})
}

// manager runs h only for the project's owners: viewers change nothing.
// The owner service checks the role again; this check answers before the
// form is read.
func (c *console) manager(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, rq *request) {
		if !rq.actor.Role.CanManage() {
			c.forbidden(w, r)
			return
		}
		h(w, r, rq)
	}
}

// preSessionID returns the browser's pre-session id, or "" without one.
func preSessionID(r *http.Request) string {
	if ck, err := r.Cookie(csrfCookie); err == nil && len(ck.Value) == 43 {
		return ck.Value
	}
	return ""
}

// preSessionToken returns a fresh token for a sign-in or sign-up form,
// setting the pre-session cookie when the browser has none.
func (c *console) preSessionToken(w http.ResponseWriter, r *http.Request) string {
	id := preSessionID(r)
	if id == "" {
		id = randomToken()
		c.setCookie(w, r, csrfCookie, id, 0)
	}
	return c.forms.issue(id, c.Now())
}

// Messages of a refused sign-in or sign-up form.
const (
	msgFormExpired   = "This form has expired. Reload the page and try again."
	msgFormSent      = "This form was sent already. Reload the page and try again."
	msgPlainHTTPCSRF = " If this keeps happening: the console's cookies are Secure, which browsers keep only over HTTPS; open the console over https://, or have its operator set RECLAIM_SECURE_COOKIES=false for plain HTTP."
)

// checkPreSessionToken checks the token of a sign-in or sign-up form and
// spends it; it answers the request and returns false when it is not good.
func (c *console) checkPreSessionToken(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	id := preSessionID(r)
	nonce, expires, ok := c.forms.check(id, r.PostFormValue(csrfField), c.Now())
	if id == "" || !ok {
		msg := msgFormExpired
		if id == "" && c.SecureCookies && r.TLS == nil {
			msg += msgPlainHTTPCSRF
		}
		c.fail(w, r, http.StatusForbidden, msg)
		return false
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	switch err := c.FormTokens.SpendToken(ctx, nonce, expires); {
	case errors.Is(err, owner.ErrSpent):
		c.fail(w, r, http.StatusForbidden, msgFormSent)
		return false
	case err != nil:
		c.serverError(w, r, err)
		return false
	}
	return true
}

// clientKey is the request's client for per-client limits (clientip.Key):
// the TCP peer, or what a trusted proxy reports.
func (c *console) clientKey(r *http.Request) string {
	return c.ClientIP.Key(r.RemoteAddr, r.Header.Values(clientip.Header))
}
