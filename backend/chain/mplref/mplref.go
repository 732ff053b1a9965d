// Package mplref checks our Metaplex instruction encoders against what
// Metaplex's own JS clients (e2e/mplclients) build for the same inputs: from
// node when it runs, else from the golden files node wrote. Tests only.
package mplref

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/pkg/npmci"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from Metaplex's JS clients")

// Instruction is an instruction as e2e/mplclients/instructions.js prints it.
type Instruction struct {
	ProgramID string `json:"programId"`
	Accounts  []struct {
		Pubkey     string `json:"pubkey"`
		IsSigner   bool   `json:"isSigner"`
		IsWritable bool   `json:"isWritable"`
	} `json:"accounts"`
	Data string `json:"data"`
}

// Result is what the JS script prints for one request.
type Result struct {
	Instructions []Instruction `json:"instructions"`
}

// Golden is one case of testdata/*.golden: the request sent to the JS client
// and what it built.
type Golden struct {
	Name     string         `json:"name"`
	Request  map[string]any `json:"request"`
	Expected Result         `json:"expected"`
}

// ToJS renders a Go instruction as the JS script prints one.
func ToJS(t testing.TB, ix solana.Instruction) Instruction {
	t.Helper()
	data, err := ix.Data()
	if err != nil {
		t.Fatal(err)
	}
	out := Instruction{ProgramID: ix.ProgramID().String(), Data: base64.StdEncoding.EncodeToString(data)}
	for _, m := range ix.Accounts() {
		out.Accounts = append(out.Accounts, struct {
			Pubkey     string `json:"pubkey"`
			IsSigner   bool   `json:"isSigner"`
			IsWritable bool   `json:"isWritable"`
		}{m.PublicKey.String(), m.IsSigner, m.IsWritable})
	}
	return out
}

// runJS builds the requests with Metaplex's JS clients (e2e/mplclients). It
// returns nil when node or the installed clients are missing, unless
// CI=true, where it installs them (npm ci) or fails.
func runJS(t testing.TB, requests []map[string]any) []Result {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "e2e", "mplclients"))
	if err != nil {
		t.Fatal(err)
	}
	ci := os.Getenv("CI") == "true"
	if _, err := exec.LookPath("node"); err != nil {
		if ci || *update {
			t.Fatalf("node is needed for the cross-check with Metaplex's JS clients: %v", err)
		}
		return nil
	}
	if !npmci.Installed(dir) {
		if !ci && !*update {
			return nil
		}
		install(t, dir)
	}
	in, err := json.Marshal(requests)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "instructions.js")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node instructions.js: %v\n%s", err, stderr.String())
	}
	var res []Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("decode JS output: %v\n%s", err, out)
	}
	return res
}

// install runs npm ci in dir once, whichever test binary asks first.
func install(t testing.TB, dir string) {
	t.Helper()
	if _, err := npmci.Ensure(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
}

// Expected gives the JS clients' instructions for cases: from node when it
// runs (rewriting path with -update, failing when path has drifted), else
// from path.
func Expected(t testing.TB, path string, cases []Golden) []Result {
	t.Helper()
	requests := make([]map[string]any, len(cases))
	for i, c := range cases {
		requests[i] = c.Request
	}
	fresh := runJS(t, requests)
	if fresh != nil {
		for i := range cases {
			cases[i].Expected = fresh[i]
		}
		b, err := json.MarshalIndent(cases, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, '\n')
		if *update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, b) {
			t.Errorf("%s differs from what Metaplex's JS clients build now (rerun with -update if intended)", path)
		}
		return fresh
	}
	t.Logf("node or e2e/mplclients/node_modules missing: comparing with %s only", path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update where node is available)", err)
	}
	var stored []Golden
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(cases) {
		t.Fatalf("%s has %d cases, the test %d (rerun with -update)", path, len(stored), len(cases))
	}
	out := make([]Result, len(stored))
	for i, g := range stored {
		if g.Name != cases[i].Name {
			t.Fatalf("%s case %d is %q, the test's %q (rerun with -update)", path, i, g.Name, cases[i].Name)
		}
		out[i] = g.Expected
	}
	return out
}

// Key is a fixed test address derived from name.
func Key(name string) solana.PublicKey {
	sum := sha256.Sum256([]byte(name))
	return solana.PublicKeyFromBytes(sum[:])
}
