package server_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

const (
	originA        = "https://a.example"        // listed by the env's project
	originB        = "https://b.example"        // listed by another project only
	originOperator = "https://operator.example" // RECLAIM_CORS_ORIGINS
	originEvil     = "https://evil.example"     // listed by nobody
)

// corsEnv is an env whose project lists originA, beside another project
// listing originB, with originOperator as the operator's default.
func corsEnv(t *testing.T, opts ...option) *env {
	t.Helper()
	e := newEnv(t, append([]option{withCORS(originOperator)}, opts...)...)
	other := e.newProject("Other", "")
	for _, o := range []project.Origin{{ProjectID: e.project.ID, Origin: originA}, {ProjectID: other.ID, Origin: originB}} {
		if err := e.store.AddOrigin(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// preflight sends the OPTIONS request a browser sends before a cross-origin
// call with these request headers.
func (e *env) preflight(t *testing.T, path, origin, method, headers string) http.Header {
	t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, e.srv.URL+path, nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", method)
	if headers != "" {
		req.Header.Set("Access-Control-Request-Headers", headers)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("preflight %s from %s: status %d, want 204", path, origin, resp.StatusCode)
	}
	return resp.Header
}

// A preflight carries no credential: it is allowed for an origin some
// project (or the operator) lists, never when it asks for X-Api-Key.
func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	e := corsEnv(t)
	connectHeaders := "authorization,connect-protocol-version,content-type"
	cases := []struct {
		name, path, origin, method, headers string
		allowed                             bool
	}{
		{"REST from a project's origin", "/v1/stats", originA, "GET", "authorization", true},
		{"REST from another project's origin", "/v1/wallet/x/assets", originB, "GET", "authorization", true},
		{"REST with a body", "/v1/wallet/x/transactions", originA, "POST", "authorization,content-type", true},
		{"Connect-Web", "/reclaim.v1.WalletService/ListAssets", originA, "POST", connectHeaders, true},
		{"gRPC-Web", "/reclaim.v1.ProjectService/GetStats", originA, "POST", "authorization,content-type,x-grpc-web,x-user-agent", true},
		{"the operator's default", "/v1/stats", originOperator, "GET", "authorization", true},
		{"an origin nobody lists", "/v1/stats", originEvil, "GET", "authorization", false},
		{"X-Api-Key", "/v1/sessions", originA, "POST", "content-type,x-api-key", false},
		{"X-Api-Key from the operator's default", "/v1/stats", originOperator, "GET", "x-api-key", false},
		{"a method the API has no use for", "/v1/stats", originA, "DELETE", "authorization", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := e.with(t).preflight(t, c.path, c.origin, c.method, c.headers)
			got := h.Get("Access-Control-Allow-Origin")
			if c.allowed && (got != c.origin || h.Get("Access-Control-Allow-Headers") != c.headers || h.Get("Access-Control-Max-Age") == "") {
				t.Errorf("allowed preflight answered %v", h)
			}
			if !c.allowed && (got != "" || h.Get("Access-Control-Allow-Headers") != "") {
				t.Errorf("refused preflight answered %v", h)
			}
		})
	}
}

// corsGet sends GET /v1/stats from origin with a credential and returns the
// status and the Access-Control-Allow-Origin header.
func (e *env) corsGet(t *testing.T, origin string, c cred) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/v1/stats", nil)
	req.Header.Set("Origin", origin)
	c(req.Header)
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// The request itself gets CORS headers only when its session's project (or
// the operator) lists the origin; an API key never does.
func TestCORSRequests(t *testing.T) {
	t.Parallel()
	e := corsEnv(t)
	wallet := newWallet()
	session := e.session(wallet)
	expired := e.session(wallet)
	otherKey, _ := e.newAPIKey(e.newProject("Third", "").ID)
	cases := []struct {
		name, origin string
		cred         cred
		status       int
		allowed      bool
	}{
		{"its project's origin", originA, bearer(session), 200, true},
		{"the operator's default", originOperator, bearer(session), 200, true},
		{"another project's origin", originB, bearer(session), 200, false},
		{"an origin nobody lists", originEvil, bearer(session), 200, false},
		{"an API key from its project's origin", originA, apiKey(e.apiKey), 200, false},
		{"an API key from the operator's default", originOperator, apiKey(e.apiKey), 200, false},
		{"an API key of another project", originB, apiKey(otherKey), 200, false},
		{"no credential, a listed origin: the 401 is readable", originA, noCred(), 401, true},
		{"no credential, an unlisted origin", originEvil, noCred(), 401, false},
		{"a forged token", originA, bearer("eyJ.eyJ.x"), 401, true},
	}
	for _, c := range cases {
		status, h := e.corsGet(t, c.origin, c.cred)
		if status != c.status {
			t.Errorf("%s: status %d, want %d", c.name, status, c.status)
		}
		got := h.Get("Access-Control-Allow-Origin")
		if c.allowed != (got == c.origin) || (!c.allowed && got != "") {
			t.Errorf("%s: Access-Control-Allow-Origin %q, allowed %v", c.name, got, c.allowed)
		}
		if c.allowed {
			exposed := strings.Split(h.Get("Access-Control-Expose-Headers"), ", ")
			for _, want := range []string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "Retry-After", "Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin"} {
				if !slices.Contains(exposed, want) {
					t.Errorf("%s: Access-Control-Expose-Headers %q lacks %s", c.name, exposed, want)
				}
			}
		}
		if vary := strings.Join(h.Values("Vary"), ", "); !strings.Contains(vary, "Origin") {
			t.Errorf("%s: Vary %q", c.name, vary)
		}
	}
	// An expired session of the project still names it: the page reads the
	// 401 and asks its backend for a new token.
	e.clock.Advance(time.Hour)
	if status, h := e.corsGet(t, originA, bearer(expired)); status != 401 || h.Get("Access-Control-Allow-Origin") != originA {
		t.Errorf("expired session: %d, Access-Control-Allow-Origin %q", status, h.Get("Access-Control-Allow-Origin"))
	}
}

