package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// The sign-in forms' tokens are single-use and last an hour; each answer's
// form carries a fresh one.
func TestSignInFormTokens(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	b := h.browser()
	tok := value(b.get("/admin/signin").doc, "csrf_token")
	form := url.Values{"csrf_token": {tok}, "email": {"nobody@example.com"}, "password": {password}}
	first := b.post("/admin/signin", form)
	if first.StatusCode != http.StatusUnauthorized || value(first.doc, "csrf_token") == tok {
		t.Fatalf("first use: %d, fresh token in the answer %v; want 401 and a fresh one", first.StatusCode, value(first.doc, "csrf_token") != tok)
	}
	again := b.post("/admin/signin", form)
	if again.StatusCode != http.StatusForbidden || !strings.Contains(text(byTestID(again.doc, "error-message")), "sent already") {
		t.Errorf("second use: %d %q, want 403 saying it was sent already", again.StatusCode, text(byTestID(again.doc, "error-message")))
	}
	// A sign-up token is no sign-in token of another browser, and the
	// other way round; a token an hour old is refused.
	old := value(b.get("/admin/signup").doc, "csrf_token")
	h.clock.Advance(time.Hour)
	resp := b.post("/admin/signup", url.Values{"csrf_token": {old}, "email": {"new@example.com"}, "password": {password}, "password_confirm": {password}})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(text(byTestID(resp.doc, "error-message")), "expired") {
		t.Errorf("a token an hour old: %d %q, want 403 expired", resp.StatusCode, text(byTestID(resp.doc, "error-message")))
	}
	if resp := b.submit("/admin/signup", url.Values{"email": {"new@example.com"}, "password": {password}, "password_confirm": {password}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a fresh token after that: %d, want 303", resp.StatusCode)
	}
}

// With Secure cookies every cookie is Secure and every answer carries
// HSTS; without, neither. A browser that drops Secure cookies on plain
// HTTP is told why its forms expire.
func TestSecureCookiesAndHSTS(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		h := newHarness(t, false, func(d *admin.Deps) { d.SecureCookies = secure })
		h.owner("alice@example.com")
		resp := h.browser().get("/admin/signin")
		if got := resp.Header.Get("Strict-Transport-Security"); (got == "max-age=31536000") != secure || (got == "") == secure {
			t.Errorf("Secure cookies %v: Strict-Transport-Security %q", secure, got)
		}
		for _, c := range resp.Cookies() {
			if c.Secure != secure {
				t.Errorf("Secure cookies %v: cookie %s Secure %v", secure, c.Name, c.Secure)
			}
		}
		tok := value(resp.doc, "csrf_token")
		noCookie := h.browser() // as a browser that kept no Secure cookie over plain HTTP
		got := noCookie.post("/admin/signin", url.Values{"csrf_token": {tok}, "email": {"alice@example.com"}, "password": {password}})
		if msg := text(byTestID(got.doc, "error-message")); got.StatusCode != http.StatusForbidden || strings.Contains(msg, "RECLAIM_SECURE_COOKIES=false") != secure {
			t.Errorf("Secure cookies %v, no cookie sent back: %d %q", secure, got.StatusCode, msg)
		}
	}
}

// busyAccounts stands for a console whose password budget is full: early
// (PasswordsBusy, before the form's token is spent) while early is set,
// else when the password is to be checked or hashed.
type busyAccounts struct {
	admin.Accounts
	early *atomic.Bool
}

func (a busyAccounts) PasswordsBusy(owner.Device) error {
	if a.early.Load() {
		return &owner.BusyError{RetryAfter: 2 * time.Second}
	}
	return nil
}

func (busyAccounts) SignIn(context.Context, string, string, string, owner.Device) (owner.Owner, error) {
	return owner.Owner{}, &owner.BusyError{RetryAfter: 2 * time.Second}
}

func (busyAccounts) CreateOwner(context.Context, string, string) (owner.Owner, error) {
	return owner.Owner{}, &owner.BusyError{RetryAfter: 2 * time.Second}
}

// A full password budget is a 503 with Retry-After and the form again,
// saying what happened and how long to wait; refused early, the form's
// token is not spent.
func TestSignInBusy(t *testing.T) {
	t.Parallel()
	early := new(atomic.Bool)
	h := newHarness(t, true, func(d *admin.Deps) { d.Accounts = busyAccounts{Accounts: d.Accounts, early: early} })
	const msg = "The console is busy with other sign-ins right now, and did nothing with this form. Wait 2 seconds before trying again."
	for _, path := range []string{"/admin/signin", "/admin/signup"} {
		for _, isEarly := range []bool{true, false} {
			early.Store(isEarly)
			b := h.browser()
			form := url.Values{"csrf_token": {value(b.get(path).doc, "csrf_token")}, "email": {"alice@example.com"}, "password": {password}, "password_confirm": {password}}
			resp := b.post(path, form)
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "2" || value(resp.doc, "csrf_token") == "" ||
				text(byTestID(resp.doc, "form-error")) != msg {
				t.Errorf("%s while busy (early %v): %d Retry-After %q %q", path, isEarly, resp.StatusCode, resp.Header.Get("Retry-After"), text(byTestID(resp.doc, "form-error")))
			}
			if !isEarly {
				continue
			}
			early.Store(false)
			if again := b.post(path, form); again.StatusCode != http.StatusServiceUnavailable || text(byTestID(again.doc, "form-error")) != msg {
				t.Errorf("%s: the token refused early, sent again: %d %q, want it heard (and the late refusal)", path, again.StatusCode, text(byTestID(again.doc, "error-message")))
			}
		}
	}
}
