package signing_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/signing"
)

type claims struct {
	Sub string `json:"sub"`
}

func newKeyring(t *testing.T) (*signing.Keyring, ed25519.PrivateKey) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signing.NewKeyring(priv), priv
}

func TestSignVerify(t *testing.T) {
	k, _ := newKeyring(t)
	other, _ := newKeyring(t)
	tok, err := k.Sign("a+jwt", claims{Sub: "w"})
	if err != nil {
		t.Fatal(err)
	}
	var c claims
	if err := k.Verify(tok, "a+jwt", &c); err != nil || c.Sub != "w" {
		t.Fatalf("verify: %v %v", c, err)
	}
	parts := strings.Split(tok, ".")
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"x"}`)) + "." + parts[2]
	cases := map[string]struct{ token, typ string }{
		"other type":      {tok, "b+jwt"},
		"other key":       {mustSign(t, other, "a+jwt"), "a+jwt"},
		"forged claims":   {forged, "a+jwt"},
		"two parts":       {parts[0] + "." + parts[1], "a+jwt"},
		"empty":           {"", "a+jwt"},
		"huge":            {strings.Repeat("a", 20000), "a+jwt"},
		"unknown claims":  {mustSignRaw(t, k, map[string]any{"sub": "w", "admin": true}), "a+jwt"},
		"alg none header": {base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"a+jwt"}`)) + "." + parts[1] + ".", "a+jwt"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var c claims
			if err := k.Verify(tc.token, tc.typ, &c); err != signing.ErrInvalid {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
}

func mustSign(t *testing.T, k *signing.Keyring, typ string) string {
	t.Helper()
	s, err := k.Sign(typ, claims{Sub: "w"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustSignRaw(t *testing.T, k *signing.Keyring, c map[string]any) string {
	t.Helper()
	s, err := k.Sign("a+jwt", c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadKeyringPersistsAndRotates(t *testing.T) {
	dir := t.TempDir()
	k1, err := signing.LoadKeyring(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	tok := mustSign(t, k1, "a+jwt")
	k2, err := signing.LoadKeyring(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	var c claims
	if err := k2.Verify(tok, "a+jwt", &c); err != nil {
		t.Fatalf("a reloaded keyring must verify: %v", err)
	}
	info, err := os.Stat(filepath.Join(dir, "signer.ed25519"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v %v, want 0600", info.Mode(), err)
	}
	// Rotate: retire the old key, a new one signs, old tokens still verify.
	if err := os.MkdirAll(filepath.Join(dir, "retired"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "signer.ed25519"), filepath.Join(dir, "retired", "old.ed25519")); err != nil {
		t.Fatal(err)
	}
	k3, err := signing.LoadKeyring(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := k3.Verify(tok, "a+jwt", &c); err != nil {
		t.Fatalf("retired key must still verify: %v", err)
	}
	if newTok := mustSign(t, k3, "a+jwt"); strings.Split(newTok, ".")[0] == strings.Split(tok, ".")[0] {
		t.Fatal("the new key has the old kid")
	}
}

func TestLoadKeyringConfiguredSeed(t *testing.T) {
	seed := base64.StdEncoding.EncodeToString(make([]byte, 32))
	a, err := signing.LoadKeyring(t.TempDir(), seed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := signing.LoadKeyring(t.TempDir(), seed)
	if err != nil {
		t.Fatal(err)
	}
	var c claims
	if err := b.Verify(mustSign(t, a, "a+jwt"), "a+jwt", &c); err != nil {
		t.Fatalf("instances sharing a configured seed must verify each other: %v", err)
	}
	if _, err := signing.LoadKeyring(t.TempDir(), "short"); err == nil {
		t.Fatal("a bad seed must be refused")
	}
}

// Instances starting at once on one data dir agree on one secret.
func TestLoadOrCreateSecretConcurrent(t *testing.T) {
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
