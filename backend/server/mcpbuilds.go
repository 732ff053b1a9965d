package server

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
)

// buildsPath serves a build an MCP client made to the signing page it
// links to (RECLAIM_SIGN_URL?build=ID).
const buildsPath = "/mcp/builds/{id}"

// buildStash keeps the builds made through MCP for a while, so that a
// person can finish one in a browser wallet from a link: the link carries
// an unguessable id good for that build alone, never a credential. The
// page still needs a session of the project to submit, and a build whose
// tickets expired is built again from its request. Per instance, in
// memory: behind a balancer the link must reach the instance that built
// (see README, MCP).
type buildStash struct {
	ttl      time.Duration
	maxBytes int
	now      func() time.Time

	mu     sync.Mutex
	bytes  int
	builds map[string]stashedBuild
}

type stashedBuild struct {
	project, wallet string
	build, request  json.RawMessage
	built, expires  time.Time
}

// stashTTL is how long a link works: long enough to open it and sign; a
// build older than its tickets is built again by the page.
const stashTTL = 15 * time.Minute

func newBuildStash(now func() time.Time) *buildStash {
	return &buildStash{ttl: stashTTL, maxBytes: 64 << 20, now: now, builds: map[string]stashedBuild{}}
}

// put keeps a build and returns its id and expiry; ok is false when the
// stash is full (the answer then has no link).
func (s *buildStash) put(project, wallet string, build, request json.RawMessage) (id string, expires time.Time, ok bool) {
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	id = base64.RawURLEncoding.EncodeToString(raw)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, b := range s.builds {
		if !now.Before(b.expires) {
			s.bytes -= len(b.build) + len(b.request)
			delete(s.builds, k)
		}
	}
	size := len(build) + len(request)
	if s.bytes+size > s.maxBytes {
		return "", time.Time{}, false
	}
	expires = now.Add(s.ttl)
	s.builds[id] = stashedBuild{project: project, wallet: wallet, build: build, request: request, built: now, expires: expires}
	s.bytes += size
	return id, expires, true
}

func (s *buildStash) get(id string) (stashedBuild, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.builds[id]
	if !ok || !s.now().Before(b.expires) {
		return stashedBuild{}, false
	}
	return b, true
}

// signLink is the signing page's link to build id.
func signLink(page, id string) string {
	u, err := url.Parse(page)
	if err != nil {
		return page + "?build=" + url.QueryEscape(id)
	}
	q := u.Query()
	q.Set("build", id)
	u.RawQuery = q.Encode()
	return u.String()
}

// serveBuild answers GET /mcp/builds/{id}: the build, its request (to build
// again once the tickets expired) and its wallet, to a page on an origin
// the build's project allows (its session then submits), after the client
// address's bucket. An unknown or expired id is a 404.
func (m *mcpFace) serveBuild(origins *originPolicy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res := m.gate.allow(r.Context(), m.gate.perIP, "ip:"+m.gate.clients.Key(r.RemoteAddr, r.Header.Values(clientip.Header)))
		setRateHeaders(w.Header(), res)
		if res != nil && !res.Allowed {
			writeError(w, limited(res, "from this address"))
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Add("Vary", "Origin")
		b, ok := m.builds.get(r.PathValue("id"))
		if !ok {
			newRESTError(http.StatusNotFound, codeForStatus(http.StatusNotFound),
				"no such build: it expired or was never made; build again", "id").write(w)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && origins.allows(r.Context(), o, b.project) {
			w.Header().Set("Access-Control-Allow-Origin", o)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"walletAddress": b.wallet, "build": b.build, "request": b.request,
			"builtAt": b.built.UTC().Format(time.RFC3339), "expiresAt": b.expires.UTC().Format(time.RFC3339),
		})
	})
}
