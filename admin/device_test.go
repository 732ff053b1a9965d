package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// deviceCookie returns the device cookie an answer set, or nil.
func deviceCookie(resp *response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == "reclaim_device" {
			return c
		}
	}
	return nil
}

// Finding 5 of issue 30: twenty posters with rotating trusted addresses
// kept the owner out (503) for as long as they ran. The flood holds the
// password budget's slot (InSlot, as its hashes would) and fills its
// queue; the owner's returning browser, holding the device cookie of an
// earlier sign-in, signs in every time it tries, while a browser without
// one, or with a forged one, or with the owner's cookie for another
// account, is refused as before.
func TestOwnerSignsInDuringFlood(t *testing.T) {
	t.Parallel()
	var flooding, held atomic.Bool
	hold, holding := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	h := newHarnessWith(t, owner.Options{HashSlots: 1, HashQueue: 2, HashWait: time.Hour, InSlot: func() {
		if flooding.Load() && held.CompareAndSwap(false, true) {
			close(holding)
			<-hold
		}
	}}, false)
	h.owner("alice@example.com")
	h.owner("bob@example.com")

	alice := h.browser()
	alice.from = "198.51.100.7"
	first := alice.submit("/admin/signin", url.Values{"email": {"alice@example.com"}, "password": {password}})
	dc := deviceCookie(first)
	if first.StatusCode != http.StatusSeeOther || dc == nil {
		t.Fatalf("sign in before the flood: %d, device cookie %v", first.StatusCode, dc != nil)
	}
	if !dc.HttpOnly || dc.SameSite != http.SameSiteStrictMode || dc.Path != "/admin/signin" || dc.Secure || dc.MaxAge != 90*24*3600 {
		t.Errorf("device cookie = %+v, want HttpOnly, SameSite=Strict, Path=/admin/signin, not Secure on plain HTTP, 90 days", dc)
	}
	if strings.Contains(first.body, dc.Value) || strings.Contains(first.Header.Get("Location"), dc.Value) {
		t.Error("the device cookie is in the page or a URL")
	}
	signOut := func(b *browser) {
		t.Helper()
		if resp := b.post("/admin/signout", url.Values{"csrf_token": {b.csrf()}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign out: %d", resp.StatusCode)
		}
	}
	signOut(alice)

	flooding.Store(true)
	f := h.flood("alice@example.com")
	defer func() { release(); f.end() }()
	select {
	case <-f.busy:
	case <-time.After(time.Minute):
		t.Fatal("the flood never filled the password budget")
	}
	<-holding // the flood's check holds the slot until release

	last := dc.Value
	for try := range 5 {
		resp := alice.submit("/admin/signin", url.Values{"email": {"alice@example.com"}, "password": {password}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("try %d: the owner's returning browser during the flood: %d %q, want signed in", try, resp.StatusCode, text(byTestID(resp.doc, "form-error")))
		}
		fresh := deviceCookie(resp)
		if fresh == nil || fresh.Value == last {
			t.Errorf("try %d: no fresh device cookie at sign-in", try)
		} else {
			last = fresh.Value
		}
		if got := text(byTestID(alice.get("/admin/projects").doc, "owner-email")); got != "alice@example.com" {
			t.Fatalf("try %d: signed in as %q", try, got)
		}
		signOut(alice)
	}

	withCookie := func(from, value string) *browser {
		b := h.browser()
		b.from = from
		u, _ := url.Parse(h.srv.URL + "/admin/signin")
		b.client.Jar.SetCookies(u, []*http.Cookie{{Name: "reclaim_device", Value: value, Path: "/admin/signin"}})
		return b
	}
	forged := []byte(last)
	forged[20] = 'A' // a character of the cookie's id changed: its MAC no longer matches
	if last[20] == 'A' {
		forged[20] = 'B'
	}
	for _, c := range []struct {
		name, email string
		b           *browser
	}{
		{"the owner's password from a browser without the cookie", "alice@example.com", func() *browser { b := h.browser(); b.from = "198.51.100.8"; return b }()},
		{"a forged cookie", "alice@example.com", withCookie("198.51.100.9", string(forged))},
		{"the owner's cookie at another account", "bob@example.com", withCookie("198.51.100.10", last)},
	} {
		resp := c.b.submit("/admin/signin", url.Values{"email": {c.email}, "password": {password}})
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s during the flood: %d, want 503 with Retry-After as before", c.name, resp.StatusCode)
		}
	}

	release()
	statuses := f.end()
	if statuses[http.StatusSeeOther] != 0 || statuses[http.StatusServiceUnavailable] == 0 {
		t.Errorf("the flood's answers: %v, want no sign-in and 503s", statuses)
	}
	for code := range statuses {
		if code >= 500 && code != http.StatusServiceUnavailable {
			t.Errorf("the flood got %d", code)
		}
	}
}
