package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

// The console's attacks of issue 19, each against the real `reclaim serve`
// as an attacker meets it over HTTP: a flood of sign-ins with distinct
// emails, a CSRF token used twice or forged, an owner locked out by an
// attacker behind the same balancer, X-Forwarded-For spoofed from a peer
// nobody trusts, the add-member form as an oracle of who has an account,
// and cookies without Secure or HSTS. No cluster is needed: the console
// and the API's rate limit answer without one. Where a test plays the
// balancer, the server trusts loopback (RECLAIM_TRUSTED_PROXIES) and the
// test names each client in X-Forwarded-For, as HAProxy does.

// consoleServer starts `reclaim serve` on a fresh SQLite data directory
// with extra settings (KEY=value) and returns it with its environment.
func consoleServer(t *testing.T, extra ...string) (*reclaimd.Server, []string) {
	t.Helper()
	env := append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"RECLAIM_DATA_DIR=" + filepath.Join(t.TempDir(), "data"), "SOLANA_RPC_URL=http://127.0.0.1:1",
		"RECLAIM_ADDR=127.0.0.1:0",
	}, extra...)
	return reclaimd.Serve(t, env, nil), env
}

// consoleOwner creates a console account with password.
func consoleOwner(t *testing.T, env []string, email string) {
	t.Helper()
	if out := reclaimd.Run(t, env, attackPassword+"\n", "owner", "create", "--email", email); !strings.HasPrefix(out, "own_") {
		t.Fatalf("reclaim owner create printed %q", out)
	}
}

const attackPassword = "correct horse battery staple"

// visitor is one browser: a cookie jar, redirects not followed, and the
// address a balancer would report for it (none: the TCP peer).
type visitor struct {
	t      testing.TB
	base   string
	client *http.Client
	from   string
}

