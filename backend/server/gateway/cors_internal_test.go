package gateway

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// countingSessions counts the session tokens it is asked about.
type countingSessions struct{ asked int }

func (c *countingSessions) SessionProject(string) (string, bool) {
	c.asked++
	return "prj", true
}

// A request without Origin is not a browser's: it gets the same Vary
// headers, and its session token is not checked for CORS (the auth
// interceptor checks it: once per request, not twice).
func TestCORSChecksNoTokenWithoutOrigin(t *testing.T) {
	for _, tc := range []struct {
		origin    string
		wantAsked int
	}{{"", 0}, {"https://a.example", 1}} {
		sessions := &countingSessions{}
		p := NewOriginPolicy(CORS{Default: []string{"https://a.example"}}, CORSPaths{}, sessions, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
		h := p.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		req := httptest.NewRequest(http.MethodGet, "/v1/stats", nil)
		req.Header.Set("Authorization", "Bearer token")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if got := w.Header().Values("Vary"); len(got) != 2 || got[0] != "Origin" || got[1] != "Authorization, X-Api-Key" {
			t.Errorf("origin %q: Vary %q", tc.origin, got)
		}
		if sessions.asked != tc.wantAsked {
			t.Errorf("origin %q: the session token was checked %d times for CORS, want %d", tc.origin, sessions.asked, tc.wantAsked)
		}
	}
}
