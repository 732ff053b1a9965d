package admin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// The console's handlers, table-tested over fakes of the services they ask
// (fake_test.go): what each answers for every outcome of its services,
// without storage. The tests on real storage (harness_test.go) cover the
// same pages end to end.

// errBoom is a dependency failing: its text must reach the log, never the
// page.
var errBoom = errors.New("boom: read tcp 10.0.0.7:5432: connection reset by peer")

// consoleCase is one request to a console over fakes, and its answer.
type consoleCase struct {
	name   string
	method string // GET when empty
	path   string
	form   url.Values
	// visitor sends no session cookie; a POST of the sign-in or sign-up
	// form first opens it, as a browser does, for its token.
	visitor bool
	fake    func(*fakeConsole)
	deps    func(*admin.Deps)

	status   int
	location string // where a redirect goes
	says     string // text the page holds
	fails    bool   // a 500: errBoom is logged, and the page tells nothing of it
	check    func(t *testing.T, f *fakeConsole, resp *response)
}

func runConsole(t *testing.T, cases []consoleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeConsole()
			if tc.fake != nil {
				tc.fake(f)
			}
			d := f.deps()
			if tc.deps != nil {
				tc.deps(&d)
			}
			resp := sendTo(t, admin.New(d), tc)
			if tc.fails {
				tc.status, tc.says = http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment."
			}
			if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
				t.Fatalf("%d to %q, want %d to %q: %s", resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location, firstLine(text(resp.doc)))
			}
			if page := text(resp.doc); !strings.Contains(page, tc.says) {
				t.Errorf("page %q does not say %q", page, tc.says)
			}
			if tc.fails && (strings.Contains(resp.body, "boom") || !strings.Contains(f.logged(), errBoom.Error())) {
				t.Errorf("the cause is on the page or not logged: log %q", f.logged())
			}
			if tc.check != nil {
				tc.check(t, f, resp)
			}
		})
	}
}

// sendTo sends tc's request to h as alice's browser does (her session
// cookie, and her forms' token), or as a visitor's.
func sendTo(t *testing.T, h http.Handler, tc consoleCase) *response {
	t.Helper()
	form := url.Values{}
	for k, v := range tc.form {
		form[k] = v
	}
	var cookies []*http.Cookie
	switch {
	case tc.visitor && tc.method == http.MethodPost && (tc.path == "/admin/signin" || tc.path == "/admin/signup"):
		page := do(t, h, httptest.NewRequest(http.MethodGet, tc.path, nil))
		cookies = page.Cookies()
		if !form.Has("csrf_token") {
			form.Set("csrf_token", value(page.doc, "csrf_token"))
		}
	case !tc.visitor:
		cookies = []*http.Cookie{{Name: "reclaim_session", Value: fakeSession}}
		if tc.method == http.MethodPost && !form.Has("csrf_token") {
			form.Set("csrf_token", fakeCSRF)
		}
	}
	method := tc.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, tc.path, body)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	return do(t, h, req)
}

func do(t *testing.T, h http.Handler, req *http.Request) *response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	doc, err := html.Parse(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return &response{Response: resp, body: string(b), doc: doc}
}

// notCalled checks that a refused request asked none of methods.
func notCalled(methods ...string) func(*testing.T, *fakeConsole, *response) {
	return func(t *testing.T, f *fakeConsole, _ *response) {
		t.Helper()
		for _, m := range methods {
			if f.called(m) {
				t.Errorf("%s was called", m)
			}
		}
	}
}

const (
	msgServerError = "Something went wrong on our side. Try again in a moment."
	msgNotFound    = "There is nothing here, or you do not have access to it."
	msgViewers     = "Viewers cannot change API keys or settings. Ask an owner of this project."
)

