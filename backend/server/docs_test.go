package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/reclaim-sol/reclaim/e2e/headless"
	"github.com/reclaim-sol/reclaim/gen/openapi"
)

// GET /v1/openapi.json serves the embedded document to any origin,
// compressed on request and revalidated by ETag.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withCORS())
	get := func(h http.Header) (int, http.Header, []byte) {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/v1/openapi.json", nil)
		for k, v := range h {
			req.Header[k] = v
		}
		// The bare transport: a Go client asks for gzip and hides it.
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, b
	}
	status, h, body := get(http.Header{"Origin": {originEvil}})
	if status != 200 || h.Get("Content-Type") != "application/json" || !bytes.Equal(body, openapi.Document) {
		t.Fatalf("GET /v1/openapi.json: %d %s, %d bytes", status, h.Get("Content-Type"), len(body))
	}
	if h.Get("Access-Control-Allow-Origin") != originEvil {
		t.Error("the document is not readable from any origin")
	}
	_, h, body = get(http.Header{"Accept-Encoding": {"gzip"}})
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil || h.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip: %v, Content-Encoding %q", err, h.Get("Content-Encoding"))
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, openapi.Document) {
		t.Error("the gzipped document differs")
	}
	if status, _, _ := get(http.Header{"If-None-Match": {h.Get("ETag")}}); status != http.StatusNotModified {
		t.Errorf("revalidation: %d, want 304", status)
	}
}

// The API reference at /docs renders every operation of the document in
// Chromium from the vendored renderer alone: no request leaves the server,
// and the page throws nothing.
func TestDocsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := headless.Browser(t, "the API reference page's browser test")
	var mu sync.Mutex
	var outside, problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, e.srv.URL) && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
				outside = append(outside, u)
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, ev.ExceptionDetails.Error())
		}
	})
	// RapiDoc renders into shadow roots: collect their text.
	const text = `(function walk(n){let s='';if(n.shadowRoot)s+=walk(n.shadowRoot);for(const c of n.childNodes){s+=c.nodeType===3?c.textContent+' ':walk(c)}return s})(document.body)`
	var rendered string
	err := chromedp.Run(ctx,
		network.Enable(),
		chromedp.Navigate(e.srv.URL+"/docs"),
		chromedp.Poll(text+`.includes('totalGrossRebate') ? `+text+` : null`, &rendered, chromedp.WithPollingTimeout(30*time.Second)),
	)
	if err != nil {
		t.Fatalf("render /docs: %v", err)
	}
	for _, want := range []string{"/v1/stats", "/v1/leaderboard", "/v1/sessions", "/v1/wallet/{address}/assets",
		"/v1/wallet/{address}/transactions", "/v1/wallet/{address}/transactions/submit", "/v1/wallet/{address}/stream", "X-Api-Key"} {
		if !strings.Contains(rendered, want) {
			t.Errorf("the page does not show %s", want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(outside) > 0 || len(problems) > 0 {
		t.Errorf("requests off the server: %q; exceptions: %q", outside, problems)
	}
}
