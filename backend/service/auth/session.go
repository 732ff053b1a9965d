package auth

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/address"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

// Session lifetimes of the contract.
const (
	DefaultSessionTTL = 300 * time.Second
	MaxSessionTTL     = 3600 * time.Second
)

// sessionType is the JWS type of session tokens: no key, current or
// retired, makes one that claims a longer life than a session may have.
var sessionType = signing.Type{Name: "reclaim-session+jwt", MaxLife: MaxSessionTTL}

// sessionClaims are the claims of a session token.
type sessionClaims struct {
	Issuer    string   `json:"iss"`
	Subject   string   `json:"sub"` // wallet
	Project   string   `json:"prj"`
	APIKeyID  string   `json:"akid"`
	Scopes    []string `json:"scp"`
	IssuedAt  int64    `json:"iat"`
	ExpiresAt int64    `json:"exp"`
	ID        string   `json:"jti"`
}

const issuer = "reclaim"

// SessionRequest is a validated request for a session token.
type SessionRequest struct {
	Wallet string
	Scopes []Scope
	TTL    time.Duration
}

// NewSessionRequest validates the fields of POST /v1/sessions: a field the
// caller must fix is an invalid fault naming it by its JSON name
// ("ttlSeconds"). ttlSeconds is nil when the caller left it out.
func NewSessionRequest(wallet string, scopes []string, ttlSeconds *int64) (SessionRequest, error) {
	if wallet == "" {
		return SessionRequest{}, fault.InvalidField("walletAddress", "is required")
	}
	if err := ValidateWallet(wallet); err != nil {
		return SessionRequest{}, fault.InvalidField("walletAddress", "%s", err.Error())
	}
	sc, err := ParseScopes(scopes)
	if err != nil {
		return SessionRequest{}, fault.InvalidField("scopes", "%s", err.Error())
	}
	ttl := DefaultSessionTTL
	if ttlSeconds != nil {
		if *ttlSeconds < 1 || *ttlSeconds > int64(MaxSessionTTL/time.Second) {
			return SessionRequest{}, fault.InvalidField("ttlSeconds", "must be from 1 to %d, got %d", int64(MaxSessionTTL/time.Second), *ttlSeconds)
		}
		ttl = time.Duration(*ttlSeconds) * time.Second
	}
	return SessionRequest{Wallet: wallet, Scopes: sc, TTL: ttl}, nil
}

// ValidateWallet checks that s is a wallet address (address.Wallet).
func ValidateWallet(s string) error {
	_, err := address.Wallet(s)
	return err
}

// ParseWallet decodes s as ValidateWallet checks it, once.
func ParseWallet(s string) (solana.PublicKey, error) { return address.Wallet(s) }

// ValidateAddress checks that s is the base58 of 32 bytes (address.Parse).
func ValidateAddress(s string) error {
	_, err := address.Parse(s)
	return err
}

// Issuer mints session tokens.
type Issuer struct {
	keys *signing.Keyring
	now  func() time.Time
}

// NewIssuer returns an Issuer signing with keys.
func NewIssuer(keys *signing.Keyring, now func() time.Time) *Issuer {
	return &Issuer{keys: keys, now: now}
}

// Issue mints a session token for req on behalf of the API key caller.
func (i *Issuer) Issue(caller Principal, req SessionRequest) (token string, expiresAt time.Time, err error) {
	if caller.Kind != KindAPIKey {
		return "", time.Time{}, deny("sessions are created with an API key")
	}
	now := i.now()
	expiresAt = now.Add(req.TTL).UTC().Truncate(time.Second)
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", time.Time{}, err
	}
	token, err = i.keys.Sign(sessionType, sessionClaims{
		Issuer:    issuer,
		Subject:   req.Wallet,
		Project:   caller.ProjectID,
		APIKeyID:  caller.APIKeyID,
		Scopes:    req.Scopes,
		IssuedAt:  now.Unix(),
		ExpiresAt: expiresAt.Unix(),
		ID:        hex.EncodeToString(id),
	})
	return token, expiresAt, err
}