// TestConsoleSessions: who is signed in, and the session's form token.
func TestConsoleSessions(t *testing.T) {
	t.Parallel()
	runConsole(t, []consoleCase{
		{name: "home, signed in", path: "/admin/", status: http.StatusSeeOther, location: "/admin/projects"},
		{name: "home, signed out", path: "/admin/", visitor: true, status: http.StatusSeeOther, location: "/admin/signin"},
		{name: "a page, signed out", path: "/admin/projects/prj_1/keys", visitor: true, status: http.StatusSeeOther, location: "/admin/signin?next=%2Fadmin%2Fprojects%2Fprj_1%2Fkeys"},
		{name: "an unknown session", path: "/admin/projects", fake: func(f *fakeConsole) {
			f.session = func(string) (owner.Session, owner.Owner, error) {
				return owner.Session{}, owner.Owner{}, owner.ErrNotFound
			}
		}, status: http.StatusSeeOther, location: "/admin/signin?next=%2Fadmin%2Fprojects"},
		{name: "sessions unavailable", path: "/admin/projects", fake: func(f *fakeConsole) {
			f.session = func(string) (owner.Session, owner.Owner, error) { return owner.Session{}, owner.Owner{}, errBoom }
		}, fails: true},
		{name: "a form without the session's token", method: http.MethodPost, path: "/admin/projects", form: url.Values{"csrf_token": {""}, "name": {"New"}},
			status: http.StatusForbidden, says: "This form has expired or did not come from this console. Reload the page and try again.", check: notCalled("CreateProject")},
		{name: "a form with another token", method: http.MethodPost, path: "/admin/projects", form: url.Values{"csrf_token": {"csrf-of-mallory"}, "name": {"New"}},
			status: http.StatusForbidden, says: "did not come from this console", check: notCalled("CreateProject")},
		{name: "sign-in page, signed in", path: "/admin/signin?next=/admin/projects/prj_1", status: http.StatusSeeOther, location: "/admin/projects/prj_1"},
		{name: "sign-in page, signed in, next elsewhere", path: "/admin/signin?next=//evil.example", status: http.StatusSeeOther, location: "/admin/projects"},
		{name: "sign out", method: http.MethodPost, path: "/admin/signout", status: http.StatusSeeOther, location: "/admin/signin",
			check: func(t *testing.T, f *fakeConsole, resp *response) {
				if c := cookieOf(resp, "reclaim_session"); c == nil || c.MaxAge >= 0 || !f.called("EndSession") {
					t.Errorf("session cookie %+v, EndSession called %v", c, f.called("EndSession"))
				}
			}},
		{name: "sign out, sessions unavailable", method: http.MethodPost, path: "/admin/signout", fake: func(f *fakeConsole) {
			f.endSession = func(owner.Session) error { return errBoom }
		}, fails: true},
		{name: "unknown page", path: "/admin/nowhere", status: http.StatusNotFound, says: msgNotFound},
		{name: "static files are cached", path: "/admin/static/app.css", status: http.StatusOK, check: func(t *testing.T, _ *fakeConsole, resp *response) {
			if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=3600" {
				t.Errorf("Cache-Control %q", cc)
			}
		}},
	})
}

func cookieOf(resp *response, name string) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestConsoleSignIn: every answer of the sign-in form.
func TestConsoleSignIn(t *testing.T) {
	t.Parallel()
	form := url.Values{"email": {"  Alice@Example.com "}, "password": {"a password"}}
	withNext := url.Values{"email": {"alice@example.com"}, "password": {"a password"}, "next": {"/admin/projects/prj_1/keys"}}
	busy := &owner.BusyError{RetryAfter: 3 * time.Second}
	const msgBusy = "The console is busy with other sign-ins right now, and did nothing with this form. Wait 3 seconds before trying again."
	post := func(c consoleCase) consoleCase {
		c.method, c.path, c.visitor = http.MethodPost, "/admin/signin", true
		if c.form == nil {
			c.form = form
		}
		return c
	}
	runConsole(t, []consoleCase{
		post(consoleCase{name: "signed in", status: http.StatusSeeOther, location: "/admin/projects",
			fake: func(f *fakeConsole) {
				f.signIn = func(email, password, client string) (owner.Owner, error) {
					if email != "Alice@Example.com" || password != "a password" || client != "192.0.2.1" {
						return owner.Owner{}, fmt.Errorf("signed in with %q %q from %q", email, password, client)
					}
					return alice, nil
				}
			},
			check: func(t *testing.T, f *fakeConsole, resp *response) {
				if c := cookieOf(resp, "reclaim_session"); c == nil || c.Value != "session-new" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
					t.Errorf("session cookie %+v", c)
				}
				if !f.called("SpendToken") {
					t.Error("the form's token was not spent")
				}
			}}),
		post(consoleCase{name: "signed in, back to the page asked", form: withNext, status: http.StatusSeeOther, location: "/admin/projects/prj_1/keys"}),
		post(consoleCase{name: "signed in, next elsewhere", form: url.Values{"email": {"a@b.c"}, "password": {"p"}, "next": {"https://evil.example/"}},
			status: http.StatusSeeOther, location: "/admin/projects"}),
		post(consoleCase{name: "bad credentials", fake: func(f *fakeConsole) {
			f.signIn = func(string, string, string) (owner.Owner, error) { return owner.Owner{}, owner.ErrBadCredentials }
		}, status: http.StatusUnauthorized, says: "The email or the password is incorrect.", check: notCalled("StartSession")}),
		post(consoleCase{name: "throttled", fake: func(f *fakeConsole) {
			f.signIn = func(string, string, string) (owner.Owner, error) {
				return owner.Owner{}, &owner.ThrottledError{Wait: 90 * time.Second}
			}
		}, status: http.StatusTooManyRequests, says: "Too many failed sign-ins. Wait 2 minutes before trying again.",
			check: func(t *testing.T, _ *fakeConsole, resp *response) {
				if ra := resp.Header.Get("Retry-After"); ra != "90" {
					t.Errorf("Retry-After %q", ra)
				}
			}}),
		post(consoleCase{name: "passwords busy before the form is read", fake: func(f *fakeConsole) {
			f.passwordsBusy = func() error { return busy }
		}, status: http.StatusServiceUnavailable, says: msgBusy, check: notCalled("SpendToken", "SignIn")}),
		post(consoleCase{name: "passwords busy while checking", fake: func(f *fakeConsole) {
			f.signIn = func(string, string, string) (owner.Owner, error) { return owner.Owner{}, busy }
		}, status: http.StatusServiceUnavailable, says: msgBusy, check: func(t *testing.T, _ *fakeConsole, resp *response) {
			if resp.Header.Get("Retry-After") != "3" {
				t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
			}
		}}),
		post(consoleCase{name: "form sent twice", fake: func(f *fakeConsole) {
			f.spendToken = func([]byte, time.Time) error { return owner.ErrSpent }
		}, status: http.StatusForbidden, says: "This form was sent already. Reload the page and try again.", check: notCalled("SignIn")}),
		post(consoleCase{name: "form token forged", form: url.Values{"email": {"a@b.c"}, "password": {"p"}, "csrf_token": {"forged"}},
			status: http.StatusForbidden, says: "This form has expired. Reload the page and try again.", check: notCalled("SpendToken", "SignIn")}),
		post(consoleCase{name: "spent tokens unavailable", fake: func(f *fakeConsole) {
			f.spendToken = func([]byte, time.Time) error { return errBoom }
		}, fails: true, check: notCalled("SignIn")}),
		post(consoleCase{name: "accounts unavailable", fake: func(f *fakeConsole) {
			f.signIn = func(string, string, string) (owner.Owner, error) { return owner.Owner{}, errBoom }
		}, fails: true}),
		post(consoleCase{name: "session not started", fake: func(f *fakeConsole) {
			f.startSession = func(string) (string, owner.Session, error) { return "", owner.Session{}, errBoom }
		}, fails: true, check: func(t *testing.T, _ *fakeConsole, resp *response) {
			if cookieOf(resp, "reclaim_session") != nil {
				t.Error("a session cookie without a session")
			}
		}}),
	})
}

