package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reclaim-sol/reclaim/e2e/harness"
	"github.com/reclaim-sol/reclaim/examples/integrator"
)

// Page sizes of TestSampleAppPages: the sample app's query parameters, small
// so that a wallet of a few hundred accounts takes several pages of several
// wallet requests (a page of 40 closes packs into three transactions).
const (
	pagesWallet     = 200
	pagesItems      = 40
	pagesPerRequest = 2
	// pagesRefused is the wallet request the person refuses: the second
	// of the second page.
	pagesRefused = 4
)

// pagedRun is what the sample app shows once a reclaim in pages ended.
type pagedRun struct {
	State, Page, Pages, Status, Error string
	// Results are each submission's page and status.
	Results [][2]string
	// Requests are the test wallet's sign requests so far, by size.
	Requests []int
	// LandedItems, LandedTxs and LandedNet are the landed totals shown.
	LandedItems, LandedTxs, LandedNet string
	Checked                           int
}

const pagedRunJS = `(() => {
	const p = document.querySelector('[data-testid="progress"]');
	const landed = document.querySelector('[data-testid="landed-items"]');
	return {
		State: p.dataset.state, Page: p.dataset.page, Pages: p.dataset.pages,
		Status: document.querySelector('[data-testid="status"]').textContent,
		Error: document.querySelector('[data-testid="error"]').textContent,
		Results: [...document.querySelectorAll('[data-testid="result"]')].map(e => [e.dataset.page, e.dataset.status]),
		Requests: window.testWallet.requests,
		LandedItems: landed ? landed.dataset.items : "", LandedTxs: landed ? landed.dataset.transactions : "",
		LandedNet: document.querySelector('[data-testid="landed-net"]')?.dataset.lamports ?? "",
		Checked: document.querySelectorAll('[data-testid="select"]:checked').length,
	};
})()`

