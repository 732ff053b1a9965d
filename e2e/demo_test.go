package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

// TestDemo runs `reclaim demo` against the validator, as make demo does
// after make validator: the wallet it makes lists the promised mix, the
// project's key mints sessions, and the sample app's origin may call.
func TestDemo(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	dir := t.TempDir()
	env := append(os.Environ(), "RECLAIM_DATA_DIR="+dir, "RECLAIM_ADDR=127.0.0.1:0", "SOLANA_RPC_URL="+v.URL,
		"DATABASE_URL=", "REDIS_URL=", "RECLAIM_CORS_ORIGINS=")
	out := reclaimd.Run(t, env, "", "demo")
	if !strings.Contains(out, "make example") {
		t.Errorf("demo does not say what to do next:\n%s", out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "demo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ ProjectID, APIKey, Wallet, WalletFile, Origin string }
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.WalletFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("wallet file %s: %v, %v", d.WalletFile, fi, err)
	}
	s := &service{t: t, dataDir: dir, apiKey: d.APIKey, projectID: d.ProjectID, env: env}
	s.url = reclaimd.Serve(t, env, nil).URL
	wallet := solana.MustPublicKeyFromBase58(d.Wallet)
	var l listing
	if code := s.call("GET", "/v1/wallet/"+d.Wallet+"/assets", bearerOf(s.session(wallet)), nil, &l); code != 200 {
		t.Fatalf("list the demo wallet: %d", code)
	}
	want := map[string]int{"empty_account": 3, "token": 3, "nft": 1}
	for typ, n := range want {
		if l.Counts[typ] != n {
			t.Errorf("counts %v, want %v", l.Counts, want)
			break
		}
	}
	programs := map[string]bool{}
	for _, it := range l.Items {
		programs[it.TokenProgram] = true
		if len(it.Actions) == 0 {
			t.Errorf("item %+v offers nothing", it)
		}
	}
	if !programs[solana.TokenProgramID.String()] || !programs[solana.Token2022ProgramID.String()] {
		t.Errorf("token programs %v, want both", programs)
	}
	if got := s.cli("project", "origin", "--project", d.ProjectID, "--origin", d.Origin, "--remove"); got != d.Origin {
		t.Errorf("the sample app's origin %s is not the project's: %q", d.Origin, got)
	}
}
