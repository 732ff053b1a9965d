package auth_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mr-tron/base58"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

var pepper = bytes.Repeat([]byte{7}, 32)

// A minted key is shown once: it has the contract's prefix, 32 random
// bytes, a display prefix that is its start, and the hash stored for it is
// the pepper's HMAC-SHA256, never the key.
func TestMintedKey(t *testing.T) {
	t.Parallel()
	h := auth.NewHasher(pepper)
	key, prefix, hash, err := h.Mint()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(key, auth.APIKeyPrefix) || !strings.HasPrefix(key, prefix) || len(prefix) != 12 {
		t.Fatalf("key %q, display prefix %q", key, prefix)
	}
	if b, err := base58.Decode(key[len(auth.APIKeyPrefix):]); err != nil || len(b) != 32 {
		t.Fatalf("key body: %d bytes, %v; want 32", len(b), err)
	}
	mac := hmac.New(sha256.New, pepper)
	mac.Write([]byte(key))
	if !bytes.Equal(hash, mac.Sum(nil)) || bytes.Contains(hash, []byte(key)) {
		t.Fatalf("hash %x is not HMAC-SHA256(pepper, key)", hash)
	}
	if !bytes.Equal(h.Hash(key), hash) {
		t.Fatal("Hash differs from Mint's hash")
	}
	if bytes.Equal(auth.NewHasher(bytes.Repeat([]byte{8}, 32)).Hash(key), hash) {
		t.Fatal("another pepper gives the same hash: a stolen database would match")
	}
	other, _, _, err := h.Mint()
	if err != nil || other == key {
		t.Fatalf("two mints gave %q and %q (%v)", key, other, err)
	}
}

// The hasher keeps its own copy of the pepper: a caller that clears or
// reuses its buffer does not change the hashes of stored keys.
func TestHasherCopiesPepper(t *testing.T) {
	t.Parallel()
	p := bytes.Clone(pepper)
	h := auth.NewHasher(p)
	before := h.Hash("ak_live_x")
	clear(p)
	if !bytes.Equal(h.Hash("ak_live_x"), before) {
		t.Fatal("the hash changed with the caller's buffer")
	}
}

// apiKeyFixture is an authenticator over a store of one key, minted, and
// the key in clear.
func apiKeyFixture(t *testing.T) (*auth.Authenticator, *keyStore, *clocktest.Clock, string, project.APIKey) {
	t.Helper()
	h := auth.NewHasher(pepper)
	key, prefix, hash, err := h.Mint()
	if err != nil {
		t.Fatal(err)
	}
	k := project.APIKey{ID: "key_1", ProjectID: "prj_1", Prefix: prefix, Hash: hash}
	store := newKeyStore(k)
	clock := clocktest.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	a := auth.NewAuthenticator(store, h, signing.NewKeyring(newKey(t)), time.Minute, clock.Now)
	return a, store, clock, key, k
}

// What an attacker sends as an API key: only the key minted is let in; a
// key that is not one of ours is refused before it costs a lookup; every
// refusal is the same 401, so it does not tell which keys exist.
func TestAPIKeyCredentials(t *testing.T) {
	t.Parallel()
	a, store, _, key, _ := apiKeyFixture(t)
	other, _, _, err := auth.NewHasher(pepper).Mint()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		key    string
		lookup bool // reaches the store
	}{
		{"another well-formed key", other, true},
		{"the key with a character changed", key[:len(key)-1] + flip(key[len(key)-1]), true},
		{"the display prefix alone", key[:12], false},
		{"the key without its prefix", strings.TrimPrefix(key, auth.APIKeyPrefix), false},
		{"a test key's prefix", "ak_test_" + key[len(auth.APIKeyPrefix):], false},
		{"not base58", auth.APIKeyPrefix + "0OIl" + key[12:], false},
		{"too short", key[:len(key)-8], false},
		{"too long", key + strings.Repeat("1", 101), false},
		{"the key twice", key + key[len(auth.APIKeyPrefix):], false},
		{"the hash in hex", auth.APIKeyPrefix + "deadbeef", false},
	} {
		reads := store.hashReads()
		_, err := a.Authenticate(context.Background(), c.key, "")
		if f, ok := fault.As(err, fault.KindUnauthenticated); !ok || f.Error() != "invalid API key" {
			t.Errorf("%s: %v, want invalid API key", c.name, err)
		}
		if looked := store.hashReads() > reads; looked != c.lookup {
			t.Errorf("%s: looked up %v, want %v", c.name, looked, c.lookup)
		}
	}
	p, err := a.Authenticate(context.Background(), key, "")
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Principal{Kind: auth.KindAPIKey, ProjectID: "prj_1", APIKeyID: "key_1"}
	if p.Kind != want.Kind || p.ProjectID != want.ProjectID || p.APIKeyID != want.APIKeyID || p.Wallet != "" || p.Scopes != nil {
		t.Fatalf("principal %+v, want %+v", p, want)
	}
}