// TestSampleAppPages (issue 25): wallets of more items than one build takes
// are reclaimed by the sample app in Chromium in pages, against the local
// validator.
//
// Selected items: every item selected, built page by page (40 items a
// build here, 500 by default), each page signed in wallet requests of at
// most 2 transactions (50 by default) and submitted, the next page built
// and signed while the last is followed until final. The person refuses
// the second page's second request: the first page and the second's first
// request landed and are reported to the lamport, the wallet is listed
// again and the items left stay selected; Build and Submit go on with
// them, in pages, until every account is closed on chain.
//
// Every safe item: "Reclaim all safe items" on 520 empty accounts builds
// the 500 a build takes, and once they landed, select-all again takes the
// 20 left.
//
// The signing page (an agent's build, /sign?build=) signs a build of 3
// transactions in requests of 1.
//
// Each run's landed totals equal the wallet's balance change, no request
// carries more than its slice, and the requests are exactly the slices of
// each page's transactions.
func TestSampleAppPages(t *testing.T) {
	t.Parallel()
	v, web, s, ctx := sampleAppEnv(t, "the sample app's pages test", 7*time.Minute, "RECLAIM_SIGN_URL=http://127.0.0.1:5173/sign")
	serve := func(t *testing.T, host string, owner solana.PrivateKey) string {
		t.Helper()
		o := origin(t, host, integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: owner,
			ExplorerURL: "https://explorer.solana.com/tx/{id}?cluster=custom"})
		s.cli("project", "origin", "--project", s.projectID, "--origin", o)
		return o
	}
	open := func(t *testing.T, host string, owner solana.PrivateKey, perRequest, items int) {
		t.Helper()
		o := serve(t, host, owner)
		inPage(t, ctx, "connect and list",
			chromedp.Navigate(o+"/?itemsPerBuild="+strconv.Itoa(pagesItems)+"&transactionsPerSign="+strconv.Itoa(perRequest)),
			chromedp.Click(tid("connect-wallet"), chromedp.ByQuery),
			chromedp.Poll(`document.querySelectorAll('[data-testid="item"]').length === `+strconv.Itoa(items), nil, chromedp.WithPollingTimeout(time.Minute)),
		)
	}

	t.Run("selected items, a request refused", func(t *testing.T) {
		owner, accounts, _ := v.EmptyAccountsWallet(t, pagesWallet)
		open(t, "127.0.0.7", owner, pagesPerRequest, pagesWallet)
		inPage(t, ctx, "refuse a request", chromedp.Evaluate(`window.testWallet.refuse = `+strconv.Itoa(pagesRefused), nil))

		before := v.Balance(t, owner.PublicKey())
		first, took := reclaimSelected(t, ctx, "every item", true, pagesWallet, "stopped")
		closed := closedCount(t, v, accounts)
		balance := v.Balance(t, owner.PublicKey())
		t.Logf("until refused: %d requests %v, %d results in %s, %s items landed, %s lamports", len(first.Requests), first.Requests, len(first.Results), took, first.LandedItems, first.LandedNet)
		if first.Page != "2" || first.Pages != strconv.Itoa((pagesWallet+pagesItems-1)/pagesItems) || !strings.Contains(first.Error, "rejected") {
			t.Errorf("stopped at page %s of %s with error %q; want page 2, refused", first.Page, first.Pages, first.Error)
		}
		if len(first.Requests) != pagesRefused {
			t.Fatalf("%d wallet requests %v; want the refused one, the %dth, to be the last", len(first.Requests), first.Requests, pagesRefused)
		}
		checkRequests(t, "until refused", first.Requests[:pagesRefused-1], first.Results, pagesPerRequest)
		if slices.Max(first.Requests) > pagesPerRequest {
			t.Errorf("wallet requests %v: one above the slice of %d", first.Requests, pagesPerRequest)
		}
		checkLanded(t, "until refused", first, closed, int64(balance)-int64(before))
		if left := pagesWallet - closed; first.Checked != left || !strings.Contains(first.Status, strconv.Itoa(left)+" items left are still selected") {
			t.Errorf("after the refusal %d items are checked, status %q; want the %d left", first.Checked, first.Status, left)
		}

		// Build goes on with the items left, in pages, to the last.
		left := pagesWallet - closed
		before = balance
		rest, took := reclaimSelected(t, ctx, "the items left", false, left, "done")
		closed = closedCount(t, v, accounts)
		balance = v.Balance(t, owner.PublicKey())
		requests := rest.Requests[len(first.Requests):]
		t.Logf("the rest: %d pages, %d requests %v, %d results in %s, %s items landed, %s lamports", (left+pagesItems-1)/pagesItems, len(requests), requests, len(rest.Results), took, rest.LandedItems, rest.LandedNet)
		if closed != pagesWallet {
			t.Errorf("%d of the %d accounts closed on chain", closed, pagesWallet)
		}
		if rest.Page != rest.Pages || rest.Pages != strconv.Itoa((left+pagesItems-1)/pagesItems) || rest.Error != "" || !strings.HasPrefix(rest.Status, "Confirmed") {
			t.Errorf("ended at page %s of %s, status %q, error %q; want every page confirmed", rest.Page, rest.Pages, rest.Status, rest.Error)
		}
		checkRequests(t, "the rest", requests, rest.Results, pagesPerRequest)
		checkLanded(t, "the rest", rest, left, int64(balance)-int64(before))
		if rest.Checked != 0 {
			t.Errorf("%d items still checked after the last page", rest.Checked)
		}
	})

	t.Run("every safe item, in select-all pages of 500", func(t *testing.T) {
		const n, perRequest = 520, 8
		owner, accounts, _ := v.EmptyAccountsWallet(t, n)
		open(t, "127.0.0.8", owner, perRequest, n)
		var net, summary, shown string
		inPage(t, ctx, "the first 500",
			chromedp.WaitVisible(tid("summary-net"), chromedp.ByQuery),
			chromedp.Text(tid("summary-net"), &summary, chromedp.ByQuery),
			chromedp.Click(tid("reclaim-all"), chromedp.ByQuery),
			chromedp.WaitVisible(tid("net-rebate"), chromedp.ByQuery),
			chromedp.AttributeValue(tid("net-rebate"), "data-lamports", &net, nil, chromedp.ByQuery),
			chromedp.Text(tid("status"), &shown, chromedp.ByQuery),
		)
		if !strings.HasPrefix(summary, "500 items") || !strings.Contains(shown, "next safe items") {
			t.Errorf("summary %q, status %q: want the 500 a build takes, and the next ones said to follow", summary, shown)
		}
		before := v.Balance(t, owner.PublicKey())
		start := time.Now()
		var r pagedRun
		inPage(t, ctx, "sign and submit in pages",
			chromedp.Click(tid("submit"), chromedp.ByQuery),
			chromedp.Poll(`document.querySelector('[data-testid="progress"]').dataset.state === "done"`, nil, chromedp.WithPollingTimeout(4*time.Minute)),
			chromedp.Evaluate(pagedRunJS, &r),
		)
		took := time.Since(start)
		closed := closedCount(t, v, accounts)
		t.Logf("select-all: %d requests %v, %d results in %s, %s items landed, %s lamports (the first page's quote: %s)", len(r.Requests), r.Requests, len(r.Results), took, r.LandedItems, r.LandedNet, net)
		if closed != n || r.Page != "2" || r.Pages != "" || !strings.HasPrefix(r.Status, "Confirmed") {
			t.Errorf("%d of %d accounts closed; ended at page %s (of %q), status %q; want all in two select-all pages", closed, n, r.Page, r.Pages, r.Status)
		}
		checkRequests(t, "select-all", r.Requests, r.Results, perRequest)
		checkLanded(t, "select-all", r, n, int64(v.Balance(t, owner.PublicKey()))-int64(before))
	})

	// The signing page an agent's build links to signs it in slices too:
	// a build of 40 closes (3 transactions) in requests of 1.
	t.Run("the signing page, in slices", func(t *testing.T) {
		owner, accounts, _ := v.EmptyAccountsWallet(t, pagesItems)
		o := serve(t, "127.0.0.9", owner)
		id, net := mcpBuild(t, s, owner.PublicKey(), closeAll(accounts))
		before := v.Balance(t, owner.PublicKey())
		var r pagedRun
		inPage(t, ctx, "sign the agent's build",
			chromedp.Navigate(o+"/sign?build="+id+"&transactionsPerSign=1"),
			chromedp.Click(tid("connect-wallet"), chromedp.ByQuery),
			chromedp.WaitEnabled(tid("submit"), chromedp.ByQuery),
			chromedp.Click(tid("submit"), chromedp.ByQuery),
			chromedp.Poll(`document.querySelector('[data-testid="status"]').textContent.startsWith("Confirmed")`, nil, chromedp.WithPollingTimeout(2*time.Minute)),
			chromedp.Evaluate(`({
				Requests: window.testWallet.requests,
				Results: [...document.querySelectorAll('[data-testid="result"]')].map(e => [e.dataset.page, e.dataset.status]),
			})`, &r),
		)
		t.Logf("signing page: %d requests %v, %d results, net %d lamports", len(r.Requests), r.Requests, len(r.Results), net)
		if len(r.Results) < 2 || closedCount(t, v, accounts) != len(accounts) {
			t.Errorf("%d results, %d of %d accounts closed; want a build of several transactions, all landed", len(r.Results), closedCount(t, v, accounts), len(accounts))
		}
		checkRequests(t, "signing page", r.Requests, r.Results, 1)
		if rose := int64(v.Balance(t, owner.PublicKey())) - int64(before); rose != net {
			t.Errorf("the wallet's balance rose by %d lamports; the build announced %d", rose, net)
		}
	})
}

