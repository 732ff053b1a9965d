package mcp

import (
	"container/list"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/server/gateway"
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
//
// It is shared by every project, fairly: one project holds at most a
// share (a quarter) of its bytes and of its entries, and a build that
// does not fit evicts expired builds first, then the oldest builds of the
// project that holds the largest share (of bytes or of entries), so a
// project that floods it only ever displaces its own builds once it holds
// more than the others.
type buildStash struct {
	ttl time.Duration
	// maxBytes and maxEntries bound the whole stash; shareBytes and
	// shareEntries one project's part of it.
	maxBytes, maxEntries     int
	shareBytes, shareEntries int
	now                      func() time.Time

	mu     sync.Mutex
	bytes  int
	seq    uint64
	builds map[string]*stashedBuild
	// all is every build, oldest first: with one TTL, the next to expire
	// first.
	all      *list.List
	projects map[string]*projectBuilds
}

// projectBuilds is one project's part of the stash.
type projectBuilds struct {
	bytes int
	// own is the project's builds, oldest first.
	own *list.List
}

type stashedBuild struct {
	id              string
	project, wallet string
	build, request  json.RawMessage
	built, expires  time.Time
	// seq orders the builds as they were kept (a clock may stand still).
	seq uint64
	// inAll and inOwn are the build's places in the stash's and its
	// project's lists.
	inAll, inOwn *list.Element
}

// buildAt is the build at e of the stash's lists (which hold nothing else).
func buildAt(e *list.Element) *stashedBuild {
	b, _ := e.Value.(*stashedBuild)
	return b
}

func (b *stashedBuild) size() int { return len(b.build) + len(b.request) }

// stashTTL is how long a link works: long enough to open it and sign; a
// build older than its tickets is built again by the page.
const stashTTL = 15 * time.Minute

// Bounds of the stash: 64 MiB per instance, an entry counted as 4 KiB at
// least (16,384 builds), one project a quarter of both.
const (
	defaultStashBytes = 64 << 20
	stashEntryBytes   = 4 << 10
	stashShares       = 4
)

// newBuildStash returns a stash of maxBytes (0: 64 MiB).
func newBuildStash(now func() time.Time, maxBytes int) *buildStash {
	if maxBytes <= 0 {
		maxBytes = defaultStashBytes
	}
	entries := max(maxBytes/stashEntryBytes, stashShares)
	return &buildStash{
		ttl: stashTTL, maxBytes: maxBytes, maxEntries: entries,
		shareBytes: maxBytes / stashShares, shareEntries: entries / stashShares, now: now,
		builds: map[string]*stashedBuild{}, all: list.New(), projects: map[string]*projectBuilds{},
	}
}

// put keeps a build of project and returns its id and expiry; ok is false
// when the build alone is larger than a project's share (the answer then
// has no link). To make room it evicts, in this order, expired builds,
// the project's own oldest builds past its share, then the oldest builds
// of the project holding the largest share (which may be the same one).
func (s *buildStash) put(project, wallet string, build, request json.RawMessage) (id string, expires time.Time, ok bool) {
	b := &stashedBuild{project: project, wallet: wallet, build: build, request: request}
	size := b.size()
	if size > s.shareBytes {
		return "", time.Time{}, false
	}
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	b.id = base64.RawURLEncoding.EncodeToString(raw)
	now := s.now()
	b.built, b.expires = now, now.Add(s.ttl)

	s.mu.Lock()
	defer s.mu.Unlock()
	for e := s.all.Front(); e != nil && !now.Before(buildAt(e).expires); e = s.all.Front() {
		s.remove(buildAt(e))
	}
	for p := s.projects[project]; p != nil && p.own.Len() > 0 &&
		(p.bytes+size > s.shareBytes || p.own.Len()+1 > s.shareEntries); {
		s.remove(buildAt(p.own.Front()))
	}
	for s.bytes+size > s.maxBytes || len(s.builds)+1 > s.maxEntries {
		s.remove(buildAt(s.largest().own.Front()))
	}
	p := s.projects[project]
	if p == nil {
		p = &projectBuilds{own: list.New()}
		s.projects[project] = p
	}
	s.seq++
	b.seq = s.seq
	b.inAll, b.inOwn = s.all.PushBack(b), p.own.PushBack(b)
	s.builds[b.id] = b
	s.bytes += size
	p.bytes += size
	return b.id, b.expires, true
}

// remove drops b from the stash (and its project, once it has no build).
func (s *buildStash) remove(b *stashedBuild) {
	p := s.projects[b.project]
	s.all.Remove(b.inAll)
	p.own.Remove(b.inOwn)
	delete(s.builds, b.id)
	s.bytes -= b.size()
	p.bytes -= b.size()
	if p.own.Len() == 0 {
		delete(s.projects, b.project)
	}
}

// largest is the project holding the largest share of the stash: of its
// bytes or of its entries, whichever of the two it holds more of; of
// equals, the one whose oldest build is the oldest. The stash must hold a
// build.
func (s *buildStash) largest() *projectBuilds {
	var top *projectBuilds
	var topShare int64
	for _, p := range s.projects {
		// p's shares of the bytes and of the entries, over one denominator.
		share := max(int64(p.bytes)*int64(s.maxEntries), int64(p.own.Len())*int64(s.maxBytes))
		if top == nil || share > topShare ||
			share == topShare && buildAt(p.own.Front()).seq < buildAt(top.own.Front()).seq {
			top, topShare = p, share
		}
	}
	return top
}

func (s *buildStash) get(id string) (stashedBuild, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.builds[id]
	if !ok || !s.now().Before(b.expires) {
		return stashedBuild{}, false
	}
	return *b, true
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
func (m *mcpFace) serveBuild(origins *gateway.OriginPolicy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := m.gate.SpendAddress(r, w.Header()); err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Add("Vary", "Origin")
		b, ok := m.builds.get(r.PathValue("id"))
		if !ok {
			gateway.NewRESTError(http.StatusNotFound, gateway.CodeForStatus(http.StatusNotFound),
				"no such build: it expired or was never made; build again", "id").Write(w)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && origins.Allows(r.Context(), o, b.project) {
			w.Header().Set("Access-Control-Allow-Origin", o)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"walletAddress": b.wallet, "build": b.build, "request": b.request,
			"builtAt": b.built.UTC().Format(time.RFC3339), "expiresAt": b.expires.UTC().Format(time.RFC3339),
		})
	})
}