// TestConsoleSignUp: every answer of the sign-up form.
func TestConsoleSignUp(t *testing.T) {
	t.Parallel()
	const pw = "a long enough password"
	post := func(c consoleCase) consoleCase {
		c.method, c.path, c.visitor = http.MethodPost, "/admin/signup", true
		if c.form == nil {
			c.form = url.Values{"email": {"bob@example.com"}, "password": {pw}, "password_confirm": {pw}}
		}
		return c
	}
	closed := func(d *admin.Deps) { d.AllowSignup = false }
	runConsole(t, []consoleCase{
		post(consoleCase{name: "account created", status: http.StatusSeeOther, location: "/admin/projects", fake: func(f *fakeConsole) {
			f.createOwner = func(email, password string) (owner.Owner, error) {
				if email != "bob@example.com" || password != pw {
					return owner.Owner{}, fmt.Errorf("created %q %q", email, password)
				}
				return owner.Owner{ID: "own_bob", Email: email}, nil
			}
		}, check: func(t *testing.T, f *fakeConsole, resp *response) {
			if c := cookieOf(resp, "reclaim_session"); c == nil || c.Value != "session-new" {
				t.Errorf("session cookie %+v", c)
			}
		}}),
		{name: "sign-up closed: the page", path: "/admin/signup", visitor: true, deps: closed, status: http.StatusNotFound, says: msgNotFound},
		{name: "sign-up closed: the form", method: http.MethodPost, path: "/admin/signup", visitor: true, deps: closed, status: http.StatusNotFound, check: notCalled("CreateOwner")},
		post(consoleCase{name: "not an email", form: url.Values{"email": {"bob"}, "password": {pw}, "password_confirm": {pw}},
			status: http.StatusUnprocessableEntity, says: "Enter an email address such as name@example.com.", check: notCalled("CreateOwner")}),
		post(consoleCase{name: "short password", form: url.Values{"email": {"bob@example.com"}, "password": {"short"}, "password_confirm": {"short"}},
			status: http.StatusUnprocessableEntity, says: fmt.Sprintf("Use a password of at least %d characters.", owner.MinPasswordLen), check: notCalled("CreateOwner")}),
		post(consoleCase{name: "passwords differ", form: url.Values{"email": {"bob@example.com"}, "password": {pw}, "password_confirm": {pw + "!"}},
			status: http.StatusUnprocessableEntity, says: "The two passwords differ.", check: notCalled("CreateOwner")}),
		post(consoleCase{name: "email taken", fake: func(f *fakeConsole) {
			f.createOwner = func(string, string) (owner.Owner, error) { return owner.Owner{}, owner.ErrConflict }
		}, status: http.StatusUnprocessableEntity, says: "An account with this email exists already. Sign in instead.", check: notCalled("StartSession")}),
		post(consoleCase{name: "passwords busy", fake: func(f *fakeConsole) {
			f.createOwner = func(string, string) (owner.Owner, error) {
				return owner.Owner{}, &owner.BusyError{RetryAfter: 61 * time.Second}
			}
		}, status: http.StatusServiceUnavailable, says: "Wait 2 minutes before trying again."}),
		post(consoleCase{name: "passwords busy before the form is read", fake: func(f *fakeConsole) {
			f.passwordsBusy = func() error { return &owner.BusyError{RetryAfter: time.Second} }
		}, status: http.StatusServiceUnavailable, says: "Wait 1 second before trying again.", check: notCalled("SpendToken", "CreateOwner")}),
		post(consoleCase{name: "accounts unavailable", fake: func(f *fakeConsole) {
			f.createOwner = func(string, string) (owner.Owner, error) { return owner.Owner{}, errBoom }
		}, fails: true}),
		post(consoleCase{name: "session not started", fake: func(f *fakeConsole) {
			f.startSession = func(string) (string, owner.Session, error) { return "", owner.Session{}, errBoom }
		}, fails: true}),
	})
}

