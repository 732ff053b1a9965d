package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// npmPackage returns the absolute path of a Node package of the checkout
// (relative to e2e/) with its node_modules installed; without Node the test
// skips, or fails when CI=true.
func npmPackage(t *testing.T, rel string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed (CI=true: the TypeScript tests must run)")
		}
		t.Skip("node is not installed")
	}
	dir, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := harness.EnsureNodeModules(ctx, dir, os.Stderr); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTypeScriptClientNode runs the generated TypeScript client
// (gen/ts, connect-node) against the real service: it must send what the
// service accepts (an int64 ttlSeconds, a donation, the server stream) and
// decode the service's JSON numbers into the same amounts a REST client
// reads, as bigint.
func TestTypeScriptClientNode(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	dir := npmPackage(t, "../gen/ts")
	s := startService(t, v)
	f := v.NewWalletFixture(t)
	wallet := f.Owner.PublicKey()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "test/smoke.mjs", s.url, s.apiKey, wallet.String())
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node test/smoke.mjs: %v\n%s", err, out)
	}
	var ts struct {
		Scopes []string
		Items  []struct{ Address, Lamports, Type string }
		// Streamed are the addresses the server stream sent, in order.
		Streamed       []string
		Transactions   []struct{ GrossRebate, NetRebate, DonationAmount, Type string }
		TotalNetRebate string
		StatsType      string
	}
	if err := json.Unmarshal(out, &ts); err != nil {
		t.Fatalf("parse %s: %v", out, err)
	}
	if len(ts.Scopes) != 4 || ts.StatsType != "bigint" {
		t.Errorf("session scopes %q, stats type %s", ts.Scopes, ts.StatsType)
	}

	// The same wallet over REST, as JSON numbers.
	sess := s.session(wallet)
	var l listing
	if code := s.call("GET", "/v1/wallet/"+wallet.String()+"/assets", bearerOf(sess), nil, &l); code != 200 {
		t.Fatalf("list: %d", code)
	}
	if len(ts.Items) != len(l.Items) || len(ts.Streamed) != len(l.Items) {
		t.Fatalf("TypeScript listed %d items and streamed %d, REST %d", len(ts.Items), len(ts.Streamed), len(l.Items))
	}
	var closable []selection
	for i, it := range l.Items {
		got := ts.Items[i]
		if got.Address != it.Address || got.Lamports != strconv.FormatUint(it.Lamports, 10) || got.Type != "bigint" || ts.Streamed[i] != it.Address {
			t.Errorf("item %d: TypeScript %+v (streamed %s), REST %s with %d lamports", i, got, ts.Streamed[i], it.Address, it.Lamports)
		}
		for _, a := range it.Actions {
			if a == "close" {
				closable = append(closable, selection{Type: it.Type, Address: it.Address, Action: "close"})
			}
		}
	}
	var b built
	body := map[string]any{"items": closable, "donationPercentage": 0.1, "priorityFeeLevel": "none"}
	if code := s.call("POST", "/v1/wallet/"+wallet.String()+"/transactions", bearerOf(sess), body, &b); code != 200 {
		t.Fatalf("build: %d", code)
	}
	if len(ts.Transactions) != len(b.Transactions) || ts.TotalNetRebate != strconv.FormatUint(b.Totals.NetRebate, 10) {
		t.Fatalf("TypeScript built %+v (net %s), REST %d transactions (net %d)", ts.Transactions, ts.TotalNetRebate, len(b.Transactions), b.Totals.NetRebate)
	}
	for i, tx := range b.Transactions {
		got := ts.Transactions[i]
		if got.GrossRebate != strconv.FormatUint(tx.GrossRebate, 10) || got.NetRebate != strconv.FormatUint(tx.NetRebate, 10) ||
			got.DonationAmount != strconv.FormatUint(tx.DonationAmount, 10) || got.Type != "bigint" || tx.DonationAmount == 0 {
			t.Errorf("transaction %d: TypeScript %+v, REST %+v", i, got, tx)
		}
	}
}
