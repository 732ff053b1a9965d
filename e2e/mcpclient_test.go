package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestMCPTypeScriptClient drives /mcp with the official TypeScript client
// (@modelcontextprotocol/sdk, e2e/mcpclient) against the real service and
// the local validator, as an agent and its user do: it lists the tools,
// lists the wallet's items, builds (unsigned, with a signing link), signs
// with the wallet's keypair (@solana/web3.js), submits, and reads until the
// transactions are confirmed; the wallet's balance rises by the net rebate
// the build announced. A missing and a wrong credential are refused.
func TestMCPTypeScriptClient(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	dir := npmPackage(t, "mcpclient")
	s := startService(t, v, "RECLAIM_SIGN_URL=http://127.0.0.1:5173/sign")
	f := v.NewWalletFixture(t)
	secret, _ := json.Marshal(toInts(f.Owner))
	before := v.Balance(t, f.Owner.PublicKey())

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "flow.mjs", s.url+"/mcp", s.apiKey, string(secret))
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node flow.mjs: %v\n%s", err, out)
	}
	var got struct {
		MissingCredential, WrongKey string
		Tools                       []string
		Listed                      int
		Signing, SignURL            string
		Totals                      struct{ NetRebate int64 }
		Submitted                   []struct{ Status, Signature string }
		ConfirmedBy                 string
		Confirmed                   bool
		Summary                     struct {
			TransactionCount int64
			Totals           struct{ NetRebate int64 }
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("parse %s: %v", out, err)
	}
	t.Logf("the TypeScript client saw: %s", out)
	for _, refused := range []string{got.MissingCredential, got.WrongKey} {
		if !strings.Contains(refused, "401") {
			t.Errorf("a missing or wrong credential: %q, want a 401 refusal", refused)
		}
	}
	for _, tool := range []string{"summarize_wallet", "get_submission_status", "list_wallet_items", "build_reclaim_transactions", "submit_signed_transactions", "get_project_stats", "get_leaderboard"} {
		if !slices.Contains(got.Tools, tool) {
			t.Errorf("tools %v lack %s", got.Tools, tool)
		}
	}
	if got.Listed == 0 || !strings.Contains(got.Signing, "never signs") || !strings.HasPrefix(got.SignURL, "http://127.0.0.1:5173/sign?build=") {
		t.Errorf("listed %d, signing %q, signUrl %q", got.Listed, got.Signing, got.SignURL)
	}
	if got.Summary.TransactionCount == 0 || got.Summary.Totals.NetRebate <= 0 {
		t.Errorf("the summary before the build: %+v, want the wallet's empty accounts in at least one transaction", got.Summary)
	}
	if got.ConfirmedBy != "get_submission_status" {
		t.Errorf("confirmed by %s, want the status tool", got.ConfirmedBy)
	}
	if len(got.Submitted) == 0 || !got.Confirmed {
		t.Fatalf("submitted %+v, confirmed %t (by %s)", got.Submitted, got.Confirmed, got.ConfirmedBy)
	}
	for _, r := range got.Submitted {
		if r.Status != "submitted" {
			t.Errorf("submission %+v", r)
		}
	}
	if rose := int64(v.Balance(t, f.Owner.PublicKey())) - int64(before); rose != got.Totals.NetRebate {
		t.Errorf("the wallet's balance rose by %d lamports; the build announced %d", rose, got.Totals.NetRebate)
	}
}

func toInts(b []byte) []int {
	out := make([]int, len(b))
	for i, x := range b {
		out[i] = int(x)
	}
	return out
}
