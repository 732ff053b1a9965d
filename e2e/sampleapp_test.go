package e2e

import (
	"context"
	"net"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
	"github.com/reclaim-sol/reclaim/e2e/headless"
	"github.com/reclaim-sol/reclaim/examples/integrator"
)

// sampleApp is examples/web built once per test binary: the sample app's
// tests run in parallel, and two npm ci in one directory at once remove
// each other's files (esbuild's spawn failed with ETXTBSY).
var sampleApp struct {
	mu    sync.Mutex
	built bool
	dir   string
}

// buildSampleApp installs examples/web (with the generated client as a
// copy, as an integrator's dependency would be) and bundles it, once.
func buildSampleApp(t *testing.T) string {
	t.Helper()
	dir := npmPackage(t, "../examples/web")
	sampleApp.mu.Lock()
	defer sampleApp.mu.Unlock()
	if sampleApp.built {
		return sampleApp.dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// npm ci again: node_modules holds a copy of gen/ts, which may be newer.
	for _, args := range [][]string{{"ci", "--no-audit", "--no-fund"}, {"run", "build"}} {
		cmd := exec.CommandContext(ctx, "npm", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "run" {
			t.Logf("sample app: %s", strings.TrimSpace(string(out[strings.Index(string(out), "dist/"):])))
		}
	}
	sampleApp.built, sampleApp.dir = true, dir
	return dir
}

// sampleAppEnv is what a sample app test needs: the shared validator, the
// app built, a service (with env), and a browser its flows may use for
// timeout.
func sampleAppEnv(t *testing.T, browser string, timeout time.Duration, env ...string) (*harness.Validator, string, *service, context.Context) {
	t.Helper()
	v := harness.Shared(t)
	web := buildSampleApp(t)
	s := startService(t, v, env...)
	ctx, cancel := context.WithTimeout(headless.Browser(t, browser, chromedp.WindowSize(1280, 1000)), timeout)
	t.Cleanup(cancel)
	return v, web, s, ctx
}

// inPage runs actions in the page, failing the test with what the page
// shows when they fail.
func inPage(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		var shown string
		_ = chromedp.Run(ctx, chromedp.Text("main", &shown, chromedp.ByQuery))
		t.Fatalf("%s: %v\npage:\n%s", what, err, shown)
	}
}

// origin serves the sample app's backend on host (a loopback address of its
// own, so each is an origin of its own) and returns the page's origin.
func origin(t *testing.T, host string, o integrator.Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(integrator.New(o))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// corsFailures records the requests Chromium refused for CORS, by URL path.
type corsFailures struct {
	mu   sync.Mutex
	urls map[network.RequestID]string
	errs map[string][]string
}

func watchCORS(ctx context.Context) *corsFailures {
	c := &corsFailures{urls: map[network.RequestID]string{}, errs: map[string][]string{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			c.urls[ev.RequestID] = ev.Request.Method + " " + ev.Request.URL
		case *network.EventLoadingFailed:
			if ev.CorsErrorStatus != nil {
				u := c.urls[ev.RequestID]
				c.errs[u] = append(c.errs[u], ev.CorsErrorStatus.CorsError.String())
			}
		}
	})
	return c
}

// failed returns the CORS errors of requests whose method and URL contain s.
func (c *corsFailures) failed(s string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for u, errs := range c.errs {
		if strings.Contains(u, s) {
			out = append(out, errs...)
		}
	}
	return out
}

func tid(id string) string { return `[data-testid="` + id + `"]` }

// TestSampleApp drives the sample integration in Chromium against the local
// validator: on two allowed origins a person connects the (Wallet Standard)
// test wallet (and on a third, the wallet appends Lighthouse guards), lists the wallet's items with their rebates, selects them,
// builds with a 10% donation, has the wallet sign, submits, and sees the
// results and the project's stats; the wallet's balance rises by exactly
// the net rebate the page showed. A page on a third origin is refused by the
// browser, and so is a preflight asking to send X-Api-Key.
func TestSampleApp(t *testing.T) {
	t.Parallel()
	// Seven flows, each a reclaim (or a refusal) waiting on the cluster.
	v, web, s, ctx := sampleAppEnv(t, "the sample app's browser test", 7*time.Minute)
	cors := watchCORS(ctx)
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatal(err)
	}

	hosts := []string{"127.0.0.1", "127.0.0.2"}
	var origins []string
	for _, host := range hosts {
		f := v.NewWalletFixture(t)
		o := origin(t, host, integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: f.Owner,
			ExplorerURL: "https://explorer.solana.com/tx/{id}?cluster=custom"})
		s.cli("project", "origin", "--project", s.projectID, "--origin", o)
		origins = append(origins, o)
		t.Run("reclaim from "+o, func(t *testing.T) { reclaimInBrowser(t, ctx, v, o, f.Owner, false) })
	}

	// The summary shown before anything is built, then "Reclaim all safe
	// items": the build returns the summary's figures, and the balance
	// rises by them.
	t.Run("reclaim all safe items after the summary", func(t *testing.T) {
		f := v.NewWalletFixture(t)
		o := origin(t, "127.0.0.5", integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: f.Owner,
			ExplorerURL: "https://explorer.solana.com/tx/{id}?cluster=custom"})
		s.cli("project", "origin", "--project", s.projectID, "--origin", o)
		reclaimInBrowser(t, ctx, v, o, f.Owner, true)
	})

	// The wallet appends a Lighthouse assertion to what it signs, as Phantom
	// does on mainnet: Reclaim accepts the changed transactions (the wallet
	// guard rules) and the balance still rises by the net rebate shown.
	t.Run("a wallet that appends Lighthouse guards", func(t *testing.T) {
		requireLighthouse(t)
		f := v.NewWalletFixture(t)
		o := origin(t, "127.0.0.4", integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: f.Owner, DemoWalletGuards: true,
			ExplorerURL: "https://explorer.solana.com/tx/{id}?cluster=custom"})
		s.cli("project", "origin", "--project", s.projectID, "--origin", o)
		for _, sig := range reclaimInBrowser(t, ctx, v, o, f.Owner, false) {
			tx, err := v.RPC.GetTransaction(context.Background(), sig, &rpc.GetTransactionOpts{
				Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: new(uint64),
			})
			if err != nil {
				t.Fatal(err)
			}
			landed, err := tx.Transaction.GetTransaction()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(landed.Message.AccountKeys, lighthouse) {
				t.Errorf("transaction %s landed without the wallet's Lighthouse guard", sig)
			}
		}
	})

	// At a phone's width (390 px) nothing is wider than the screen: the
	// items become stacked rows, signatures are shortened links.
	t.Run("at a phone's width", func(t *testing.T) {
		f := v.NewWalletFixture(t)
		o := origin(t, "127.0.0.5", integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: f.Owner,
			ExplorerURL: "https://explorer.solana.com/tx/{id}?cluster=custom"})
		s.cli("project", "origin", "--project", s.projectID, "--origin", o)
		widths := map[string]int{}
		measure := func(when string) chromedp.Action {
			return chromedp.ActionFunc(func(ctx context.Context) error {
				var w int
				if err := chromedp.Evaluate(`Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)`, &w).Do(ctx); err != nil {
					return err
				}
				widths[when] = w
				return nil
			})
		}
		err := chromedp.Run(ctx,
			chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
			chromedp.Navigate(o),
			chromedp.Click(tid("connect-wallet"), chromedp.ByQuery),
			chromedp.WaitVisible(tid("item"), chromedp.ByQuery),
			measure("listed"),
			chromedp.Click(tid("select-all"), chromedp.ByQuery),
			chromedp.Click(tid("build"), chromedp.ByQuery),
			chromedp.WaitVisible(tid("net-rebate"), chromedp.ByQuery),
			measure("built"),
			chromedp.Click(tid("submit"), chromedp.ByQuery),
			confirmBurns(t, `document.querySelector('[data-testid="status"]').textContent.startsWith("Confirmed")`, nil),
			measure("confirmed"),
			chromedp.EmulateViewport(1280, 1000),
		)
		if err != nil {
			t.Fatal(err)
		}
		for when, w := range widths {
			if w > 390 {
				t.Errorf("%s: the page is %d px wide at a 390 px screen", when, w)
			}
		}
		t.Logf("widths at 390 px: %v", widths)
	})

	// The wallet signs and sends itself (signAndSendTransaction, as
	// Phantom recommends): the page reports the signatures with their
	// tickets, follows them to confirmed, and the balance rises by the net
	// rebate shown; the transactions landed as the wallet sent them.
	t.Run("a wallet that signs and sends itself", func(t *testing.T) {
		f := v.NewWalletFixture(t)
		o := origin(t, "127.0.0.6", integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: f.Owner, DemoWalletRPC: v.URL,
			ExplorerURL: "https://explorer.solana.com/tx/{id}?cluster=custom"})
		s.cli("project", "origin", "--project", s.projectID, "--origin", o)
		reclaimInBrowser(t, ctx, v, o, f.Owner, false)
		var sentBy []string
		if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="result"]')].map(e => e.dataset.sentBy)`, &sentBy)); err != nil {
			t.Fatal(err)
		}
		if len(sentBy) == 0 || slices.ContainsFunc(sentBy, func(s string) bool { return s != "wallet" }) {
			t.Errorf("results sent by %q, want the wallet's own sends reported", sentBy)
		}
	})

	t.Run("an origin the project does not list", func(t *testing.T) {
		f := v.NewWalletFixture(t)
		o := origin(t, "127.0.0.3", integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: f.Owner})
		var errText string
		err := chromedp.Run(ctx,
			chromedp.Navigate(o),
			chromedp.Click(tid("connect-wallet"), chromedp.ByQuery),
			chromedp.Poll(`document.querySelector('[data-testid="error"]').textContent.includes('not allowed')`, nil, chromedp.WithPollingTimeout(30*time.Second)),
			chromedp.Text(tid("error"), &errText, chromedp.ByQuery),
		)
		if err != nil {
			t.Fatalf("%v (error shown: %q)", err, errText)
		}
		if errs := cors.failed("WalletService/ListAssets"); len(errs) == 0 {
			t.Errorf("Chromium reported no CORS failure for the listing from %s", o)
		}
		t.Logf("page on %s shows: %s", o, errText)
	})

	t.Run("X-Api-Key is refused in a preflight", func(t *testing.T) {
		var got string
		script := `fetch(` + strconv.Quote(s.url+"/v1/leaderboard") + `, {headers: {"X-Api-Key": ` + strconv.Quote(s.apiKey) + `}})
			.then(r => "status " + r.status, e => "blocked: " + e.message)`
		err := chromedp.Run(ctx,
			chromedp.Navigate(origins[0]),
			chromedp.Evaluate(script, &got, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
		)
		if err != nil {
			t.Fatal(err)
		}
		errs := cors.failed("/v1/leaderboard")
		if !strings.HasPrefix(got, "blocked") || len(errs) == 0 || !strings.HasPrefix(errs[0], "Preflight") {
			t.Errorf("fetch with X-Api-Key from %s: %q, CORS errors %q; want blocked by the preflight", origins[0], got, errs)
		}
	})
}

