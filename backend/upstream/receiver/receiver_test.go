package receiver

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A receiver at a private address (every test server is on loopback) is
// refused at dial time unless AllowPrivate: by its address, by a name that
// resolves to it, and behind a redirect from anywhere.
func TestPostRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	c := New(Options{Timeout: 2 * time.Second})
	for _, u := range []string{
		srv.URL,
		strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), // a name that resolves to loopback
		"http://[::1]:" + strconv.Itoa(port) + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://0.0.0.0:" + strconv.Itoa(port) + "/",
	} {
		_, err := c.Post(context.Background(), u, nil, []byte(`{}`))
		if err == nil || !strings.Contains(err.Error(), "private or reserved") {
			t.Errorf("%s: %v", u, err)
		}
	}
	if hits != 0 {
		t.Fatalf("the private receiver got %d requests", hits)
	}
}

// A redirect is never followed: a 30x, to a private address here, is the
// answer, and the second server sees nothing.
func TestPostFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	target := 0
	inside := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { target++ }))
	defer inside.Close()
	redirect := httptest.NewServer(http.RedirectHandler(inside.URL+"/admin?token=s3cr3t", http.StatusTemporaryRedirect))
	defer redirect.Close()
	c := New(Options{AllowPrivate: true})
	a, err := c.Post(context.Background(), redirect.URL, nil, []byte(`{}`))
	if err != nil || a.Status != http.StatusTemporaryRedirect || target != 0 {
		t.Fatalf("answer %+v, %v; %d requests followed", a, err, target)
	}
	if a.Location != inside.URL+"/admin" {
		t.Errorf("location %q: want it without its query", a.Location)
	}
}

// An attempt sends the body and headers, keeps the answer's first bytes,
// and gives up after its timeout.
func TestPost(t *testing.T) {
	t.Parallel()
	var got struct {
		body, sig, ctype, ua string
	}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
			return
		}
		b, _ := io.ReadAll(r.Body)
		got.body, got.sig, got.ctype, got.ua = string(b), r.Header.Get("webhook-signature"), r.Header.Get("Content-Type"), r.Header.Get("User-Agent")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, strings.Repeat("x", 600)+"\xff")
	}))
	defer srv.Close()
	defer close(release)
	c := New(Options{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	a, err := c.Post(context.Background(), srv.URL+"/hook", map[string]string{"webhook-signature": "v1,abc"}, []byte(`{"type":"x"}`))
	if err != nil || a.Status != http.StatusAccepted || len(a.Body) != 512 || a.Latency <= 0 {
		t.Fatalf("answer %d %d bytes %s, %v", a.Status, len(a.Body), a.Latency, err)
	}
	if got.body != `{"type":"x"}` || got.sig != "v1,abc" || got.ctype != "application/json" || got.ua != "Reclaim-Webhooks/1" {
		t.Fatalf("received %+v", got)
	}
	_, err = c.Post(context.Background(), srv.URL+"/slow", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("slow receiver: %v", err)
	}
	// A failure names no URL but its scheme and host.
	_, err = c.Post(context.Background(), "http://127.0.0.1:1/hook?token=s3cr3t", nil, nil)
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "/hook") {
		t.Fatalf("unreachable: %v", err)
	}
}
