// Package project holds the tenants of Reclaim: projects (the integrators) and
// the API keys that authenticate their backends, with the rules for creating
// and changing them. Service is the one place where projects are created and
// keys issued and revoked: the command line and the console both go through it.
//
// The package knows nothing of storage or HTTP: the storage package persists
// these types, the auth package computes and checks key hashes.
package project

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// ErrNotFound is returned when a project or API key does not exist.
var ErrNotFound = fault.New(fault.KindNotFound, "not found")

// ErrConflict is returned when a create would duplicate a unique value, such as
// the hash of an API key or an ID.
var ErrConflict = fault.New(fault.KindConflict, "conflict")

// MaxNameLen is the longest name of a project or an API key, in characters.
const MaxNameLen = 100

// ValidateName checks the name of a project or an API key (already trimmed):
// 1 to MaxNameLen characters. A value a person must correct is an invalid
// fault naming the form's field ("name", "donation_wallet", "origin").
func ValidateName(name string) error {
	if n := utf8.RuneCountInString(name); n == 0 || n > MaxNameLen {
		return fault.Invalid("name", "a name has 1 to %d characters", MaxNameLen)
	}
	return nil
}

// ValidateDonationWallet checks a donation wallet: empty (no donations) or a
// Solana address.
func ValidateDonationWallet(wallet string) error {
	if wallet == "" {
		return nil
	}
	if _, err := solana.PublicKeyFromBase58(wallet); err != nil {
		return fault.Invalid("donation_wallet", "%q is not a Solana address (base58 of 32 bytes)", wallet)
	}
	return nil
}

// New returns a project named name (trimmed) with the donation wallet
// (trimmed; "" for none), created at now, once both are valid. Its ID is
// given when it is stored.
func New(name, donationWallet string, now time.Time) (Project, error) {
	p := Project{Name: strings.TrimSpace(name), DonationWallet: strings.TrimSpace(donationWallet), CreatedAt: now.UTC()}
	if err := ValidateName(p.Name); err != nil {
		return Project{}, err
	}
	if err := ValidateDonationWallet(p.DonationWallet); err != nil {
		return Project{}, err
	}
	return p, nil
}

// Project is an integrator: the owner of API keys, the recipient of donations
// and the scope of stats and the leaderboard.
type Project struct {
	ID   string
	Name string
	// DonationWallet receives the donated share of rebates; "" if the project
	// has none.
	DonationWallet string
	CreatedAt      time.Time
}

// APIKey is a long-lived credential of a project. The key itself is shown once
// at creation and never stored: only its keyed hash is.
type APIKey struct {
	ID        string
	ProjectID string
	Name      string
	// Prefix is the first 12 characters of the key (e.g. "ak_live_AbCd"), kept
	// so a person can tell keys apart in the console.
	Prefix string
	// Hash is the keyed hash (HMAC-SHA256) of the whole key, computed by the
	// auth package.
	Hash       []byte
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Revoked reports whether the key has been revoked. A revoked key
// authenticates nothing, and neither do the sessions minted from it.
func (k APIKey) Revoked() bool {
	return k.RevokedAt != nil
}