// confirmBurns, once Sign and submit is clicked, answers every confirmation
// of burns the page asks for until done (a JavaScript condition) holds:
// each time, the wallet has not been asked to sign since the click, the
// button that signs is disabled until the box is ticked; then it ticks and
// confirms. shown, when set, gets the burns each confirmation listed.
func confirmBurns(t *testing.T, done string, shown *[]string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var before int
		if err := chromedp.Evaluate(`window.testWallet.requests.length`, &before).Do(ctx); err != nil {
			return err
		}
		for {
			if err := chromedp.Poll(`(`+done+`) || document.querySelector('[data-testid="confirm-burns"]') !== null`, nil,
				chromedp.WithPollingTimeout(90*time.Second)).Do(ctx); err != nil {
				return err
			}
			var asked struct {
				Open     bool
				Requests int
				Disabled bool
				Burns    []string
			}
			if err := chromedp.Evaluate(`({
				Open: document.querySelector('[data-testid="confirm-burns"]') !== null,
				Requests: window.testWallet.requests.length,
				Disabled: document.querySelector('[data-testid="confirm-burns-button"]')?.disabled ?? false,
				Burns: [...document.querySelectorAll('[data-testid="confirm-burn"]')].map(e => e.textContent),
			})`, &asked).Do(ctx); err != nil {
				return err
			}
			if !asked.Open {
				return nil
			}
			if asked.Requests != before || !asked.Disabled || len(asked.Burns) == 0 {
				t.Errorf("asked to confirm burns %q with the wallet asked %d times since (want none) and the sign button disabled %v (want true)",
					asked.Burns, asked.Requests-before, asked.Disabled)
			}
			if shown != nil {
				*shown = append(*shown, asked.Burns...)
			}
			if err := chromedp.Run(ctx, chromedp.Click(tid("confirm-burns"), chromedp.ByQuery), chromedp.Click(tid("confirm-burns-button"), chromedp.ByQuery),
				chromedp.WaitNotPresent(tid("confirm-burns"), chromedp.ByQuery)); err != nil {
				return err
			}
			// The wallet is asked now: the next confirmation (a later slice
			// or page) must come before its own request.
			if err := chromedp.Poll(`(`+done+`) || window.testWallet.requests.length > `+strconv.Itoa(asked.Requests), nil,
				chromedp.WithPollingTimeout(90*time.Second)).Do(ctx); err != nil {
				return err
			}
			if err := chromedp.Evaluate(`window.testWallet.requests.length`, &before).Do(ctx); err != nil {
				return err
			}
		}
	})
}

