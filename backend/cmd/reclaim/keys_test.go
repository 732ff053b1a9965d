package main

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

// startServerEnv runs `reclaim serve` in the environment env, which names
// its data directory, and returns its base URL.
func startServerEnv(t *testing.T, env map[string]string) (url string, stop func()) {
	t.Helper()
	url, _, stop = serveWith(t, env["RECLAIM_DATA_DIR"], env)
	return url, stop
}

// tenant makes a project and an API key and mints a session over the API.
func tenant(t *testing.T, env map[string]string, url string) (key, session string) {
	t.Helper()
	id, err := cliEnv(t, env, "project", "create", "--name", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	key, err = cliEnv(t, env, "apikey", "create", "--project", strings.TrimSpace(id))
	if err != nil {
		t.Fatal(err)
	}
	key = strings.TrimSpace(key)
	return key, mint(t, url, key)
}

func mint(t *testing.T, url, key string) string {
	t.Helper()
	code, sess := post(t, url+"/v1/sessions", key, map[string]any{"walletAddress": solana.NewWallet().PublicKey().String()})
	if code != 200 {
		t.Fatalf("session: %d %v", code, sess)
	}
	return sess["token"].(string)
}

// forge re-signs a session token's claims, changed by edit, with key: what
// an attacker who copied a signing key can do.
func forge(t *testing.T, token string, key ed25519.PrivateKey, edit func(claims map[string]any)) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatal(err)
	}
	edit(claims)
	forged, err := signing.NewKeyring(key).Sign(signing.Type{Name: "reclaim-session+jwt"}, claims)
	if err != nil {
		t.Fatal(err)
	}
	return forged
}

// afterRotation dates a token after the rotation, and lets it live life.
func afterRotation(life time.Duration) func(map[string]any) {
	return func(c map[string]any) {
		iat := time.Now().Add(2 * time.Second)
		c["iat"], c["exp"] = iat.Unix(), iat.Add(life).Unix()
	}
}

func seedKey(t *testing.T, b64 string) ed25519.PrivateKey {
	t.Helper()
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil || len(seed) != ed25519.SeedSize {
		t.Fatalf("seed: %v", err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

// assertRetired is the audit's attack on a rotated deployment: sessions the
// retired key signed after its retirement (it leaked), with exp 50 years
// out or an ordinary life, are refused; its genuine session lives on, and
// so does the new key's.
func assertRetired(t *testing.T, url string, leaked ed25519.PrivateKey, genuine, fresh string) {
	t.Helper()
	for name, tok := range map[string]string{
		"exp in 50 years": forge(t, genuine, leaked, afterRotation(50*365*24*time.Hour)),
		"five minutes":    forge(t, genuine, leaked, afterRotation(5*time.Minute)),
	} {
		if code := get(t, url+"/v1/stats", tok); code != 401 {
			t.Errorf("a session the retired key signed after the rotation (%s): %d, want 401", name, code)
		}
	}
	if code := get(t, url+"/v1/stats", genuine); code != 200 {
		t.Errorf("a session issued before the rotation: %d, want 200 until it expires", code)
	}
	if code := get(t, url+"/v1/stats", fresh); code != 200 {
		t.Errorf("a session of the new key: %d, want 200", code)
	}
}

// reclaim keys rotate on the data directory's keys, as one instance
// without RECLAIM_SIGNING_KEY keeps them.
func TestKeysRotateDataDir(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"RECLAIM_DATA_DIR": dir}
	url, stop := startServerEnv(t, env)
	key, genuine := tenant(t, env, url)
	seed, err := os.ReadFile(filepath.Join(dir, "keys", "signer.ed25519"))
	if err != nil {
		t.Fatal(err)
	}
	leaked := seedKey(t, string(seed))

	if out, err := cliEnv(t, env, "keys", "rotate", "--prepare"); err != nil || !strings.Contains(out, "next signing key") {
		t.Fatalf("keys rotate --prepare: %q %v", out, err)
	}
	out, err := cliEnv(t, env, "keys", "rotate", "--grace", "0s")
	if err != nil || !strings.Contains(out, "retires at") {
		t.Fatalf("keys rotate: %q %v", out, err)
	}
	stop()
	url, stop = startServerEnv(t, env)
	defer stop()
	assertRetired(t, url, leaked, genuine, mint(t, url, key))
}

// envFile reads the settings `reclaim keys rotate` prints.
func envFile(t *testing.T, out string) map[string]string {
	t.Helper()
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if line := sc.Text(); !strings.HasPrefix(line, "#") {
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("line %q is not a setting", line)
			}
			m[k] = v
		}
	}
	return m
}

