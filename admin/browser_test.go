package admin_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/e2e/headless"
	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write the console screenshots to docs/screenshots")

// server is `reclaim serve`, built from this tree, on a fresh SQLite data
// directory; it is stopped, and waited for, when the test ends.
type server struct {
	dataDir, url string
}

func startServer(t *testing.T) *server {
	t.Helper()
	s := &server{dataDir: filepath.Join(t.TempDir(), "data")}
	s.url = reclaimd.Serve(t, s.env("RECLAIM_ADDR=127.0.0.1:0"), nil).URL
	return s
}

func (s *server) env(extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"RECLAIM_DATA_DIR=" + s.dataDir, "SOLANA_RPC_URL=http://127.0.0.1:8899",
	}, extra...)
}

// ownerCreate runs `reclaim owner create` with the password on stdin.
func (s *server) ownerCreate(t *testing.T, email string) {
	t.Helper()
	if out := reclaimd.Run(t, s.env(), password+"\n", "owner", "create", "--email", email); !strings.HasPrefix(out, "own_") {
		t.Fatalf("reclaim owner create printed %q", out)
	}
}

// createSession calls POST /v1/sessions with key and returns the status.
func (s *server) createSession(t *testing.T, key string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.url+"/v1/sessions",
		strings.NewReader(`{"walletAddress":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"}`))
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestBrowser drives headless Chromium through the console against the real
// binary: sign in, create a project and a key, use the key, revoke it, and
// check that another owner cannot open the project. With
// -update-screenshots it writes docs/screenshots/*.png.
func TestBrowser(t *testing.T) {
	ctx := headless.Browser(t, "the console's browser test", chromedp.WindowSize(1280, 900))
	start := time.Now()
	srv := startServer(t)
	srv.ownerCreate(t, "alice@example.com")
	srv.ownerCreate(t, "bob@example.com")

	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			var loc, body string
			_ = chromedp.Run(ctx, chromedp.Location(&loc), chromedp.Text("body", &body, chromedp.ByQuery))
			t.Fatalf("%s: %v (at %s)\n%s", what, err, loc, body)
		}
	}
	sel := func(id string) string { return `[data-testid="` + id + `"]` }

	signIn := func(email string) {
		run("sign in as "+email,
			chromedp.Navigate(srv.url+"/admin/"),
			chromedp.WaitVisible(sel("signin-form"), chromedp.ByQuery),
			chromedp.SendKeys(sel("email"), email, chromedp.ByQuery),
			chromedp.SendKeys(sel("password"), password, chromedp.ByQuery),
			chromedp.Click(sel("signin-submit"), chromedp.ByQuery),
			chromedp.WaitVisible(sel("owner-email"), chromedp.ByQuery),
		)
	}
	signIn("alice@example.com")

	var overviewURL string
	run("create a project",
		chromedp.WaitVisible(sel("projects-empty"), chromedp.ByQuery),
		chromedp.SendKeys(sel("project-name-input"), "Acme Wallet", chromedp.ByQuery),
		chromedp.SendKeys(sel("donation-wallet-input"), "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", chromedp.ByQuery),
		chromedp.Click(sel("create-project-submit"), chromedp.ByQuery),
		chromedp.WaitVisible(sel("stats"), chromedp.ByQuery),
		chromedp.Location(&overviewURL),
	)
	projectID := strings.TrimPrefix(overviewURL, srv.url+"/admin/projects/")
	seedLedger(t, srv.dataDir, projectID)

	var key string
	run("create a key",
		chromedp.Click(sel("tab-keys"), chromedp.ByQuery),
		chromedp.WaitVisible(sel("keys-empty"), chromedp.ByQuery),
		chromedp.SendKeys(sel("key-name-input"), "production backend", chromedp.ByQuery),
		chromedp.Click(sel("create-key-submit"), chromedp.ByQuery),
		chromedp.WaitVisible(sel("new-key"), chromedp.ByQuery),
		chromedp.Value(sel("new-key"), &key, chromedp.ByQuery),
	)
	if !strings.HasPrefix(key, "ak_live_") {
		t.Fatalf("new key %q", key)
	}
	if status := srv.createSession(t, key); status != http.StatusOK {
		t.Fatalf("POST /v1/sessions with the console's key: %d, want 200", status)
	}

	shots := map[string]string{}
	shoot := func(name, url, ready string) {
		for _, vp := range []struct {
			suffix string
			w, h   int64
			mobile bool
		}{{"desktop", 1280, 900, false}, {"phone", 390, 844, true}} {
			var png []byte
			run("screenshot "+name+" "+vp.suffix,
				chromedp.EmulateViewport(vp.w, vp.h, chromedp.EmulateMobile),
				chromedp.Navigate(url),
				chromedp.WaitVisible(sel(ready), chromedp.ByQuery),
				chromedp.FullScreenshot(&png, 100),
			)
			shots[name+"-"+vp.suffix+".png"] = string(png)
		}
		run("reset viewport", chromedp.EmulateViewport(1280, 900))
	}
	shoot("overview", overviewURL, "stats")

	// At 1280 px every stat card's number sits on one line inside its card:
	// never "0.05789510 / 4 SOL" wrapped mid-digit.
	var cards []struct {
		ID    string
		Lines int
		Fits  bool
	}
	run("measure the stat cards at 1280 px",
		chromedp.Navigate(overviewURL),
		chromedp.WaitVisible(sel("stats"), chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('.stat .value')].map(v => {
			const a = v.querySelector('.amount'), r = document.createRange();
			r.selectNodeContents(a);
			const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
			const card = v.closest('.card').getBoundingClientRect(), box = a.getBoundingClientRect();
			return {ID: v.dataset.testid, Lines: tops.size, Fits: box.left >= card.left && box.right <= card.right};
		})`, &cards),
	)
	if len(cards) == 0 {
		t.Fatal("no stat cards")
	}
	for _, c := range cards {
		if c.Lines != 1 || !c.Fits {
			t.Errorf("stat card %s at 1280 px: its number takes %d lines, fits its card: %t", c.ID, c.Lines, c.Fits)
		}
	}
	shoot("keys", overviewURL+"/keys", "keys-table")

	run("revoke the key",
		chromedp.Navigate(overviewURL+"/keys"),
		chromedp.Click(sel("revoke-link"), chromedp.ByQuery),
		chromedp.WaitVisible(sel("revoke-confirm"), chromedp.ByQuery),
		chromedp.Click(sel("revoke-submit"), chromedp.ByQuery),
		chromedp.WaitVisible(sel("notice"), chromedp.ByQuery),
	)
	var status string
	run("read the key's status", chromedp.Text(sel("key-status"), &status, chromedp.ByQuery))
	if !strings.HasPrefix(status, "Revoked") {
		t.Errorf("key status after revoking: %q", status)
	}
	if code := srv.createSession(t, key); code != http.StatusUnauthorized {
		t.Errorf("POST /v1/sessions with the revoked key: %d, want 401", code)
	}

	var notice string
	var members []string
	run("add a member without an account",
		chromedp.Click(sel("tab-settings"), chromedp.ByQuery),
		chromedp.WaitVisible(sel("members-table"), chromedp.ByQuery),
		chromedp.SendKeys(sel("member-email-input"), "nobody@example.com", chromedp.ByQuery),
		chromedp.Click(sel("add-member-submit"), chromedp.ByQuery),
		chromedp.WaitVisible(sel("notice"), chromedp.ByQuery),
		chromedp.Text(sel("notice"), &notice, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="member-email"]')].map(e => e.textContent)`, &members),
	)
	// The answer an added member gets, so that the form tells no one who
	// has an account; the list shows who is a member.
	if !strings.Contains(notice, "If a console account uses this email") || strings.Join(members, " ") != "alice@example.com" {
		t.Errorf("adding an email without an account: notice %q, members %q", notice, members)
	}

	run("sign out", chromedp.Click(sel("signout"), chromedp.ByQuery), chromedp.WaitVisible(sel("signin-form"), chromedp.ByQuery))
	signIn("bob@example.com")
	var msg string
	var names []string
	run("bob opens alice's project",
		chromedp.Navigate(overviewURL),
		chromedp.WaitVisible(sel("error-page"), chromedp.ByQuery),
		chromedp.Text(sel("error-message"), &msg, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="project-name"],[data-testid="stats"]')].map(e => e.textContent)`, &names),
	)
	if !strings.Contains(msg, "nothing here") || len(names) != 0 {
		t.Errorf("bob on alice's project: message %q, project data %q", msg, names)
	}
	if resp, err := http.Get(overviewURL); err == nil {
		resp.Body.Close() // signed out: a redirect to sign in, no data
	}
	t.Logf("browser test took %v", time.Since(start).Round(time.Millisecond))

	if *updateScreenshots {
		_, file, _, _ := runtime.Caller(0)
		dir := filepath.Join(filepath.Dir(file), "..", "docs", "screenshots")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, png := range shots {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(png), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// seedLedger gives the project a month of reclaims, so the overview has
// something to show.
func seedLedger(t *testing.T, dataDir, projectID string) {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, "", dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := storage.NewLedger(db, storage.LedgerOptions{})
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	now := time.Now().UTC()
	types := []string{ledger.TypeTokenAccountClosure, ledger.TypeTokenBurn, ledger.TypeNFTBurn}
	for i := range 120 {
		payer := "Wa11et" + strings.Repeat(string(alphabet[i%23]), 37) + string(alphabet[i%7])
		gross := int64(2_039_280 * (1 + i%5))
		donation := int64(0)
		if i%4 == 0 {
			donation = gross / 10
		}
		at := now.Add(-time.Duration((i*37)%(29*24)) * time.Hour)
		status := ledger.StatusConfirmed
		confirmed := &at
		if i%17 == 0 {
			status, confirmed = ledger.StatusFailed, nil
		}
		err := s.InsertEntry(ctx, ledger.Entry{
			ProjectID: projectID, Payer: payer, Type: types[i%3], GrossRebate: gross, DonationAmount: donation,
			NetworkFee: 5000, Fees: 5000, NetRebate: gross - 5000 - donation, ItemCount: 1 + i%6,
			TicketJTI: fmt.Sprintf("jti-%d", i), Signature: fmt.Sprintf("%d%s", i, strings.Repeat("5", 80)),
			Status: status, ConfirmedAt: confirmed, CreatedAt: at.Add(-20 * time.Second),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
