// Package project holds the tenants of Reclaim: projects (the integrators) and
// the API keys that authenticate their backends.
//
// The package knows nothing of storage or HTTP: the storage package persists
// these types, the auth package computes and checks key hashes.
package project

import (
	"errors"
	"time"
)

// ErrNotFound is returned when a project or API key does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a create would duplicate a unique value, such as
// the hash of an API key or an ID.
var ErrConflict = errors.New("conflict")

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
