package signing_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

func load(t *testing.T, dir string, s signing.Settings) *signing.Keyring {
	t.Helper()
	k, err := signing.LoadKeyring(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	return k.WithClock(fixed)
}

func verifies(k *signing.Keyring, tok string) bool {
	var c claims
	return k.Verify(tok, aType, &c) == nil
}

func TestLoadKeyringPersists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k1 := load(t, dir, signing.Settings{})
	tok := sign(t, k1, aType, fresh(time.Minute))
	if k2 := load(t, dir, signing.Settings{}); !verifies(k2, tok) || k2.SignerID() != k1.SignerID() {
		t.Fatal("a reloaded keyring must sign with the same key")
	}
	info, err := os.Stat(filepath.Join(dir, "signer.ed25519"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v %v, want 0600", info.Mode(), err)
	}
}

func TestLoadKeyringConfiguredSeed(t *testing.T) {
	t.Parallel()
	seed := base64.StdEncoding.EncodeToString(make([]byte, 32))
	a := load(t, t.TempDir(), signing.Settings{Signer: seed})
	b := load(t, t.TempDir(), signing.Settings{Signer: seed})
	if !verifies(b, sign(t, a, aType, fresh(time.Minute))) {
		t.Fatal("instances sharing a configured seed must verify each other")
	}
	bad := map[string]signing.Settings{
		"short seed":       {Signer: "short"},
		"short next":       {Signer: seed, Next: "c2hvcnQ="},
		"retired no time":  {Signer: seed, Retired: base64.StdEncoding.EncodeToString(make([]byte, 32))},
		"retired bad key":  {Signer: seed, Retired: "AAAA@2026-01-01T00:00:00Z"},
		"retired bad time": {Signer: seed, Retired: base64.StdEncoding.EncodeToString(make([]byte, 32)) + "@yesterday"},
	}
	for name, s := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := signing.LoadKeyring(t.TempDir(), s)
			if err == nil {
				t.Fatal("want an error")
			}
			if strings.Contains(err.Error(), "AAAA") || strings.Contains(err.Error(), "yesterday") {
				t.Fatalf("the error %q quotes the setting", err)
			}
		})
	}
}

// A key retired by hand before retirement times existed (a seed moved into
// retired/) counts as retired when its file was last written.
func TestLoadKeyringLegacyRetiredFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := load(t, dir, signing.Settings{})
	before := sign(t, old, aType, fresh(time.Minute))
	if err := os.MkdirAll(filepath.Join(dir, "retired"), 0o700); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(dir, "retired", "old.ed25519")
	if err := os.Rename(filepath.Join(dir, "signer.ed25519"), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(moved, now, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	k := load(t, dir, signing.Settings{})
	if !verifies(k, before) {
		t.Fatal("a token issued before the file's time must verify")
	}
	later := now.Add(2 * time.Second)
	if verifies(k, sign(t, old, aType, claims{Iat: later.Unix(), Exp: later.Add(time.Minute).Unix()})) {
		t.Fatal("a token issued after the file's time must not")
	}
}

// Instances starting at once on one data dir agree on one secret.
func TestLoadOrCreateSecretConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "keys", "s")
	const n = 16
	got := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := signing.LoadOrCreateSecret(path, 32)
			if err != nil {
				t.Error(err)
			}
			got[i] = b
		}()
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if string(got[i]) != string(got[0]) {
			t.Fatal("processes disagree on the secret")
		}
	}
}
