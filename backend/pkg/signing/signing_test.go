package signing_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

// aType is a token type whose tokens live at most an hour.
var aType = signing.Type{Name: "a+jwt", MaxLife: time.Hour}

type claims struct {
	Sub string `json:"sub"`
	Iat int64  `json:"iat"`
	Exp int64  `json:"exp"`
}

// now is the tests' present; the keyrings' clocks read it.
var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func fixed() time.Time { return now }

// fresh returns claims issued now for d.
func fresh(d time.Duration) claims {
	return claims{Sub: "w", Iat: now.Unix(), Exp: now.Add(d).Unix()}
}

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

func newKeyring(t *testing.T) *signing.Keyring {
	t.Helper()
	return signing.NewKeyring(newKey(t)).WithClock(fixed)
}

func sign(t *testing.T, k *signing.Keyring, typ signing.Type, c any) string {
	t.Helper()
	s, err := k.Sign(typ, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSignVerify(t *testing.T) {
	t.Parallel()
	k := newKeyring(t)
	other := newKeyring(t)
	tok := sign(t, k, aType, fresh(time.Minute))
	var c claims
	if err := k.Verify(tok, aType, &c); err != nil || c.Sub != "w" {
		t.Fatalf("verify: %v %v", c, err)
	}
	parts := strings.Split(tok, ".")
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"x"}`)) + "." + parts[2]
	bType := signing.Type{Name: "b+jwt", MaxLife: time.Hour}
	cases := map[string]struct {
		token string
		typ   signing.Type
	}{
		"other type":      {tok, bType},
		"other key":       {sign(t, other, aType, fresh(time.Minute)), aType},
		"forged claims":   {forged, aType},
		"two parts":       {parts[0] + "." + parts[1], aType},
		"empty":           {"", aType},
		"huge":            {strings.Repeat("a", 20000), aType},
		"unknown claims":  {sign(t, k, aType, map[string]any{"sub": "w", "iat": now.Unix(), "exp": now.Unix() + 60, "admin": true}), aType},
		"alg none header": {base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"a+jwt"}`)) + "." + parts[1] + ".", aType},
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

// Every token's life is checked against its type's, whatever key signed
// it; a retired key's tokens verify only if issued before it retired.
func TestVerifyLifetime(t *testing.T) {
	t.Parallel()
	current, next, retired := newKey(t), newKey(t), newKey(t)
	retiredAt := now.Add(-10 * time.Minute)
	k := signing.NewKeyring(current,
		signing.Accepted{Public: pub(next)},
		signing.Accepted{Public: pub(retired), RetiredAt: retiredAt},
	).WithClock(fixed)
	at := func(issued time.Time, life time.Duration) claims {
		return claims{Sub: "w", Iat: issued.Unix(), Exp: issued.Add(life).Unix()}
	}
	fiftyYears := 50 * 365 * 24 * time.Hour
	tests := []struct {
		name   string
		signer ed25519.PrivateKey
		claims any
		ok     bool
	}{
		{"current, an hour", current, at(now, time.Hour), true},
		{"current, a second", current, at(now, time.Second), true},
		{"current, an hour and a second", current, at(now, time.Hour+time.Second), false},
		{"current, 50 years", current, at(now, fiftyYears), false},
		{"current, expiring when issued", current, at(now, 0), false},
		{"current, expiring before issued", current, at(now, -time.Second), false},
		{"current, no iat", current, map[string]any{"sub": "w", "exp": now.Unix() + 60}, false},
		{"current, no exp", current, map[string]any{"sub": "w", "iat": now.Unix()}, false},
		{"current, fractional iat", current, map[string]any{"sub": "w", "iat": 1.5, "exp": 60}, false},
		{"current, issued a minute ahead (skew)", current, at(now.Add(signing.MaxClockSkew), time.Minute), true},
		{"current, issued beyond the skew", current, at(now.Add(signing.MaxClockSkew+time.Second), time.Minute), false},
		{"current, issued a year ahead", current, at(now.AddDate(1, 0, 0), time.Hour), false},
		{"current, issued long ago", current, at(now.AddDate(-1, 0, 0), time.Hour), true}, // expiry is the caller's
		{"next, not signing yet", next, at(now, time.Hour), true},
		{"retired, issued before retiring", retired, at(retiredAt.Add(-time.Second), time.Hour), true},
		{"retired, issued as it retired", retired, at(retiredAt, time.Hour), false},
		{"retired, issued after retiring", retired, at(now, time.Minute), false},
		{"retired, after retiring, 50 years", retired, at(now, fiftyYears), false},
		{"retired, before retiring, 50 years", retired, at(retiredAt.Add(-time.Minute), fiftyYears), false},
		{"unknown key", newKey(t), at(now, time.Minute), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := sign(t, signing.NewKeyring(tt.signer), aType, tt.claims)
			var c claims
			err := k.Verify(tok, aType, &c)
			if tt.ok && err != nil {
				t.Fatalf("got %v, want accepted", err)
			}
			if !tt.ok && err != signing.ErrInvalid {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
}

func pub(k ed25519.PrivateKey) ed25519.PublicKey {
	p, _ := k.Public().(ed25519.PublicKey)
	return p
}