// TestConsoleProjects: the projects page, creating one, and the gate of a
// project's pages (members only, changes by owners only).
func TestConsoleProjects(t *testing.T) {
	t.Parallel()
	viewer := func(f *fakeConsole) {
		f.actor = func(o owner.Owner, _ string) (owner.Actor, error) {
			return owner.Actor{Owner: o, Project: acme, Role: owner.RoleViewer}, nil
		}
	}
	runConsole(t, []consoleCase{
		{name: "list", path: "/admin/projects", status: http.StatusOK, says: "Acme"},
		{name: "list unavailable", path: "/admin/projects", fake: func(f *fakeConsole) {
			f.projectsOf = func(string) ([]owner.ProjectRole, error) { return nil, errBoom }
		}, fails: true},
		{name: "create", method: http.MethodPost, path: "/admin/projects", form: url.Values{"name": {"  New one "}, "donation_wallet": {""}},
			status: http.StatusSeeOther, location: "/admin/projects/prj_2", fake: func(f *fakeConsole) {
				f.createProject = func(o owner.Owner, name, wallet string) (project.Project, error) {
					if o.ID != alice.ID || name != "New one" || wallet != "" {
						return project.Project{}, fmt.Errorf("created %q %q for %s", name, wallet, o.ID)
					}
					return project.Project{ID: "prj_2"}, nil
				}
			}},
		{name: "create, every field wrong", method: http.MethodPost, path: "/admin/projects", form: url.Values{"name": {" "}, "donation_wallet": {"nope"}},
			status: http.StatusUnprocessableEntity, says: "Give the project a name of 1 to 100 characters.", check: func(t *testing.T, f *fakeConsole, resp *response) {
				if !strings.Contains(text(resp.doc), "The donation wallet must be a Solana address (base58, 32 bytes), or left empty.") || f.called("CreateProject") {
					t.Errorf("page %q; CreateProject called %v", text(resp.doc), f.called("CreateProject"))
				}
			}},
		{name: "create unavailable", method: http.MethodPost, path: "/admin/projects", form: url.Values{"name": {"New"}}, fake: func(f *fakeConsole) {
			f.createProject = func(owner.Owner, string, string) (project.Project, error) { return project.Project{}, errBoom }
		}, fails: true},
		{name: "another's project", path: "/admin/projects/prj_other", status: http.StatusNotFound, says: msgNotFound},
		{name: "memberships unavailable", path: "/admin/projects/prj_1", fake: func(f *fakeConsole) {
			f.actor = func(owner.Owner, string) (owner.Actor, error) { return owner.Actor{}, errBoom }
		}, fails: true},
		{name: "a viewer reads", path: "/admin/projects/prj_1/keys", fake: viewer, status: http.StatusOK, says: "backend"},
		{name: "a viewer changes nothing", method: http.MethodPost, path: "/admin/projects/prj_1/keys", form: url.Values{"name": {"k"}}, fake: viewer,
			status: http.StatusForbidden, says: msgViewers, check: notCalled("CreateKey")},
		{name: "a viewer's settings", method: http.MethodPost, path: "/admin/projects/prj_1/settings", form: url.Values{"name": {"x"}}, fake: viewer,
			status: http.StatusForbidden, says: msgViewers, check: notCalled("UpdateProject")},
	})
}

