package auth

import (
	"crypto/ed25519"
	"strconv"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

// A session token's signature is verified once: the second request finds
// its claims in memory; a token that fails verification is never kept.
func TestSessionVerifiedOnce(t *testing.T) {
	t.Parallel()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Truncate(time.Second)
	keys := signing.NewKeyring(priv)
	a := NewAuthenticator(nil, nil, keys, time.Second, func() time.Time { return now })
	token, _, err := NewIssuer(keys, func() time.Time { return now }).Issue(
		Principal{Kind: KindAPIKey, ProjectID: "prj_1", APIKeyID: "key_1"},
		SessionRequest{Wallet: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", Scopes: AllScopes, TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.verified.get(token, now); ok {
		t.Fatal("remembered before its first use")
	}
	if p, ok := a.SessionProject(token); !ok || p != "prj_1" {
		t.Fatalf("SessionProject: %q %v", p, ok)
	}
	if c, ok := a.verified.get(token, now); !ok || c.Project != "prj_1" {
		t.Fatal("not remembered after its verification")
	}
	forged := token[:len(token)-4] + "AAAA"
	if _, ok := a.verify(forged); ok {
		t.Fatal("a forged signature verified")
	}
	if _, ok := a.verified.get(forged, now); ok {
		t.Fatal("a forged token remembered")
	}
}

// The memory of verified sessions is bounded: full, it starts over.
func TestVerifiedSessionsBounded(t *testing.T) {
	t.Parallel()
	var v verifiedSessions
	for i := range maxVerifiedSessions + 10 {
		v.put("token-"+strconv.Itoa(i), sessionClaims{ExpiresAt: 1 << 40})
	}
	if n := len(v.claims); n > maxVerifiedSessions {
		t.Fatalf("%d kept, at most %d", n, maxVerifiedSessions)
	}
}
