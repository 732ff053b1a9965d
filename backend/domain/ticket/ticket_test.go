package ticket_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

func TestIssueVerify(t *testing.T) {
	t.Parallel()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	keys := signing.NewKeyring(priv)
	iss := ticket.NewIssuer(keys)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	built := ticket.TxSummary{
		Digest:         signedcheck.Digest{Blockhash: "bh", Sum: "sum", Instructions: []string{"f1", "f2"}},
		DonationWallet: "dw", Treasury: "tr",
	}
	tok, c, err := iss.Issue(ticket.Claims{Project: "p", Wallet: "w", GrossRebate: 2_039_280, Includes: []ticket.Item{{Type: "empty_account", Address: "a", Action: "close"}}, Summary: built}, now, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got, err := iss.Verify(tok)
	if err != nil || got.ID != c.ID || len(got.ID) != 32 || got.GrossRebate != 2_039_280 || got.Includes[0].Address != "a" {
		t.Fatalf("verify: %+v %v", got, err)
	}
	if got.Summary.Sum != "sum" || got.Summary.Blockhash != "bh" || len(got.Summary.Instructions) != 2 || got.Summary.DonationWallet != "dw" || got.Summary.Treasury != "tr" {
		t.Fatalf("built: %+v", got.Summary)
	}
	if got.Expired(now.Add(59*time.Second)) || !got.Expired(now.Add(60*time.Second)) {
		t.Fatal("expiry at exactly 60 s")
	}
	_, c2, _ := iss.Issue(ticket.Claims{}, now, time.Second)
	if c2.ID == c.ID {
		t.Fatal("jti reused")
	}
	// A session token is not a ticket, and an altered ticket is refused.
	sessionLike, _ := keys.Sign(signing.Type{Name: "reclaim-session+jwt", MaxLife: time.Hour}, c)
	parts := strings.Split(tok, ".")
	for name, bad := range map[string]string{
		"other type": sessionLike,
		"altered":    parts[0] + "." + parts[1][:len(parts[1])-3] + "AAA." + parts[2],
		"garbage":    "x",
	} {
		if _, err := iss.Verify(bad); err != ticket.ErrInvalid {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// A ticket never outlives its blockhash: Issue caps its life at MaxTTL.
func TestIssueCapsTTL(t *testing.T) {
	t.Parallel()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	iss := ticket.NewIssuer(signing.NewKeyring(priv))
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tok, c, err := iss.Issue(ticket.Claims{Project: "p"}, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if c.ExpiresAt-c.IssuedAt != int64(ticket.MaxTTL/time.Second) {
		t.Fatalf("life %d s, want %v", c.ExpiresAt-c.IssuedAt, ticket.MaxTTL)
	}
	if _, err := iss.Verify(tok); err != nil {
		t.Fatal(err)
	}
}

// The audit's attack on tickets: a signing key that leaks after its
// rotation forges a ticket that never expires. Refused, as is one that
// claims a life beyond MaxTTL from the current key; a ticket the key
// issued before it retired still verifies (a duplicate submit answers).
func TestVerifyRefusesForgedLifetimes(t *testing.T) {
	t.Parallel()
	_, oldKey, _ := ed25519.GenerateKey(rand.Reader)
	_, newKey, _ := ed25519.GenerateKey(rand.Reader)
	retiredAt := time.Now().Add(-time.Minute).Truncate(time.Second)
	oldPub, _ := oldKey.Public().(ed25519.PublicKey)
	iss := ticket.NewIssuer(signing.NewKeyring(newKey, signing.Accepted{Public: oldPub, RetiredAt: retiredAt}))
	leaked := signing.NewKeyring(oldKey)
	ticketType := signing.Type{Name: "reclaim-ticket+jwt", MaxLife: ticket.MaxTTL}
	forge := func(k *signing.Keyring, issued time.Time, life time.Duration) string {
		tok, err := k.Sign(ticketType, ticket.Claims{ID: "0123456789abcdef0123456789abcdef", Project: "p", Wallet: "w",
			GrossRebate: 1 << 40, IssuedAt: issued.Unix(), ExpiresAt: issued.Add(life).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	fiftyYears := 50 * 365 * 24 * time.Hour
	for name, tok := range map[string]string{
		"retired key, after rotation, 50 years": forge(leaked, time.Now(), fiftyYears),
		"retired key, after rotation, 60 s":     forge(leaked, time.Now(), ticket.MaxTTL),
		"retired key, backdated, 50 years":      forge(leaked, retiredAt.Add(-time.Second), fiftyYears),
		"current key, 50 years":                 forge(signing.NewKeyring(newKey), time.Now(), fiftyYears),
		"current key, 61 s":                     forge(signing.NewKeyring(newKey), time.Now(), ticket.MaxTTL+time.Second),
	} {
		if _, err := iss.Verify(tok); err != ticket.ErrInvalid {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := iss.Verify(forge(leaked, retiredAt.Add(-10*time.Second), ticket.MaxTTL)); err != nil {
		t.Errorf("a ticket issued before the key retired: %v", err)
	}
}
