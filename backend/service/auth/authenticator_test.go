package auth_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// fakeStore holds API keys by id.
type fakeStore struct {
	keys map[string]project.APIKey
}

func (s fakeStore) APIKeyByHash(context.Context, []byte) (project.APIKey, error) {
	return project.APIKey{}, project.ErrNotFound
}

func (s fakeStore) APIKeyByID(_ context.Context, id string) (project.APIKey, error) {
	k, ok := s.keys[id]
	if !ok {
		return k, project.ErrNotFound
	}
	return k, nil
}

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

var wallet = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

// sessionClaims are a session token's claims as the wire has them, for
// forging.
func sessionClaims(iat, exp time.Time) map[string]any {
	return map[string]any{
		"iss": "reclaim", "sub": wallet, "prj": "prj_1", "akid": "key_1", "scp": auth.AllScopes,
		"iat": iat.Unix(), "exp": exp.Unix(), "jti": "0123456789abcdef0123456789abcdef",
	}
}

// The audit's attack: after a rotation, a session token signed with the
// retired key (leaked), exp 50 years out, must be refused; the sessions it
// issued before retiring live out their lifetime.
func TestSessionOfRetiredKey(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Second)
	clock := func() time.Time { return now }
	oldKey, newKeyPriv := newKey(t), newKey(t)
	store := fakeStore{keys: map[string]project.APIKey{"key_1": {ID: "key_1", ProjectID: "prj_1"}}}
	caller := auth.Principal{Kind: auth.KindAPIKey, ProjectID: "prj_1", APIKeyID: "key_1"}
	req := auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: auth.MaxSessionTTL}

	before := signing.NewKeyring(oldKey)
	genuine, _, err := auth.NewIssuer(before, clock).Issue(caller, req)
	if err != nil {
		t.Fatal(err)
	}
	// Rotated a minute later: the new key signs, the old one retired.
	now = now.Add(time.Minute)
	oldPub, _ := oldKey.Public().(ed25519.PublicKey)
	after := signing.NewKeyring(newKeyPriv, signing.Accepted{Public: oldPub, RetiredAt: now})
	a := auth.NewAuthenticator(store, auth.NewHasher(make([]byte, 32)), after, time.Minute, clock)
	now = now.Add(time.Minute)

	if _, err := a.Session(context.Background(), genuine); err != nil {
		t.Fatalf("a session issued before the rotation: %v", err)
	}
	fresh, _, err := auth.NewIssuer(after, clock).Issue(caller, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session(context.Background(), fresh); err != nil {
		t.Fatalf("a session of the new key: %v", err)
	}
	fiftyYears := now.AddDate(50, 0, 0)
	forge := func(k ed25519.PrivateKey, iat, exp time.Time) string {
		tok, err := signing.NewKeyring(k).Sign(signing.Type{Name: "reclaim-session+jwt", MaxLife: auth.MaxSessionTTL}, sessionClaims(iat, exp))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for name, tok := range map[string]string{
		"retired key, after rotation, exp in 50 years": forge(oldKey, now, fiftyYears),
		"retired key, after rotation, an hour":         forge(oldKey, now, now.Add(time.Hour)),
		"retired key, backdated, exp in 50 years":      forge(oldKey, now.Add(-time.Hour), fiftyYears),
		"current key, exp in 50 years":                 forge(newKeyPriv, now, fiftyYears),
		"current key, issued in a day":                 forge(newKeyPriv, now.Add(24*time.Hour), now.Add(25*time.Hour)),
	} {
		_, err := a.Session(context.Background(), tok)
		if authErr, ok := fault.As(err, fault.KindUnauthenticated); !ok || authErr.Error() != "invalid session token" {
			t.Errorf("%s: %v, want invalid session token", name, err)
		}
		if p, ok := a.SessionProject(tok); ok {
			t.Errorf("%s: SessionProject found %s", name, p)
		}
	}
}