// TestConsoleOverview: the numbers, the leaderboard with its filters and
// pages, and each source failing.
func TestConsoleOverview(t *testing.T) {
	t.Parallel()
	_, filterErr := ledger.ParseFilter(ledger.FilterParams{StartDate: "yesterday"})
	if filterErr == nil {
		t.Fatal("the ledger takes startDate=yesterday")
	}
	board := make([]ledger.LeaderboardEntry, 21)
	for i := range board {
		board[i] = ledger.LeaderboardEntry{Payer: fmt.Sprintf("payer%02d", i), TransactionTypeCounts: map[string]int64{}}
	}
	const path = "/admin/projects/prj_1?startDate=2026-05-01&payer=payer01&offset=20"
	runConsole(t, []consoleCase{
		{name: "filters reach the ledger", path: path, status: http.StatusOK, says: "Acme", fake: func(f *fakeConsole) {
			f.leaderboard = func(projectID string, p ledger.FilterParams) ([]ledger.LeaderboardEntry, error) {
				if want := (ledger.FilterParams{StartDate: "2026-05-01", Payer: "payer01", Offset: "20", Limit: "21"}); projectID != acme.ID || p != want {
					return nil, fmt.Errorf("leaderboard of %s with %+v, want %+v", projectID, p, want)
				}
				return nil, nil
			}
			f.dailyTotals = func(_ string, from, to time.Time) ([]ledger.DailyTotal, error) {
				if want := time.Date(2026, 5, 21, 0, 0, 0, 0, time.UTC); !to.Equal(want) || !from.Equal(want.AddDate(0, 0, -30)) {
					return nil, fmt.Errorf("chart from %v to %v", from, to)
				}
				return nil, nil
			}
		}},
		{name: "a next page", path: "/admin/projects/prj_1", status: http.StatusOK, fake: func(f *fakeConsole) {
			f.leaderboard = func(string, ledger.FilterParams) ([]ledger.LeaderboardEntry, error) { return board, nil }
		}, check: func(t *testing.T, _ *fakeConsole, resp *response) {
			rows, next := allByTestID(resp.doc, "board-row"), attr(byTestID(resp.doc, "board-next"), "href")
			if len(rows) != 20 || next != "/admin/projects/prj_1?offset=20#leaderboard" {
				t.Errorf("%d rows, next %q", len(rows), next)
			}
		}},
		{name: "a filter refused", path: "/admin/projects/prj_1?startDate=yesterday", fake: func(f *fakeConsole) {
			f.leaderboard = func(string, ledger.FilterParams) ([]ledger.LeaderboardEntry, error) { return nil, filterErr }
		}, status: http.StatusBadRequest, says: filterErr.Error(), check: func(t *testing.T, f *fakeConsole, resp *response) {
			if byTestID(resp.doc, "stats") == nil || !f.called("LatestEntries") {
				t.Error("the rest of the page is missing")
			}
		}},
		{name: "stats unavailable", path: path, fake: func(f *fakeConsole) {
			f.stats = func(string) (ledger.Stats, error) { return ledger.Stats{}, errBoom }
		}, fails: true},
		{name: "leaderboard unavailable", path: path, fake: func(f *fakeConsole) {
			f.leaderboard = func(string, ledger.FilterParams) ([]ledger.LeaderboardEntry, error) { return nil, errBoom }
		}, fails: true},
		{name: "chart unavailable", path: path, fake: func(f *fakeConsole) {
			f.dailyTotals = func(string, time.Time, time.Time) ([]ledger.DailyTotal, error) { return nil, errBoom }
		}, fails: true},
		{name: "latest unavailable", path: path, fake: func(f *fakeConsole) {
			f.latest = func(string, int) ([]ledger.Entry, error) { return nil, errBoom }
		}, fails: true},
	})
}