// r2sig is a result's signature.
func r2sig(r []string) string { return r[1] }

// lighthouse is the program of the guards Phantom and Solflare append.
var lighthouse = solana.MustPublicKeyFromBase58("L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95")

// reclaimInBrowser runs the whole flow on the page at origin with the
// wallet owner, checks the balance against the net rebate shown, and
// returns the signatures of the landed transactions. It selects every item
// and builds, or, safe, builds with "Reclaim all safe items" and checks the
// build shows the summary's figures.
func reclaimInBrowser(t *testing.T, ctx context.Context, v *harness.Validator, origin string, owner solana.PrivateKey, safe bool) []solana.Signature {
	var items int
	var net string
	var netOK bool
	var count string
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		inPage(t, ctx, what, actions...)
	}
	run("connect and list",
		chromedp.Navigate(origin),
		chromedp.Click(tid("connect-wallet"), chromedp.ByQuery),
		chromedp.WaitVisible(tid("item"), chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="item"]').length`, &items),
	)
	build := []chromedp.Action{chromedp.Click(tid("select-all"), chromedp.ByQuery), chromedp.Click(tid("build"), chromedp.ByQuery)}
	var summaryNet, summaryTxs string
	if safe {
		run("the summary",
			chromedp.WaitVisible(tid("summary-net"), chromedp.ByQuery),
			chromedp.AttributeValue(tid("summary-net"), "data-lamports", &summaryNet, nil, chromedp.ByQuery),
			chromedp.AttributeValue(tid("summary-net"), "data-transactions", &summaryTxs, nil, chromedp.ByQuery),
		)
		build = []chromedp.Action{chromedp.Click(tid("reclaim-all"), chromedp.ByQuery)}
	}
	var burnsShown []string
	run("select and build", append(build,
		chromedp.WaitVisible(tid("net-rebate"), chromedp.ByQuery),
		chromedp.AttributeValue(tid("net-rebate"), "data-lamports", &net, &netOK, chromedp.ByQuery),
		chromedp.Text(tid("transaction-count"), &count, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="tx-burns"]')].map(e => e.textContent)`, &burnsShown),
	)...)
	// Select-all ticks the fixture's 1.5 tokens and its NFT for burning:
	// the quote says so in the mint's units, per transaction.
	if !safe && (!slices.ContainsFunc(burnsShown, func(s string) bool { return strings.Contains(s, "burns 1.5 tokens of mint") }) ||
		!slices.ContainsFunc(burnsShown, func(s string) bool { return strings.Contains(s, "burns NFT") })) {
		t.Errorf("the quote shows burns %q; want the 1.5 tokens and the NFT", burnsShown)
	}
	if safe && (net != summaryNet || count != summaryTxs) {
		t.Errorf("reclaim all built %s lamports in %s transactions; the summary showed %s in %s", net, count, summaryNet, summaryTxs)
	}
	netRebate, err := strconv.ParseInt(net, 10, 64)
	if !netOK || err != nil || netRebate <= 0 {
		t.Fatalf("net rebate shown %q", net)
	}
	before := v.Balance(t, owner.PublicKey())
	var statsBefore int
	run("stats before", chromedp.Evaluate(`Number(document.querySelector('[data-testid="stat-transactions"]').textContent)`, &statsBefore))
	var results [][]string
	var confirmed []string
	run("sign and submit",
		chromedp.Click(tid("submit"), chromedp.ByQuery),
		confirmBurns(t, `document.querySelectorAll('[data-testid="result"]').length == `+count, &confirmed),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="result"]')].map(e => [e.dataset.status, e.dataset.signature, e.textContent])`, &results),
	)
	wctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var sigs []solana.Signature
	for _, r := range results {
		if r[0] != "submitted" && r[0] != "confirmed" {
			t.Fatalf("result %q", r)
		}
		sig, err := solana.SignatureFromBase58(r[1])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.WaitConfirmed(wctx, sig); err != nil {
			t.Fatalf("%s: %v", sig, err)
		}
		sigs = append(sigs, sig)
	}
	if len(burnsShown) > 0 && len(confirmed) == 0 {
		t.Errorf("the build burns %q, and the page signed without asking", burnsShown)
	}
	after := v.Balance(t, owner.PublicKey())
	if got := int64(after) - int64(before); got != netRebate {
		t.Errorf("the wallet's balance rose by %d lamports; the page showed a net rebate of %d", got, netRebate)
	}
	// The page follows each submission through the status route until it is
	// final: landed first (within a second or so), then confirmed, each
	// with the chain's net rebate.
	var shown, seen []string
	run("statuses",
		chromedp.Poll(`[...document.querySelectorAll('[data-testid="submission-status"]')].every(e => e.dataset.status === "confirmed")`,
			nil, chromedp.WithPollingTimeout(90*time.Second)),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="submission-status"]')].map(e => e.textContent)`, &shown),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="submission-status"]')].map(e => e.dataset.seen)`, &seen),
	)
	if len(shown) != len(results) {
		t.Fatalf("statuses shown %q for %d results", shown, len(results))
	}
	for i, s := range seen {
		if !strings.HasSuffix(s, "landed confirmed") {
			t.Errorf("submission %d showed %q, want landed then confirmed", i, s)
		}
	}
	// The project's stats on the page count the transactions once the
	// tracker has seen them confirmed; the page then says each is
	// confirmed, with an explorer link, and lists the wallet again: what
	// was reclaimed is gone, nothing is left checked.
	var page struct {
		Statuses []string
		Links    []string
		Items    int
		Checked  int
		Types    []string
		Amounts  []string
	}
	run("confirmed and listed again",
		chromedp.Poll(`Number(document.querySelector('[data-testid="stat-transactions"]').textContent) >= `+strconv.Itoa(statsBefore+len(results)),
			nil, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Poll(`document.querySelector('[data-testid="status"]').textContent.startsWith("Confirmed")`, nil, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Evaluate(`({
			Statuses: [...document.querySelectorAll('[data-testid="result"]')].map(e => e.dataset.status),
			Links: [...document.querySelectorAll('[data-testid="explorer-link"]')].map(a => a.href),
			Items: document.querySelectorAll('[data-testid="item"]').length,
			Checked: document.querySelectorAll('[data-testid="select"]:checked').length,
			Types: [...document.querySelectorAll('[data-testid="item-type"]')].map(e => e.textContent),
			Amounts: [...document.querySelectorAll('[data-testid="item-rebate"]')].map(e => e.textContent),
		})`, &page),
	)
	for i, st := range page.Statuses {
		if st != "confirmed" || i >= len(page.Links) || !strings.Contains(page.Links[i], r2sig(results[i])) {
			t.Errorf("submission %d: status %q, link %v; want confirmed with an explorer link to %s", i, st, page.Links, r2sig(results[i]))
		}
	}
	if page.Items >= items || page.Checked != 0 {
		t.Errorf("after the reclaim the page lists %d items (%d before), %d checked; want the reclaimed ones gone and none checked", page.Items, items, page.Checked)
	}
	for _, typ := range page.Types {
		if strings.Contains(typ, "_") || typ == "nft" {
			t.Errorf("a type shown as its id: %q", typ)
		}
	}
	for _, a := range page.Amounts {
		if !regexp.MustCompile(`^\d+\.\d{9} SOL$`).MatchString(a) {
			t.Errorf("amount %q: want nine decimals, as every amount", a)
		}
	}
	t.Logf("%s: %d items, %s transactions, net rebate %d lamports, balance +%d", origin, items, count, netRebate, int64(after)-int64(before))
	return sigs
}