func newVisitor(t testing.TB, base, from string) *visitor {
	jar, _ := cookiejar.New(nil)
	return &visitor{t: t, base: base, from: from, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// visit is an answer, its body read.
type visit struct {
	status int
	header http.Header
	body   string
}

var csrfInput = regexp.MustCompile(`name="csrf_token" value="([^"]*)"`)

// token is the CSRF token of the first form of the page.
func (v visit) token() string {
	if m := csrfInput.FindStringSubmatch(v.body); m != nil {
		return m[1]
	}
	return ""
}

func (v *visitor) do(method, path string, form url.Values, headers ...string) visit {
	v.t.Helper()
	a, err := v.send(method, path, form, headers...)
	if err != nil {
		v.t.Fatal(err)
	}
	return a
}

// send is do for other goroutines than the test's: it returns its error.
func (v *visitor) send(method, path string, form url.Values, headers ...string) (visit, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, v.base+path, body)
	if err != nil {
		return visit{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	if v.from != "" {
		req.Header.Set("X-Forwarded-For", v.from)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := v.client.Do(req)
	if err != nil {
		return visit{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return visit{status: resp.StatusCode, header: resp.Header, body: string(raw)}, err
}

// floodSignIns has every visitor post the sign-in form with its token and
// an email of its own, all at the same moment, and returns the answers
// (status -1: none).
func floodSignIns(visitors []*visitor, tokens []string) []visit {
	answers := make([]visit, len(visitors))
	var start, done sync.WaitGroup
	start.Add(1)
	for i, v := range visitors {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			a, err := v.send("POST", "/admin/signin", url.Values{
				"csrf_token": {tokens[i]}, "email": {fmt.Sprintf("flood%d@example.com", i)}, "password": {attackPassword},
			})
			if err != nil {
				a.status = -1
			}
			answers[i] = a
		}()
	}
	start.Done()
	done.Wait()
	return answers
}

// signIn opens the sign-in page and signs in with its token.
func (v *visitor) signIn(email, password string) visit {
	v.t.Helper()
	tok := v.do("GET", "/admin/signin", nil).token()
	return v.do("POST", "/admin/signin", url.Values{"csrf_token": {tok}, "email": {email}, "password": {password}})
}

// Attack: many sign-ins at once, each with an email of its own and from an
// address of its own (a botnet behind the balancer), so that no per-email
// or per-address limit holds them. Each checked a password with argon2id
// (19 MiB) at once: 64 of them took the process over a gigabyte. The
// password budget keeps it to its slots, and refuses the rest with 503 and
// Retry-After.
func TestConsoleSignInFloodMemory(t *testing.T) {
	const clients, limit = 64, 200 << 20
	srv, _ := consoleServer(t, "RECLAIM_TRUSTED_PROXIES=127.0.0.1", "GOMAXPROCS=2")
	visitors := make([]*visitor, clients)
	tokens := make([]string, clients)
	for i := range visitors {
		visitors[i] = newVisitor(t, srv.URL, fmt.Sprintf("198.18.%d.%d", i/200, i%200+1))
		tokens[i] = visitors[i].do("GET", "/admin/signin", nil).token()
	}
	if got := newVisitor(t, srv.URL, "198.19.0.1").signIn("warm@example.com", attackPassword).status; got != http.StatusUnauthorized {
		t.Fatalf("one sign-in of an unknown email: %d, want 401", got)
	}
	idle, _ := srv.Memory()
	answers := floodSignIns(visitors, tokens)
	_, peak := srv.Memory()
	codes := map[int]int{}
	for _, a := range answers {
		codes[a.status]++
		if a.status == http.StatusServiceUnavailable && (a.header.Get("Retry-After") == "" || !strings.Contains(a.body, "busy")) {
			t.Errorf("a refused sign-in: Retry-After %q, body without a message for the owner", a.header.Get("Retry-After"))
		}
	}
	if codes[http.StatusUnauthorized]+codes[http.StatusServiceUnavailable] != clients {
		t.Errorf("answers %v, want 401 (checked) or 503 (the budget is full) only", codes)
	}
	t.Logf("%d sign-ins at once: %v; resident memory %d MiB idle, peak %d MiB", clients, codes, idle>>20, peak>>20)
	if peak-idle > limit {
		t.Errorf("%d sign-ins at once took the process from %d to %d MiB, more than %d MiB above idle", clients, idle>>20, peak>>20, limit>>20)
	}
}

// Attack: one CSRF token for many sign-ins, and a token made up by the
// client (the cookie and the field were compared to each other only). A
// token is bound to its browser's pre-session, made by the server, and
// spent on use.
func TestConsoleSignInTokenSpentOnUse(t *testing.T) {
	srv, _ := consoleServer(t)
	v := newVisitor(t, srv.URL, "")
	tok := v.do("GET", "/admin/signin", nil).token()
	form := url.Values{"csrf_token": {tok}, "email": {"alice@example.com"}, "password": {"wrong password!"}}
	first := v.do("POST", "/admin/signin", form)
	if first.status != http.StatusUnauthorized {
		t.Fatalf("first use of a token: %d, want 401", first.status)
	}
	if again := v.do("POST", "/admin/signin", form); again.status != http.StatusForbidden {
		t.Errorf("the same token again: %d, want 403", again.status)
	}
	if next := v.do("POST", "/admin/signin", url.Values{"csrf_token": {first.token()}, "email": {"alice@example.com"}, "password": {"wrong password!"}}); next.status != http.StatusUnauthorized {
		t.Errorf("the token of the answer's form: %d, want 401", next.status)
	}
	forger := newVisitor(t, srv.URL, "")
	made := strings.Repeat("A", 43)
	u, _ := url.Parse(srv.URL + "/admin/")
	forger.client.Jar.SetCookies(u, []*http.Cookie{{Name: "reclaim_csrf", Value: made, Path: "/admin"}})
	if got := forger.do("POST", "/admin/signin", url.Values{"csrf_token": {made}, "email": {"alice@example.com"}, "password": {"x"}}); got.status != http.StatusForbidden {
		t.Errorf("a cookie and a token the client made up: %d, want 403", got.status)
	}
	other := newVisitor(t, srv.URL, "")
	other.do("GET", "/admin/signin", nil)
	if got := other.do("POST", "/admin/signin", url.Values{"csrf_token": {v.do("GET", "/admin/signin", nil).token()}, "email": {"a@example.com"}, "password": {"x"}}); got.status != http.StatusForbidden {
		t.Errorf("another browser's token: %d, want 403", got.status)
	}
}

// Attack: behind the balancer every client had its address, so an attacker
// failing at the owner's account locked the owner out too. Now each client
// is itself (the balancer's X-Forwarded-For), failures at the account delay
// only addresses that failed, and the owner from elsewhere signs in at
// once, whether the attacker uses one address or many.
func TestConsoleOwnerNotLockedOutBehindProxy(t *testing.T) {
	srv, env := consoleServer(t, "RECLAIM_TRUSTED_PROXIES=127.0.0.1")
	consoleOwner(t, env, "alice@example.com")
	fail := func(from string) {
		t.Helper()
		v := newVisitor(t, srv.URL, from)
		for range 30 {
			switch got := v.signIn("alice@example.com", "guess guess guess").status; got {
			case http.StatusUnauthorized:
				continue
			case http.StatusTooManyRequests:
				return
			default:
				t.Fatalf("attacker at %s: %d", from, got)
			}
		}
		t.Fatalf("attacker at %s: 30 failures without a wait", from)
	}
	fail("203.0.113.9")
	if got := newVisitor(t, srv.URL, "198.51.100.7").signIn("alice@example.com", attackPassword); got.status != http.StatusSeeOther {
		t.Fatalf("the owner at another address, after an attacker failed at her account: %d, want 303 (signed in)", got.status)
	}
	for i := range 12 {
		fail(fmt.Sprintf("203.0.113.%d", 100+i))
	}
	if got := newVisitor(t, srv.URL, "198.51.100.8").signIn("alice@example.com", attackPassword); got.status != http.StatusSeeOther {
		t.Fatalf("the owner at a clean address, after 12 attackers failed at her account: %d, want 303 (signed in)", got.status)
	}
}

// Attack: a client nobody trusts writes a new X-Forwarded-For on every
// request to be a new client each time. Its header is ignored: the console
// limits its sign-ins (whatever the emails) and the API its unauthenticated
// requests, by its TCP address. A trusted balancer's clients, on the other
// hand, are limited each on its own.
func TestConsoleAndAPIIgnoreForwardedForFromUntrustedPeer(t *testing.T) {
	srv, _ := consoleServer(t, "RECLAIM_RATE_LIMIT_RPS=0.01", "RECLAIM_RATE_LIMIT_BURST=5", "RECLAIM_RATE_LIMIT_IP_RPS=0.01", "RECLAIM_RATE_LIMIT_IP_BURST=5")
	limited := 0
	for i := range 12 {
		v := newVisitor(t, srv.URL, fmt.Sprintf("192.0.2.%d", i+1))
		switch got := v.signIn(fmt.Sprintf("spray%d@example.com", i), "guess guess guess").status; got {
		case http.StatusUnauthorized:
		case http.StatusTooManyRequests:
			limited++
		default:
			t.Fatalf("sign-in %d: %d", i, got)
		}
	}
	if limited == 0 {
		t.Error("12 sign-ins with distinct emails from one peer, each naming another address: none limited")
	}
	for i := range 6 {
		if got := apiStatus(t, srv.URL, fmt.Sprintf("192.0.2.%d", i+1)); i == 5 && got != http.StatusTooManyRequests {
			t.Errorf("6th unauthenticated API request from one peer naming a 6th address: %d, want 429", got)
		}
	}

	behind, _ := consoleServer(t, "RECLAIM_RATE_LIMIT_RPS=0.01", "RECLAIM_RATE_LIMIT_BURST=5", "RECLAIM_RATE_LIMIT_IP_RPS=0.01", "RECLAIM_RATE_LIMIT_IP_BURST=5", "RECLAIM_TRUSTED_PROXIES=127.0.0.1")
	for range 6 {
		apiStatus(t, behind.URL, "203.0.113.9")
	}
	if got := apiStatus(t, behind.URL, "203.0.113.9"); got != http.StatusTooManyRequests {
		t.Fatalf("a client behind the trusted balancer past its burst: %d, want 429", got)
	}
	if got := apiStatus(t, behind.URL, "198.51.100.7"); got != http.StatusUnauthorized {
		t.Errorf("another client behind the same balancer: %d, want 401 (its own budget)", got)
	}
}

// apiStatus sends an unauthenticated API request (a malformed key) as the
// client at from, and returns the status.
func apiStatus(t *testing.T, base, from string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/stats", nil)
	req.Header.Set("X-Api-Key", "ak_live_guess")
	req.Header.Set("X-Forwarded-For", from)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Attack: the add-member form answered an email without an account
// differently ("no console account uses this email"), so any owner of any
// project could learn who has an account. Now both get the same answer.
func TestConsoleAddMemberTellsNoAccounts(t *testing.T) {
	srv, env := consoleServer(t)
	consoleOwner(t, env, "alice@example.com")
	consoleOwner(t, env, "bob@example.com")
	v := newVisitor(t, srv.URL, "")
	if got := v.signIn("alice@example.com", attackPassword); got.status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", got.status)
	}
	created := v.do("POST", "/admin/projects", url.Values{"csrf_token": {v.do("GET", "/admin/projects", nil).token()}, "name": {"Acme"}})
	if created.status != http.StatusSeeOther {
		t.Fatalf("create a project: %d", created.status)
	}
	settings := created.header.Get("Location") + "/settings"
	add := func(email string) visit {
		page := v.do("GET", settings, nil)
		return v.do("POST", strings.TrimSuffix(settings, "/settings")+"/members", url.Values{"csrf_token": {page.token()}, "email": {email}, "role": {"viewer"}})
	}
	known, unknown := add("bob@example.com"), add("nobody@example.com")
	if known.status != unknown.status || known.header.Get("Location") != unknown.header.Get("Location") || known.body != unknown.body {
		t.Errorf("add an account's email: %d %q, %d bytes; add an email without one: %d %q, %d bytes; want the same answer",
			known.status, known.header.Get("Location"), len(known.body), unknown.status, unknown.header.Get("Location"), len(unknown.body))
	}
}

// Attack: cookies that travel over plain HTTP and no HSTS, so a network
// attacker downgrades the console. RECLAIM_SECURE_COOKIES (on by default
// unless the console listens on loopback) marks them Secure and sends
// Strict-Transport-Security.
func TestConsoleSecureCookiesAndHSTS(t *testing.T) {
	for _, c := range []struct {
		name   string
		env    []string
		secure bool
	}{
		{name: "loopback by default", secure: false},
		{name: "RECLAIM_SECURE_COOKIES=true", env: []string{"RECLAIM_SECURE_COOKIES=true"}, secure: true},
		{name: "every interface by default", env: []string{"RECLAIM_ADDR=0.0.0.0:0"}, secure: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := consoleServer(t, c.env...)
			base := strings.Replace(strings.Replace(srv.URL, "0.0.0.0", "127.0.0.1", 1), "[::]", "127.0.0.1", 1)
			resp, err := http.Get(base + "/admin/signin")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			hsts := resp.Header.Get("Strict-Transport-Security")
			var cookie *http.Cookie
			for _, ck := range resp.Cookies() {
				if ck.Name == "reclaim_csrf" {
					cookie = ck
				}
			}
			if cookie == nil || cookie.Secure != c.secure || (hsts != "") != c.secure {
				t.Errorf("cookie %+v, Strict-Transport-Security %q; want Secure and HSTS %v", cookie, hsts, c.secure)
			}
			if c.secure && !strings.HasPrefix(hsts, "max-age=") {
				t.Errorf("Strict-Transport-Security %q", hsts)
			}
		})
	}
}