// TestConsoleKeys: the keys page, creating and revoking a key.
func TestConsoleKeys(t *testing.T) {
	t.Parallel()
	const keys = "/admin/projects/prj_1/keys"
	runConsole(t, []consoleCase{
		{name: "list", path: keys, status: http.StatusOK, says: "ak_live_AbCd"},
		{name: "revoked notice", path: keys + "?revoked=ak_live_AbCd", status: http.StatusOK, says: "Key ak_live_AbCd… is revoked: requests with it now fail."},
		{name: "keys unavailable", path: keys, fake: func(f *fakeConsole) {
			f.keys = func(string) ([]project.APIKey, error) { return nil, errBoom }
		}, fails: true},
		{name: "audit unavailable", path: keys, fake: func(f *fakeConsole) {
			f.auditLog = func(string, []owner.Action, int) ([]owner.AuditEntry, error) { return nil, errBoom }
		}, fails: true},
		{name: "create", method: http.MethodPost, path: keys, form: url.Values{"name": {" ci "}}, status: http.StatusOK,
			says: "Key created. Copy it now: it will not be shown again.", fake: func(f *fakeConsole) {
				f.createKey = func(a owner.Actor, name string) (string, project.APIKey, error) {
					if a.Project.ID != acme.ID || a.Owner.ID != alice.ID || name != "ci" {
						return "", project.APIKey{}, fmt.Errorf("created %q as %+v", name, a)
					}
					return "ak_live_AbCdNewSecret", project.APIKey{}, nil
				}
			}, check: func(t *testing.T, _ *fakeConsole, resp *response) {
				if v := attr(byTestID(resp.doc, "new-key"), "value"); v != "ak_live_AbCdNewSecret" {
					t.Errorf("new key shown %q", v)
				}
			}},
		{name: "create without a name", method: http.MethodPost, path: keys, form: url.Values{"name": {"  "}}, status: http.StatusUnprocessableEntity,
			says: "Give the key a name of 1 to 100 characters, such as “production backend”.", check: notCalled("CreateKey")},
		{name: "create refused to a viewer", method: http.MethodPost, path: keys, form: url.Values{"name": {"ci"}}, fake: func(f *fakeConsole) {
			f.createKey = func(owner.Actor, string) (string, project.APIKey, error) {
				return "", project.APIKey{}, owner.ErrForbidden
			}
		}, status: http.StatusForbidden, says: msgViewers},
		{name: "create unavailable", method: http.MethodPost, path: keys, form: url.Values{"name": {"ci"}}, fake: func(f *fakeConsole) {
			f.createKey = func(owner.Actor, string) (string, project.APIKey, error) { return "", project.APIKey{}, errBoom }
		}, fails: true},
		{name: "revoke page", path: keys + "/key_1/revoke", status: http.StatusOK, says: "ak_live_AbCd"},
		{name: "revoke page of another's key", path: keys + "/key_9/revoke", status: http.StatusNotFound, says: msgNotFound},
		{name: "revoke", method: http.MethodPost, path: keys + "/key_1/revoke", status: http.StatusSeeOther, location: keys + "?revoked=ak_live_AbCd"},
		{name: "revoke another's key", method: http.MethodPost, path: keys + "/key_9/revoke", fake: func(f *fakeConsole) {
			f.revokeKey = func(owner.Actor, string) (project.APIKey, error) { return project.APIKey{}, project.ErrNotFound }
		}, status: http.StatusNotFound, says: msgNotFound},
		{name: "revoke unavailable", method: http.MethodPost, path: keys + "/key_1/revoke", fake: func(f *fakeConsole) {
			f.revokeKey = func(owner.Actor, string) (project.APIKey, error) { return project.APIKey{}, errBoom }
		}, fails: true},
	})
}

// TestConsoleSettings: the settings page and its project form; each of the
// page's sources failing.
func TestConsoleSettings(t *testing.T) {
	t.Parallel()
	const settings = "/admin/projects/prj_1/settings"
	failAudit := func(action owner.Action) func(*fakeConsole) {
		return func(f *fakeConsole) {
			f.auditLog = func(_ string, actions []owner.Action, _ int) ([]owner.AuditEntry, error) {
				if hasAction(actions, action) {
					return nil, errBoom
				}
				return noEntries, nil
			}
		}
	}
	save := url.Values{"name": {" Acme 2 "}, "donation_wallet": {" " + alice.ID + " "}}
	runConsole(t, []consoleCase{
		{name: "page", path: settings + "?done=saved", status: http.StatusOK, says: "Settings saved."},
		{name: "origins unavailable", path: settings, fake: func(f *fakeConsole) {
			f.origins = func(string) ([]project.Origin, error) { return nil, errBoom }
		}, fails: true},
		{name: "origins' audit unavailable", path: settings, fake: failAudit(owner.ActionOriginAdded), fails: true},
		{name: "members unavailable", path: settings, fake: func(f *fakeConsole) {
			f.members = func(string) ([]owner.Member, error) { return nil, errBoom }
		}, fails: true},
		{name: "members' audit unavailable", path: settings, fake: failAudit(owner.ActionMemberAdded), fails: true},
		{name: "save", method: http.MethodPost, path: settings, form: url.Values{"name": {" Acme 2 "}}, status: http.StatusSeeOther,
			location: settings + "?done=saved", fake: func(f *fakeConsole) {
				f.updateProject = func(a owner.Actor, name, wallet string) (project.Project, error) {
					if a.Project.ID != acme.ID || name != "Acme 2" || wallet != "" {
						return project.Project{}, fmt.Errorf("saved %q %q as %+v", name, wallet, a)
					}
					return project.Project{}, nil
				}
			}},
		{name: "save a bad wallet", method: http.MethodPost, path: settings, form: save, status: http.StatusUnprocessableEntity,
			says: "The donation wallet must be a Solana address (base58, 32 bytes), or left empty.", check: notCalled("UpdateProject")},
		{name: "save refused to a viewer", method: http.MethodPost, path: settings, form: url.Values{"name": {"Acme"}}, fake: func(f *fakeConsole) {
			f.updateProject = func(owner.Actor, string, string) (project.Project, error) {
				return project.Project{}, owner.ErrForbidden
			}
		}, status: http.StatusForbidden, says: msgViewers},
		{name: "save a project that is gone", method: http.MethodPost, path: settings, form: url.Values{"name": {"Acme"}}, fake: func(f *fakeConsole) {
			f.updateProject = func(owner.Actor, string, string) (project.Project, error) {
				return project.Project{}, project.ErrNotFound
			}
		}, status: http.StatusNotFound, says: msgNotFound},
		{name: "save unavailable", method: http.MethodPost, path: settings, form: url.Values{"name": {"Acme"}}, fake: func(f *fakeConsole) {
			f.updateProject = func(owner.Actor, string, string) (project.Project, error) { return project.Project{}, errBoom }
		}, fails: true},
	})
}