// reclaim keys rotate with the keys in the environment, as instances that
// share a database have them: it prints each step's settings, and an
// instance on either side of a step accepts the other's tokens.
func TestKeysRotateSettings(t *testing.T) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		t.Fatal(err)
	}
	old := map[string]string{"RECLAIM_DATA_DIR": t.TempDir(), "RECLAIM_SIGNING_KEY": base64.StdEncoding.EncodeToString(seed)}
	url, stop := startServerEnv(t, old)
	key, genuine := tenant(t, old, url)
	stop()

	out, err := cliEnv(t, old, "keys", "rotate", "--prepare")
	if err != nil {
		t.Fatal(err)
	}
	step1 := maps.Clone(old)
	maps.Copy(step1, envFile(t, out))
	if len(step1) != 3 || step1["RECLAIM_NEXT_SIGNING_KEY"] == "" {
		t.Fatalf("--prepare printed %q", out)
	}
	out, err = cliEnv(t, step1, "keys", "rotate", "--grace", "0s")
	if err != nil {
		t.Fatal(err)
	}
	step2 := maps.Clone(old)
	maps.Copy(step2, envFile(t, out))
	if step2["RECLAIM_SIGNING_KEY"] != step1["RECLAIM_NEXT_SIGNING_KEY"] || step2["RECLAIM_NEXT_SIGNING_KEY"] != "" || step2["RECLAIM_RETIRED_SIGNING_KEYS"] == "" {
		t.Fatalf("rotate printed %q", out)
	}
	if strings.Contains(out, old["RECLAIM_SIGNING_KEY"]) {
		t.Fatal("the settings after the rotation still carry the old seed")
	}

	// An instance already rotated signs with the new key; one still at
	// step 1 accepts those tokens (and its own, until it restarts).
	url, stop = startServerEnv(t, step2)
	fresh := mint(t, url, key)
	stop()
	url, stop = startServerEnv(t, step1)
	if code := get(t, url+"/v1/stats", fresh); code != 200 {
		t.Fatalf("an instance at step 1 refused the new key's session: %d", code)
	}
	stop()
	url, stop = startServerEnv(t, step2)
	defer stop()
	assertRetired(t, url, seedKey(t, old["RECLAIM_SIGNING_KEY"]), genuine, fresh)
}

func TestKeysRotateRejections(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"nothing to rotate", map[string]string{"RECLAIM_DATA_DIR": dir}, []string{"keys", "rotate"}, "no signing key"},
		{"negative grace", map[string]string{"RECLAIM_DATA_DIR": dir}, []string{"keys", "rotate", "--grace", "-1m"}, "--grace"},
		{"prepared twice", map[string]string{"RECLAIM_SIGNING_KEY": base64.StdEncoding.EncodeToString(make([]byte, 32)),
			"RECLAIM_NEXT_SIGNING_KEY": base64.StdEncoding.EncodeToString(make([]byte, 32))}, []string{"keys", "rotate", "--prepare"}, "set already"},
		{"bad retired list", map[string]string{"RECLAIM_RETIRED_SIGNING_KEYS": "nope"}, []string{"keys", "rotate"}, "RECLAIM_RETIRED_SIGNING_KEYS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := cliEnv(t, tc.env, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || out != "" {
				t.Fatalf("got %q, %v; want an error containing %q and no stdout", out, err, tc.want)
			}
		})
	}
}
