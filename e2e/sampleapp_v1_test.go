package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
	"github.com/reclaim-sol/reclaim/examples/integrator"
)

// TestSampleAppV1 drives the sample app in Chromium with a wallet that
// advertises v1 (supportedTransactionVersions ["legacy", 0, 1]) and 25 empty
// token accounts, 16 closes a v0 transaction at most: the page asks the
// summary and select-all for transactionVersion 1, Reclaim answers one v1
// transaction where v0 needs two, the wallet signs it v1, the page submits
// it and follows it to confirmed, it lands as a v1 transaction, and the
// wallet's balance rises by exactly the net rebate the page showed. Then
// again with a wallet that sends what it signs itself
// (signAndSendTransaction): it sends the v1 transaction and reports its
// signature.
func TestSampleAppV1(t *testing.T) {
	t.Parallel()
	v, web, s, ctx := sampleAppEnv(t, "the sample app's v1 browser test", 4*time.Minute)
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, host, rpc string
	}{
		{"the page submits", "127.0.0.10", ""},
		{"the wallet sends", "127.0.0.11", v.URL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := watchWalletCalls(ctx)
			owner, _, _ := v.EmptyAccountsWallet(t, 25)
			o := origin(t, tc.host, integrator.Options{ReclaimURL: s.url, APIKey: s.apiKey, WebDir: web, DemoWallet: owner, DemoWalletV1: true,
				DemoWalletRPC: tc.rpc, ExplorerURL: "https://explorer.solana.com/tx/{id}?cluster=custom"})
			s.cli("project", "origin", "--project", s.projectID, "--origin", o)
			reclaimV1InBrowser(t, ctx, v, calls, o, owner)
			var sentBy []string
			inPage(t, ctx, "who sent", chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="result"]')].map(e => e.dataset.sentBy)`, &sentBy))
			want := "reclaim"
			if tc.rpc != "" {
				want = "wallet"
			}
			if len(sentBy) != 1 || sentBy[0] != want {
				t.Errorf("results sent by %q, want one sent by %s", sentBy, want)
			}
		})
	}
}

// reclaimV1InBrowser runs "Reclaim all safe items" on the page at origin
// with owner's v1 wallet of 25 empty accounts, and checks that the page
// asked for v1, got one v1 transaction, the wallet signed it as v1, and it
// landed as one.
func reclaimV1InBrowser(t *testing.T, ctx context.Context, v *harness.Validator, calls *walletCalls, origin string, owner solana.PrivateKey) {
	t.Helper()
	sigs := reclaimInBrowser(t, ctx, v, origin, owner, true)
	if len(sigs) != 1 {
		t.Fatalf("25 closes in %d v1 transactions, want 1", len(sigs))
	}
	if tx := v1Landed(t, v, sigs[0].String()); len(tx.keys) < 25 {
		t.Errorf("the landed v1 transaction holds %d addresses, want the 25 accounts closed and more", len(tx.keys))
	}
	var signed []any
	inPage(t, ctx, "the versions the wallet signed", chromedp.Evaluate(`window.testWallet.versions`, &signed))
	if len(signed) != 1 || signed[0] != float64(1) {
		t.Errorf("the wallet signed versions %v, want one v1 transaction", signed)
	}

	// What the page asked Reclaim and what Reclaim answered, as the
	// browser sent and received them.
	for _, method := range []string{"GetSummary", "BuildTransactions"} {
		reqs := calls.of(method)
		if len(reqs) == 0 {
			t.Fatalf("the page made no %s call", method)
		}
		for _, c := range reqs {
			var sent struct{ TransactionVersion int }
			if err := json.Unmarshal([]byte(c.body), &sent); err != nil || sent.TransactionVersion != 1 {
				t.Errorf("%s sent %s (%v), want transactionVersion 1", method, c.body, err)
			}
		}
	}
	for _, c := range calls.of("BuildTransactions") {
		var body string
		inPage(t, ctx, "the build's answer", chromedp.ActionFunc(func(ctx context.Context) error {
			b, err := network.GetResponseBody(c.id).Do(ctx)
			body = string(b)
			return err
		}))
		var answer struct {
			Transactions []struct{ TransactionVersion int }
		}
		if err := json.Unmarshal([]byte(body), &answer); err != nil || len(answer.Transactions) != 1 || answer.Transactions[0].TransactionVersion != 1 {
			t.Errorf("the build answered %.300s (%v), want one transaction of transactionVersion 1", body, err)
		}
	}
}

// walletCall is a WalletService call the page made: its request's id and
// body.
type walletCall struct {
	id   network.RequestID
	body string
}

// walletCalls records the page's WalletService calls by method.
type walletCalls struct {
	mu    sync.Mutex
	calls map[string][]walletCall
}

func watchWalletCalls(ctx context.Context) *walletCalls {
	w := &walletCalls{calls: map[string][]walletCall{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		e, ok := ev.(*network.EventRequestWillBeSent)
		if !ok || e.Request.Method != "POST" {
			return
		}
		_, method, ok := strings.Cut(e.Request.URL, "/reclaim.v1.WalletService/")
		if !ok {
			return
		}
		var body []byte
		for _, entry := range e.Request.PostDataEntries {
			part, err := base64.StdEncoding.DecodeString(entry.Bytes) // base64 in the protocol
			if err != nil {
				part = []byte("(undecodable post data: " + err.Error() + ")")
			}
			body = append(body, part...)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		w.calls[method] = append(w.calls[method], walletCall{id: e.RequestID, body: string(body)})
	})
	return w
}

func (w *walletCalls) of(method string) []walletCall {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]walletCall(nil), w.calls[method]...)
}