// TestConsoleMembers: adding members, changing roles, removing members,
// with every answer of the owner service.
func TestConsoleMembers(t *testing.T) {
	t.Parallel()
	const settings = "/admin/projects/prj_1/settings"
	// The owner service's own refusal of a role, from its rules.
	_, invalidRole := owner.NewService(nil, nil, owner.Options{Passwords: cheap}).Share(context.Background(), acme.ID, "bob@example.com", "admin")
	if invalidRole == nil {
		t.Fatal("the owner service takes role admin")
	}
	add := url.Values{"email": {" bob@example.com "}, "role": {"viewer"}}
	addFails := func(err error) func(*fakeConsole) {
		return func(f *fakeConsole) {
			f.addMember = func(owner.Actor, string, owner.Role) (owner.Owner, error) { return owner.Owner{}, err }
		}
	}
	roleFails := func(err error) func(*fakeConsole) {
		return func(f *fakeConsole) { f.setRole = func(owner.Actor, string, owner.Role) error { return err } }
	}
	removeFails := func(err error) func(*fakeConsole) {
		return func(f *fakeConsole) { f.removeMember = func(owner.Actor, string) error { return err } }
	}
	runConsole(t, []consoleCase{
		{name: "add", method: http.MethodPost, path: "/admin/projects/prj_1/members", form: add, status: http.StatusSeeOther,
			location: settings + "?done=added#members", fake: func(f *fakeConsole) {
				f.addMember = func(a owner.Actor, email string, role owner.Role) (owner.Owner, error) {
					if a.Project.ID != acme.ID || email != "bob@example.com" || role != owner.RoleViewer {
						return owner.Owner{}, fmt.Errorf("added %q as %q to %+v", email, role, a)
					}
					return owner.Owner{}, nil
				}
			}},
		{name: "add, every field wrong", method: http.MethodPost, path: "/admin/projects/prj_1/members", form: url.Values{"email": {"bob"}, "role": {"admin"}},
			status: http.StatusUnprocessableEntity, says: "Enter the email of their console account.", check: func(t *testing.T, f *fakeConsole, resp *response) {
				if !strings.Contains(text(resp.doc), "Choose a role: owner or viewer.") || f.called("AddMember") {
					t.Errorf("page %q, AddMember called %v", text(resp.doc), f.called("AddMember"))
				}
			}},
		{name: "add a member", method: http.MethodPost, path: "/admin/projects/prj_1/members", form: add, fake: addFails(owner.ErrConflict),
			status: http.StatusUnprocessableEntity, says: "This account is already a member of this project: change its role in the list above."},
		{name: "add an email without an account: told as an added one", method: http.MethodPost, path: "/admin/projects/prj_1/members", form: add,
			fake: addFails(owner.ErrNoAccount), status: http.StatusSeeOther, location: settings + "?done=added#members"},
		{name: "add refused to a viewer", method: http.MethodPost, path: "/admin/projects/prj_1/members", form: add, fake: addFails(owner.ErrForbidden),
			status: http.StatusForbidden, says: msgViewers},
		{name: "add unavailable", method: http.MethodPost, path: "/admin/projects/prj_1/members", form: add, fake: addFails(errBoom), fails: true},
		{name: "role", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_bob/role", form: url.Values{"role": {" owner "}},
			status: http.StatusSeeOther, location: settings + "?done=role#members", fake: func(f *fakeConsole) {
				f.setRole = func(_ owner.Actor, memberID string, role owner.Role) error {
					if memberID != "own_bob" || role != owner.RoleOwner {
						return fmt.Errorf("made %s %q", memberID, role)
					}
					return nil
				}
			}},
		{name: "role: demoting oneself leaves the members form", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_alice/role",
			form: url.Values{"role": {"viewer"}}, status: http.StatusSeeOther, location: settings + "?done=role"},
		{name: "role of the last owner", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_alice/role", form: url.Values{"role": {"viewer"}},
			fake: roleFails(owner.ErrLastOwner), status: http.StatusUnprocessableEntity,
			says: "This is the project's last owner: make another member an owner before changing this role."},
		{name: "role unknown", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_bob/role", form: url.Values{"role": {"admin"}},
			fake: roleFails(invalidRole), status: http.StatusUnprocessableEntity, says: "Choose a role: owner or viewer."},
		{name: "role of a non-member", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_eve/role", form: url.Values{"role": {"owner"}},
			fake: roleFails(owner.ErrNotFound), status: http.StatusNotFound, says: msgNotFound},
		{name: "role unavailable", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_bob/role", form: url.Values{"role": {"owner"}},
			fake: roleFails(errBoom), fails: true},
		{name: "remove", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_bob/remove", status: http.StatusSeeOther,
			location: settings + "?done=removed#members"},
		{name: "remove oneself", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_alice/remove", status: http.StatusSeeOther,
			location: "/admin/projects"},
		{name: "remove the last owner", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_alice/remove", fake: removeFails(owner.ErrLastOwner),
			status: http.StatusUnprocessableEntity, says: "This is the project's last owner and cannot be removed: make another member an owner first."},
		{name: "remove unavailable", method: http.MethodPost, path: "/admin/projects/prj_1/members/own_bob/remove", fake: removeFails(errBoom), fails: true},
	})
}

