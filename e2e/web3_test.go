package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestWeb3CloseEmptyTokenAccount closes an empty token account of a wallet fixture
// from @solana/web3.js (Connection.sendTransaction, then confirmTransaction over the
// PubSub endpoint) and checks the same exact balance change.
func TestWeb3CloseEmptyTokenAccount(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed (CI=true: the web3.js e2e test must run)")
		}
		t.Skip("node is not installed")
	}
	dir, err := filepath.Abs("web3client")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := harness.EnsureNodeModules(ctx, dir, os.Stderr); err != nil {
		t.Fatal(err)
	}
	f := v.NewWalletFixture(t)
	// solana-keygen's format: the 64-byte secret key as a JSON array of numbers.
	ints := make([]int, len(f.Owner))
	for i, b := range f.Owner {
		ints[i] = int(b)
	}
	secret, err := json.Marshal(ints)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.CommandContext(ctx, "node", "close-account.js", v.URL, string(secret), f.Empty.String(), v.WSURL)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("close-account.js: %v\n%s", err, out)
	}
	var res struct {
		Signature      string `json:"signature"`
		AccountLamport uint64 `json:"accountLamports"`
		BalanceBefore  uint64 `json:"balanceBefore"`
		BalanceAfter   uint64 `json:"balanceAfter"`
		Fee            uint64 `json:"fee"`
		AccountClosed  bool   `json:"accountClosed"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("parse %q: %v", out, err)
	}
	t.Logf("web3.js: %+v", res)
	if res.AccountLamport != harness.TokenAccountRent {
		t.Errorf("account lamports = %d, want %d", res.AccountLamport, harness.TokenAccountRent)
	}
	if res.Fee != 5000 {
		t.Errorf("fee = %d, want 5000", res.Fee)
	}
	if res.BalanceAfter-res.BalanceBefore != res.AccountLamport-res.Fee {
		t.Errorf("balance rose by %d, want %d", int64(res.BalanceAfter)-int64(res.BalanceBefore), res.AccountLamport-res.Fee)
	}
	if !res.AccountClosed {
		t.Error("account still exists after close")
	}
	// The Go side sees the same: the owner's balance now is what web3.js read.
	if got := v.Balance(t, f.Owner.PublicKey()); got != res.BalanceAfter {
		t.Errorf("owner balance via solana-go = %d, web3.js read %d", got, res.BalanceAfter)
	}
}
