package admin_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// cheap keeps argon2id fast in tests; the parameters travel in the hash.
var cheap = owner.Passwords{Time: 1, MemoryKiB: 64, Threads: 1}

const password = "correct horse battery staple"

// harness is a console on a fresh SQLite store, served over HTTP.
type harness struct {
	t      testing.TB
	store  *storagetest.Store
	hasher *auth.Hasher
	owners *owner.Service
	clock  *clocktest.Clock
	srv    *httptest.Server
}

func newHarness(t *testing.T, allowSignup bool, edits ...func(*admin.Deps)) *harness {
	t.Helper()
	return newHarnessWith(t, owner.Options{}, allowSignup, edits...)
}

// newHarnessWith is newHarness with the owner service's options opts
// (cheap passwords and the harness's clock unless opts sets them).
func newHarnessWith(t testing.TB, opts owner.Options, allowSignup bool, edits ...func(*admin.Deps)) *harness {
	t.Helper()
	h := &harness{
		t: t, store: storagetest.SQLite(t), hasher: auth.NewHasher([]byte(strings.Repeat("p", 32))),
		clock: clocktest.New(time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)),
	}
	d := h.deps(opts)
	d.Explorer = admin.Explorer{Cluster: admin.ClusterLocalnet}
	d.AllowSignup = allowSignup
	for _, edit := range edits {
		edit(&d)
	}
	h.srv = httptest.NewServer(admin.New(d))
	t.Cleanup(h.srv.Close)
	return h
}

// deps wires the console over h.store as `reclaim serve` does, with the
// owner service's options opts, by default cheap passwords and h's clock.
func (h *harness) deps(opts owner.Options) admin.Deps {
	projects := project.NewService(h.store, h.hasher, h.clock.Now)
	if opts.Passwords == (owner.Passwords{}) {
		opts.Passwords = cheap
	}
	if opts.Now == nil {
		opts.Now = h.clock.Now
	}
	h.owners = owner.NewService(h.store, projects, opts)
	o := h.owners
	return admin.Deps{
		Accounts: o, FormTokens: o, Sessions: o, Projects: o, Settings: o, Keys: projects, KeyChanges: o,
		Members: o, MemberChanges: o, Origins: projects, OriginChanges: o, Audit: o, Ledger: ledger.NewService(h.store), History: h.store,
		Now: h.clock.Now,
		// The test's clients are on loopback: a browser with an address
		// (browser.from) is a client behind a proxy there.
		ClientIP: clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}),
	}
}

func (h *harness) owner(email string) owner.Owner {
	h.t.Helper()
	o, err := h.owners.CreateOwner(context.Background(), email, password)
	if err != nil {
		h.t.Fatal(err)
	}
	return o
}

// browser is one visitor: a cookie jar, redirects not followed. With from
// set, it is a client at that address behind a proxy (X-Forwarded-For).
type browser struct {
	h      *harness
	client *http.Client
	from   string
}

func (h *harness) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{h: h, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// response is a read response with its parsed page.
type response struct {
	*http.Response
	body string
	doc  *html.Node
}

func (b *browser) do(req *http.Request) *response {
	b.h.t.Helper()
	if b.from != "" {
		req.Header.Set("X-Forwarded-For", b.from)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.h.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	doc, err := html.Parse(strings.NewReader(string(body)))
	if err != nil {
		b.h.t.Fatal(err)
	}
	return &response{Response: resp, body: string(body), doc: doc}
}

func (b *browser) get(path string) *response {
	req, _ := http.NewRequest(http.MethodGet, b.h.srv.URL+path, nil)
	return b.do(req)
}

// post submits a form as a same-origin browser does.
func (b *browser) post(path string, form url.Values, headers ...string) *response {
	req, _ := http.NewRequest(http.MethodPost, b.h.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

// submit posts a form to path with a fresh token of the page at path, as
// a browser that opened the page does.
func (b *browser) submit(path string, form url.Values) *response {
	b.h.t.Helper()
	form.Set("csrf_token", value(b.get(path).doc, "csrf_token"))
	return b.post(path, form)
}

// signIn signs in through the form and returns the session's CSRF token.
func (b *browser) signIn(email string) string {
	b.h.t.Helper()
	resp := b.submit("/admin/signin", url.Values{"email": {email}, "password": {password}})
	if resp.StatusCode != http.StatusSeeOther {
		b.h.t.Fatalf("sign in as %s: status %d: %s", email, resp.StatusCode, text(byTestID(resp.doc, "form-error")))
	}
	return b.csrf()
}

// csrf reads the session's token from the sign-out form of a page.
func (b *browser) csrf() string {
	b.h.t.Helper()
	tok := value(b.get("/admin/projects").doc, "csrf_token")
	if tok == "" {
		b.h.t.Fatal("no CSRF token on the projects page")
	}
	return tok
}

// createProject creates a project through the form and returns its id.
func (b *browser) createProject(csrf, name string) string {
	b.h.t.Helper()
	resp := b.post("/admin/projects", url.Values{"csrf_token": {csrf}, "name": {name}})
	if resp.StatusCode != http.StatusSeeOther {
		b.h.t.Fatalf("create project: status %d", resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	return strings.TrimPrefix(loc, "/admin/projects/")
}

// byTestID returns the first element with data-testid=id, or nil.
func byTestID(n *html.Node, id string) *html.Node {
	all := allByTestID(n, id)
	if len(all) == 0 {
		return nil
	}
	return all[0]
}

func allByTestID(n *html.Node, id string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && attr(n, "data-testid") == id {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, name string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// value returns the value of the first input named name.
func value(n *html.Node, name string) string {
	var found string
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.Data == "input" && attr(n, "name") == name {
			found = attr(n, "value")
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(n)
	return found
}

func ioCopy(w io.Writer, resp *http.Response) (int64, error) {
	defer resp.Body.Close()
	return io.Copy(w, resp.Body)
}