// TestConsoleOrigins: adding and removing a project's browser origins, with
// every answer of the owner service.
func TestConsoleOrigins(t *testing.T) {
	t.Parallel()
	const settings = "/admin/projects/prj_1/settings"
	_, invalid := project.ValidateOrigin("app.example")
	if invalid == nil {
		t.Fatal("app.example is an origin")
	}
	add := url.Values{"origin": {" https://app.example "}}
	addFails := func(err error) func(*fakeConsole) {
		return func(f *fakeConsole) {
			f.addOrigin = func(owner.Actor, string) (project.Origin, error) { return project.Origin{}, err }
		}
	}
	removeFails := func(err error) func(*fakeConsole) {
		return func(f *fakeConsole) { f.removeOrigin = func(owner.Actor, string) error { return err } }
	}
	remove := url.Values{"origin": {"https://app.example"}}
	runConsole(t, []consoleCase{
		{name: "add", method: http.MethodPost, path: "/admin/projects/prj_1/origins", form: add, status: http.StatusSeeOther,
			location: settings + "?done=origin-added#origins", fake: func(f *fakeConsole) {
				f.addOrigin = func(a owner.Actor, origin string) (project.Origin, error) {
					if a.Project.ID != acme.ID || origin != "https://app.example" {
						return project.Origin{}, fmt.Errorf("added %q to %+v", origin, a)
					}
					return project.Origin{}, nil
				}
			}},
		{name: "add not an origin", method: http.MethodPost, path: "/admin/projects/prj_1/origins", form: url.Values{"origin": {"app.example"}},
			fake: addFails(invalid), status: http.StatusUnprocessableEntity, says: invalid.Error()},
		{name: "add one listed", method: http.MethodPost, path: "/admin/projects/prj_1/origins", form: add, fake: addFails(project.ErrConflict),
			status: http.StatusUnprocessableEntity, says: "This origin is listed already."},
		{name: "add refused to a viewer", method: http.MethodPost, path: "/admin/projects/prj_1/origins", form: add, fake: addFails(owner.ErrForbidden),
			status: http.StatusForbidden, says: msgViewers},
		{name: "add unavailable", method: http.MethodPost, path: "/admin/projects/prj_1/origins", form: add, fake: addFails(errBoom), fails: true},
		{name: "remove", method: http.MethodPost, path: "/admin/projects/prj_1/origins/remove", form: remove, status: http.StatusSeeOther,
			location: settings + "?done=origin-removed#origins"},
		{name: "remove one not listed", method: http.MethodPost, path: "/admin/projects/prj_1/origins/remove", form: remove, fake: removeFails(project.ErrNotFound),
			status: http.StatusUnprocessableEntity, says: "This origin is not listed (any more): reload the page."},
		{name: "remove refused to a viewer", method: http.MethodPost, path: "/admin/projects/prj_1/origins/remove", form: remove, fake: removeFails(owner.ErrForbidden),
			status: http.StatusForbidden, says: msgViewers},
		{name: "remove unavailable", method: http.MethodPost, path: "/admin/projects/prj_1/origins/remove", form: remove, fake: removeFails(errBoom), fails: true},
	})
}
