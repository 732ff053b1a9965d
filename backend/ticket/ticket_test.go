package ticket_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/signing"
	"github.com/reclaim-sol/reclaim/backend/ticket"
	"github.com/reclaim-sol/reclaim/backend/walletguard"
)

func TestIssueVerify(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	keys := signing.NewKeyring(priv)
	iss := ticket.NewIssuer(keys)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	built := ticket.Built{
		Digest:         walletguard.Digest{Blockhash: "bh", Sum: "sum", Instructions: []string{"f1", "f2"}},
		DonationWallet: "dw", Treasury: "tr",
	}
	tok, c, err := iss.Issue(ticket.Claims{Project: "p", Wallet: "w", GrossRebate: 2_039_280, Includes: []ticket.Item{{Type: "empty_account", Address: "a", Action: "close"}}, Built: built}, now, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got, err := iss.Verify(tok)
	if err != nil || got.ID != c.ID || len(got.ID) != 32 || got.GrossRebate != 2_039_280 || got.Includes[0].Address != "a" {
		t.Fatalf("verify: %+v %v", got, err)
	}
	if got.Built.Sum != "sum" || got.Built.Blockhash != "bh" || len(got.Built.Instructions) != 2 || got.Built.DonationWallet != "dw" || got.Built.Treasury != "tr" {
		t.Fatalf("built: %+v", got.Built)
	}
	if got.Expired(now.Add(59*time.Second)) || !got.Expired(now.Add(60*time.Second)) {
		t.Fatal("expiry at exactly 60 s")
	}
	_, c2, _ := iss.Issue(ticket.Claims{}, now, time.Second)
	if c2.ID == c.ID {
		t.Fatal("jti reused")
	}
	// A session token is not a ticket, and an altered ticket is refused.
	sessionLike, _ := keys.Sign("reclaim-session+jwt", c)
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
