// Package ticket issues and verifies submission tickets: signed statements
// that the service built one transaction, for one project and wallet, with
// the accounting it reported. A ticket carries the SHA-256 of the built
// message and a digest of its instructions (TxSummary), so a signed
// transaction can be checked against what was built, also once a wallet
// added its guards, and a unique jti, so a ticket is consumed at most once.
package ticket

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

// MaxTTL is the longest life of a ticket: a ticket never outlives its
// transaction, whose blockhash is valid for 150 blocks, 60 s at 400 ms a
// block. Issue never exceeds it and Verify refuses a ticket claiming more,
// whatever key signed it.
const MaxTTL = 60 * time.Second

// tokenType is the JWS type of tickets; session tokens have another.
var tokenType = signing.Type{Name: "reclaim-ticket+jwt", MaxLife: MaxTTL}

// ErrInvalid is a ticket this service did not issue, or one altered since.
var ErrInvalid = errors.New("invalid ticket")

// Item is one item a ticket's transaction covers.
type Item struct {
	Type    string `json:"type"`
	Address string `json:"address"`
	Action  string `json:"action"`
}

// Claims are what a ticket states.
type Claims struct {
	ID      string `json:"jti"`
	Project string `json:"prj"`
	Wallet  string `json:"sub"`
	// MessageHash is the base64url SHA-256 of the built message.
	MessageHash string `json:"mh"`
	Includes    []Item `json:"inc"`
	// Type is the ledger type of the transaction.
	Type        string `json:"typ"`
	GrossRebate uint64 `json:"gross"`
	// NetRebate is signed: a transaction of cNFT burns alone costs the
	// wallet its network fee.
	NetRebate      int64  `json:"net"`
	DonationAmount uint64 `json:"don"`
	// RentRebate is the part of GrossRebate that is rent, on which the
	// donation and the service fee are taken (the rest is the wallet's own
	// SOL); nil in tickets issued before it was kept.
	RentRebate *uint64 `json:"rent,omitempty"`
	NetworkFee uint64  `json:"nfee"`
	ServiceFee uint64  `json:"sfee"`
	Fees       uint64  `json:"fees"`
	// LastValidBlockHeight of the transaction's blockhash.
	LastValidBlockHeight uint64 `json:"lvbh"`
	// Summary describes the built transaction for the submit check and for
	// reading its landing; tickets issued before it have none.
	Summary   TxSummary `json:"blt"`
	IssuedAt  int64     `json:"iat"`
	ExpiresAt int64     `json:"exp"`
}

// TxSummary is what a ticket states about its transaction beyond the money:
// the digest of its instructions, against which submit checks a message a
// wallet changed by adding guards (signedcheck.Check), and the recipients
// of its transfers, whose balance changes the tracker reads once it lands.
type TxSummary struct {
	signedcheck.Digest
	// DonationWallet and Treasury receive the donation and the service fee,
	// base58; "" when the transaction has no such transfer.
	DonationWallet string `json:"dw,omitempty"`
	Treasury       string `json:"tr,omitempty"`
}

// Hash returns the message hash as it is carried in a ticket.
func Hash(sum [32]byte) string { return base64.RawURLEncoding.EncodeToString(sum[:]) }

// Expired reports whether the ticket has expired at now.
func (c Claims) Expired(now time.Time) bool { return now.Unix() >= c.ExpiresAt }

// Issuer signs and verifies tickets.
type Issuer struct {
	keys *signing.Keyring
}

// NewIssuer returns an Issuer signing with keys.
func NewIssuer(keys *signing.Keyring) *Issuer {
	return &Issuer{keys: keys}
}

// Issue signs c with a fresh jti, issued now and expiring after ttl (at
// most MaxTTL).
func (i *Issuer) Issue(c Claims, now time.Time, ttl time.Duration) (string, Claims, error) {
	ttl = min(ttl, MaxTTL)
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", Claims{}, err
	}
	c.ID = hex.EncodeToString(id)
	c.IssuedAt = now.Unix()
	c.ExpiresAt = now.Add(ttl).Unix()
	tok, err := i.keys.Sign(tokenType, c)
	return tok, c, err
}

// Verify checks a ticket's signature and lifetime (signing.Keyring.Verify:
// no longer than MaxTTL, issued before its key retired) and returns its
// claims. It does not look at expiry: a consumed ticket answers duplicate
// even once expired.
func (i *Issuer) Verify(token string) (Claims, error) {
	var c Claims
	if err := i.keys.Verify(token, tokenType, &c); err != nil || c.ID == "" {
		return Claims{}, ErrInvalid
	}
	return c, nil
}