// An origin added in the console applies to the next requests (within the
// refresh interval: every request here), and one removed stops applying.
func TestCORSFollowsTheProjectsOrigins(t *testing.T) {
	t.Parallel()
	e := corsEnv(t)
	session := e.session(newWallet())
	const added = "http://localhost:5173"
	if _, h := e.corsGet(t, added, bearer(session)); h.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("an unlisted origin is allowed")
	}
	if err := e.store.AddOrigin(context.Background(), project.Origin{ProjectID: e.project.ID, Origin: added}); err != nil {
		t.Fatal(err)
	}
	if _, h := e.corsGet(t, added, bearer(session)); h.Get("Access-Control-Allow-Origin") != added {
		t.Error("an added origin is not allowed")
	}
	if err := e.store.RemoveOrigin(context.Background(), e.project.ID, added); err != nil {
		t.Fatal(err)
	}
	if _, h := e.corsGet(t, added, bearer(session)); h.Get("Access-Control-Allow-Origin") != "" {
		t.Error("a removed origin is still allowed")
	}
}

// RECLAIM_CORS_ORIGINS=* allows every origin, still never with an API key;
// without any configuration no origin is allowed, and the console is never
// subject to CORS.
func TestCORSDefaults(t *testing.T) {
	t.Parallel()
	star := newEnv(t, withCORS("*"))
	session := star.session(newWallet())
	if _, h := star.corsGet(t, originEvil, bearer(session)); h.Get("Access-Control-Allow-Origin") != originEvil {
		t.Errorf("*: Access-Control-Allow-Origin %q", h.Get("Access-Control-Allow-Origin"))
	}
	if _, h := star.corsGet(t, originEvil, apiKey(star.apiKey)); h.Get("Access-Control-Allow-Origin") != "" {
		t.Error("*: an API key request gets CORS headers")
	}
	if h := star.preflight(t, "/v1/sessions", originEvil, "POST", "content-type,x-api-key"); h.Get("Access-Control-Allow-Origin") != "" {
		t.Error("*: an X-Api-Key preflight is allowed")
	}
	none := newEnv(t)
	if _, h := none.corsGet(t, originA, bearer(none.session(newWallet()))); h.Get("Access-Control-Allow-Origin") != "" {
		t.Error("no configuration: an origin is allowed")
	}
	req, _ := http.NewRequest(http.MethodOptions, star.srv.URL+"/healthz", nil)
	req.Header.Set("Origin", originEvil)
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, err := star.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("a path outside the API answers a preflight")
	}
}

// Browsers do not apply CORS to WebSockets: the stream checks the Origin
// against the session's project itself, and tells a refused page why (403,
// close 4403). Clients that send no Origin are not browsers and are
// admitted.
func TestStreamOrigin(t *testing.T) {
	t.Parallel()
	fc := newFakeCluster(t)
	e := corsEnv(t, withRPC(fc.url))
	wallet := fc.owner.String()
	cases := []struct {
		name, origin string
		refused      bool
	}{
		{"its project's origin", originA, false},
		{"the operator's default", originOperator, false},
		{"no Origin", "", false},
		{"this server's own origin", "SELF", false},
		{"another project's origin", originB, true},
		{"an origin nobody lists", originEvil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := e.with(t)
			h := http.Header{}
			switch c.origin {
			case "":
			case "SELF":
				h.Set("Origin", e.srv.URL)
			default:
				h.Set("Origin", c.origin)
			}
			res := readAll(t, e.dialStream(t, wallet, tokenQuery(e.session(wallet)), &websocket.DialOptions{HTTPHeader: h}))
			if c.refused {
				if res.close.Code != 4403 || res.errEvent["code"] != "permission_denied" || !strings.Contains(res.errEvent["message"].(string), "Settings") {
					t.Errorf("close %v, error %v; want 4403 permission_denied", res.close, res.errEvent)
				}
				return
			}
			if res.close.Code != websocket.StatusNormalClosure || len(res.chunks) == 0 {
				t.Errorf("close %v, %d chunks, error %v", res.close, len(res.chunks), res.errEvent)
			}
		})
	}
}