// flip changes a base58 character into another.
func flip(c byte) string {
	if c == '2' {
		return "3"
	}
	return "2"
}

// The store is not trusted to have matched the hash: a row whose hash is
// not the key's (a lookup by prefix, a collation that folds case) is
// refused by the constant-time compare.
func TestAPIKeyHashComparedAgain(t *testing.T) {
	t.Parallel()
	a, store, _, key, k := apiKeyFixture(t)
	for name, hash := range map[string][]byte{
		"another hash":       bytes.Repeat([]byte{1}, 32),
		"the hash truncated": k.Hash[:16],
		"no hash":            nil,
	} {
		store.mu.Lock()
		store.lookup = func([]byte) (project.APIKey, error) {
			return project.APIKey{ID: "key_1", ProjectID: "prj_1", Hash: hash}, nil
		}
		store.mu.Unlock()
		_, err := a.Authenticate(context.Background(), key, "")
		if f, ok := fault.As(err, fault.KindUnauthenticated); !ok || f.Error() != "invalid API key" {
			t.Errorf("%s: %v, want invalid API key", name, err)
		}
	}
}

// A revoked key stops at once, with a message that says what to do; a
// store that cannot answer is a 503 to retry, not a 401 that would make
// the integrator throw its key away.
func TestAPIKeyRevokedAndStoreDown(t *testing.T) {
	t.Parallel()
	a, store, clock, key, k := apiKeyFixture(t)
	if _, err := a.Authenticate(context.Background(), key, ""); err != nil {
		t.Fatal(err)
	}
	k.RevokedAt = new(clock.Now())
	store.set(k)
	_, err := a.Authenticate(context.Background(), key, "")
	if f, ok := fault.As(err, fault.KindUnauthenticated); !ok || f.Error() != "API key revoked: create a new key on the console's API keys page" {
		t.Fatalf("revoked: %v", err)
	}
	down := errors.New("connection refused")
	store.fail(down)
	_, err = a.Authenticate(context.Background(), key, "")
	f, ok := fault.As(err, fault.KindUnavailable)
	if !ok || !errors.Is(err, down) || strings.Contains(f.Error(), "connection refused") {
		t.Fatalf("store down: %v (the cause is for the log, not the caller)", err)
	}
}

// A key's last use is recorded in the background, at most once a minute:
// requests within the minute do not write.
func TestAPIKeyUseRecordedOnceAMinute(t *testing.T) {
	t.Parallel()
	a, store, clock, key, _ := apiKeyFixture(t)
	touched := make(chan touch, 10)
	store.mu.Lock()
	store.touched = touched
	store.mu.Unlock()
	ctx := context.Background()
	if _, err := a.Authenticate(ctx, key, ""); err != nil {
		t.Fatal(err)
	}
	first := receive(t, touched)
	if first.id != "key_1" || !first.at.Equal(clock.Now()) {
		t.Fatalf("touched %+v, want key_1 at %v", first, clock.Now())
	}
	clock.Advance(59 * time.Second)
	for range 3 {
		if _, err := a.Authenticate(ctx, key, ""); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Second)
	if _, err := a.Authenticate(ctx, key, ""); err != nil {
		t.Fatal(err)
	}
	// Touches are sent in order of the requests: the next one is the
	// request a minute later, none of those within it.
	if next := receive(t, touched); !next.at.Equal(first.at.Add(time.Minute)) {
		t.Fatalf("touched at %v, want %v (a minute later, none between)", next.at, first.at.Add(time.Minute))
	}
}

// receive waits for one value of ch, failing t after a minute.
func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatal("nothing received")
	}
	panic("unreachable")
}
