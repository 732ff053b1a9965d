package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
	"github.com/reclaim-sol/reclaim/examples/integrator"
)

// axeExclusions are the parts of our pages axe does not judge, by
// selector, each with its reason (docs/decisions.md, Browsers). A shadow
// DOM path is a list: the host, then the selector inside its shadow root.
var axeExclusions = []struct {
	Selector []string
	Why      string
}{
	// Nothing here yet: every page is judged whole, RapiDoc's shadow DOM
	// included, and it passes.
}

// axeViolation is one critical or serious axe rule broken, with the nodes
// that break it.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// axeRun injects axe-core (e2e/axe, pinned by its lockfile) into the page
// ctx shows and returns its critical and serious violations.
func axeRun(t *testing.T, ctx context.Context, source string) []axeViolation {
	t.Helper()
	exclude := [][]string{}
	for _, e := range axeExclusions {
		exclude = append(exclude, e.Selector)
	}
	excludeJSON, err := json.Marshal(exclude)
	if err != nil {
		t.Fatal(err)
	}
	var loaded bool
	inPage(t, ctx, "inject axe-core", chromedp.Evaluate(source+"\n;typeof axe === 'object'", &loaded))
	if !loaded {
		t.Fatal("axe-core did not load")
	}
	var out []axeViolation
	inPage(t, ctx, "run axe", chromedp.Evaluate(fmt.Sprintf(`axe.run({include: [document], exclude: %s}, {resultTypes: ['violations']}).then(r =>
		r.violations.filter(v => v.impact === 'critical' || v.impact === 'serious').map(v => ({
			ID: v.id, Impact: v.impact, Help: v.help,
			Nodes: v.nodes.map(n => JSON.stringify(n.target) + ' ' + n.html.slice(0, 160) + ' ' + (n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 240)),
		})))`, excludeJSON), &out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	return out
}

// checkAxe fails the test with every critical or serious violation on the
// page ctx shows; what names the page.
func checkAxe(t *testing.T, ctx context.Context, source, what string) {
	t.Helper()
	for _, v := range axeRun(t, ctx, source) {
		t.Errorf("%s: axe %s (%s): %s\n\t%s", what, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
}

// badWording is what the pages must never say: a count of one with a
// plural, nothing with a count of nothing.
var badWording = regexp.MustCompile(`\b1 (items|transactions|pages|wallet requests|wallets)\b|\b0 items\b|in 0 transactions|list above`)

// checkWording fails the test when the page's visible text says something
// badWording matches.
func checkWording(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	var text string
	inPage(t, ctx, "read "+what, chromedp.Evaluate(`document.body.innerText`, &text))
	if m := badWording.FindAllString(text, -1); len(m) > 0 {
		t.Errorf("%s says %q:\n%s", what, m, text)
	}
}

// TestAccessibility (issue 35) runs axe-core in headless Chromium, one
// browser for every page: /docs, the sample app listed and after a reclaim,
// and the console's pages (sign-in, projects, the overview with its
// leaderboard and latest transactions, keys, webhooks, settings) with that
// reclaim in them. Any critical or serious violation fails it. The same
// session checks the sample app's wording, that the console's explorer
// links go to the validator the service uses (here never on 8899), and that
// at 390 px no table is cut off.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	v, web, s, ctx := sampleAppEnv(t, "the accessibility test (axe)", 8*time.Minute)
	axeSource, err := os.ReadFile(filepath.Join(npmPackage(t, "axe"), "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	axe := string(axeSource)
	// run bounds each step, so that a page that never shows what a step
	// waits for fails that step rather than the whole session.
	run := func(t *testing.T, what string, actions ...chromedp.Action) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		inPage(t, sctx, what, actions...)
	}
	// axe-core is injected by the test, not served: the pages' CSP would
	// refuse it, and must stay as it is. (The first run starts the browser:
	// on ctx itself, which outlives every step.)
	inPage(t, ctx, "bypass CSP for the injected axe", page.SetBypassCSP(true))

	t.Run("docs", func(t *testing.T) {
		// RapiDoc renders into shadow roots: wait for an operation's text.
		const text = `(function walk(n){let s='';if(n.shadowRoot)s+=walk(n.shadowRoot);for(const c of n.childNodes){s+=c.nodeType===3?c.textContent+' ':walk(c)}return s})(document.body)`
		run(t, "render /docs", chromedp.Navigate(s.url+"/docs"),
			chromedp.Poll(text+`.includes('totalGrossRebate')`, nil, chromedp.WithPollingTimeout(30*time.Second)))
		checkAxe(t, ctx, axe, "/docs")
	})

	f := v.NewWalletFixture(t)
	o := origin(t, "127.0.0.1", integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: f.Owner,
		ExplorerURL: "https://explorer.solana.com/tx/{id}?cluster=custom"})
	s.cli("project", "origin", "--project", s.projectID, "--origin", o)
	t.Run("sample app listed", func(t *testing.T) {
		var repeated []string
		run(t, "connect and list",
			chromedp.Navigate(o),
			chromedp.Click(tid("connect-wallet"), chromedp.ByQuery),
			chromedp.WaitVisible(tid("item"), chromedp.ByQuery),
			chromedp.WaitVisible(tid("summary-net"), chromedp.ByQuery),
			chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="item"]')].filter(r => r.querySelector('.name').textContent === r.querySelector('[data-testid="item-type"]').textContent).map(r => r.textContent)`, &repeated),
		)
		if len(repeated) > 0 {
			t.Errorf("rows whose Name repeats their Type: %q", repeated)
		}
		checkWording(t, ctx, "the sample app, listed")
		checkAxe(t, ctx, axe, "the sample app, listed")
	})
	t.Run("sample app after a reclaim", func(t *testing.T) {
		reclaimInBrowser(t, ctx, v, o, f.Owner, true)
		checkWording(t, ctx, "the sample app, after a reclaim")
		checkAxe(t, ctx, axe, "the sample app, after a reclaim")
	})

	const email, password = "axe@example.com", "correct horse battery staple"
	if out := reclaimd.Run(t, s.env, password+"\n", "owner", "create", "--email", email); !strings.HasPrefix(out, "own_") {
		t.Fatalf("reclaim owner create printed %q", out)
	}
	s.cli("project", "share", "--project", s.projectID, "--email", email, "--role", "owner")
	project := s.url + "/admin/projects/" + s.projectID
	t.Run("console", func(t *testing.T) {
		run(t, "sign-in page", chromedp.Navigate(s.url+"/admin/signin"), chromedp.WaitVisible(tid("signin-form"), chromedp.ByQuery))
		checkAxe(t, ctx, axe, "the console's sign-in")
		run(t, "sign in",
			chromedp.SendKeys(tid("email"), email, chromedp.ByQuery),
			chromedp.SendKeys(tid("password"), password, chromedp.ByQuery),
			chromedp.Click(tid("signin-submit"), chromedp.ByQuery),
			chromedp.WaitVisible(tid("owner-email"), chromedp.ByQuery),
			chromedp.Navigate(s.url+"/admin/projects"), chromedp.WaitVisible(tid("projects-list"), chromedp.ByQuery))
		checkAxe(t, ctx, axe, "the console's projects")

		var links []string
		run(t, "overview", chromedp.Navigate(project), chromedp.WaitVisible(tid("latest-table"), chromedp.ByQuery),
			chromedp.WaitVisible(tid("board-table"), chromedp.ByQuery),
			chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="explorer-link"]')].map(a => a.href)`, &links))
		checkAxe(t, ctx, axe, "the console's overview (stats, leaderboard, latest transactions)")
		// The explorer's custom cluster is the validator this service
		// reaches (a loopback URL, its port not 8899), not a fixed 8899.
		want := "customUrl=" + url.QueryEscape(v.URL)
		if len(links) == 0 {
			t.Error("no explorer link in the latest transactions")
		}
		for _, l := range links {
			if !strings.Contains(l, want) {
				t.Errorf("explorer link %s, want one with %s", l, want)
			}
		}

		for _, p := range []struct{ what, path, ready string }{
			{"keys", "/keys", "keys-table"},
			{"webhooks", "/webhooks", "webhook-url-input"},
			{"settings", "/settings", "origin-input"},
		} {
			run(t, p.what, chromedp.Navigate(project+p.path), chromedp.WaitVisible(tid(p.ready), chromedp.ByQuery))
			checkAxe(t, ctx, axe, "the console's "+p.what)
		}
		// The webhook URL and origin fields take the width of their form,
		// as the other text fields do.
		for _, p := range []struct{ path, input string }{{"/webhooks", "webhook-url-input"}, {"/settings", "origin-input"}} {
			var ratio float64
			run(t, "measure "+p.input, chromedp.Navigate(project+p.path), chromedp.WaitVisible(tid(p.input), chromedp.ByQuery),
				chromedp.Evaluate(`(() => { const i = document.querySelector('[data-testid="`+p.input+`"]'); return i.getBoundingClientRect().width / i.form.getBoundingClientRect().width; })()`, &ratio))
			if ratio < 0.9 {
				t.Errorf("%s takes %.0f%% of its form's width, want all of it", p.input, 100*ratio)
			}
		}
	})

	// At 390 px (a phone) the overview's tables are not cut off: the page
	// does not scroll sideways, and each table fits its container (the
	// leaderboard and the latest transactions become stacked rows), so no
	// column hides past the screen's edge.
	t.Run("390 px", func(t *testing.T) {
		var got struct {
			PageScroll, PageClient int
			Tables                 []struct {
				ID              string
				Fits, Scrolls   bool
				Right, Viewport float64
			}
		}
		run(t, "overview at 390 px", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
			chromedp.Navigate(project), chromedp.WaitVisible(tid("latest-table"), chromedp.ByQuery),
			chromedp.Evaluate(`({
				PageScroll: document.documentElement.scrollWidth, PageClient: document.documentElement.clientWidth,
				Tables: [...document.querySelectorAll('table')].map(t => {
					const box = t.parentElement, cs = getComputedStyle(box);
					return {
						ID: t.dataset.testid, Fits: t.scrollWidth <= box.clientWidth + 1,
						Scrolls: (cs.overflowX === 'auto' || cs.overflowX === 'scroll') && box.scrollWidth > box.clientWidth,
						Right: box.getBoundingClientRect().right, Viewport: document.documentElement.clientWidth,
					};
				}),
			})`, &got))
		if got.PageScroll > got.PageClient {
			t.Errorf("at 390 px the overview is %d px wide in a %d px viewport: something is cut off", got.PageScroll, got.PageClient)
		}
		if len(got.Tables) < 2 {
			t.Errorf("tables at 390 px: %+v", got.Tables)
		}
		for _, tb := range got.Tables {
			if !tb.Fits || tb.Right > tb.Viewport+1 {
				t.Errorf("at 390 px table %s is cut off: %+v", tb.ID, tb)
			}
		}
		run(t, "reset viewport", chromedp.EmulateViewport(1280, 1000))
	})
}