// mcpBuild builds items of wallet with the MCP tool
// build_reclaim_transactions and the API key, as an agent does, and returns
// the id of the build its signing link names and its net rebate.
func mcpBuild(t *testing.T, s *service, wallet solana.PublicKey, items []selection) (string, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: s.url + "/mcp", HTTPClient: &http.Client{Transport: withHeader{s.key(), http.DefaultTransport}}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "build_reclaim_transactions",
		Arguments: map[string]any{"address": wallet.String(), "items": items, "priorityFeeLevel": "none"}})
	if err != nil || res.IsError {
		t.Fatalf("build_reclaim_transactions: %v %+v", err, res)
	}
	var built struct {
		SignURL string
		Totals  struct{ NetRebate int64 }
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &built); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(built.SignURL)
	if err != nil || u.Query().Get("build") == "" {
		t.Fatalf("signing link %q", built.SignURL)
	}
	return u.Query().Get("build"), built.Totals.NetRebate
}

// withHeader sets a header on every request.
type withHeader struct {
	h    [2]string
	base http.RoundTripper
}

func (w withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(w.h[0], w.h[1])
	return w.base.RoundTrip(r)
}

// reclaimSelected selects every item (or keeps the selection), builds,
// checks the plan of items in pages, submits, and waits until the pages
// ended in state.
func reclaimSelected(t *testing.T, ctx context.Context, what string, selectAll bool, items int, state string) (pagedRun, time.Duration) {
	t.Helper()
	var planItems, planPages string
	var actions []chromedp.Action
	if selectAll {
		actions = append(actions, chromedp.Click(tid("select-all"), chromedp.ByQuery))
	}
	inPage(t, ctx, what+": build", append(actions,
		chromedp.Click(tid("build"), chromedp.ByQuery),
		chromedp.WaitVisible(tid("plan-items"), chromedp.ByQuery),
		chromedp.Text(tid("plan-items"), &planItems, chromedp.ByQuery),
		chromedp.Text(tid("plan-pages"), &planPages, chromedp.ByQuery),
	)...)
	pages := (items + pagesItems - 1) / pagesItems
	if planItems != strconv.Itoa(items) || !strings.HasPrefix(planPages, strconv.Itoa(pages)+" ") {
		t.Fatalf("%s: the plan shows %s items in %q pages, want %d in %d", what, planItems, planPages, items, pages)
	}
	start := time.Now()
	var r pagedRun
	inPage(t, ctx, what+": sign and submit in pages",
		chromedp.Click(tid("submit"), chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('[data-testid="progress"]').dataset.state === "`+state+`"`, nil, chromedp.WithPollingTimeout(4*time.Minute)),
		chromedp.Evaluate(pagedRunJS, &r),
	)
	return r, time.Since(start)
}

// checkRequests checks the wallet's sign requests against the submissions
// shown: each page's transactions were signed in requests of at most
// perRequest, all but each page's last one full, and nothing else.
func checkRequests(t *testing.T, what string, requests []int, results [][2]string, perRequest int) {
	t.Helper()
	perPage := map[string]int{}
	var order []string
	for _, r := range results {
		if perPage[r[0]] == 0 {
			order = append(order, r[0])
		}
		perPage[r[0]]++
	}
	var want []int
	for _, p := range order {
		for n := perPage[p]; n > 0; n -= perRequest {
			want = append(want, min(n, perRequest))
		}
	}
	if !slices.Equal(requests, want) {
		t.Errorf("%s: wallet requests %v; the pages' transactions (%v) in slices of %d are %v", what, requests, perPage, perRequest, want)
	}
}

// checkLanded checks the landed totals shown: every submission shown
// confirmed, the items as many as closed on chain, the net rebate exactly
// the wallet's balance change.
func checkLanded(t *testing.T, what string, r pagedRun, closed int, balanceChange int64) {
	t.Helper()
	confirmed := 0
	for _, res := range r.Results {
		if res[1] == "confirmed" {
			confirmed++
		}
	}
	if confirmed != len(r.Results) || r.LandedTxs != strconv.Itoa(confirmed) {
		t.Errorf("%s: %d of %d submissions confirmed, %s shown as landed", what, confirmed, len(r.Results), r.LandedTxs)
	}
	if r.LandedItems != strconv.Itoa(closed) {
		t.Errorf("%s: %s items shown as landed, %d closed on chain", what, r.LandedItems, closed)
	}
	if net, err := strconv.ParseInt(r.LandedNet, 10, 64); err != nil || net != balanceChange || net <= 0 {
		t.Errorf("%s: %q lamports shown as received, the wallet's balance changed by %d", what, r.LandedNet, balanceChange)
	}
}

// closedCount is how many of accounts no longer exist (confirmed).
func closedCount(t *testing.T, v *harness.Validator, accounts []solana.PublicKey) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	closed := 0
	for at := 0; at < len(accounts); at += 100 {
		res, err := v.RPC.GetMultipleAccountsWithOpts(ctx, accounts[at:min(at+100, len(accounts))],
			&rpc.GetMultipleAccountsOpts{Commitment: rpc.CommitmentConfirmed, Encoding: solana.EncodingBase64})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range res.Value {
			if a == nil {
				closed++
			}
		}
	}
	return closed
}
