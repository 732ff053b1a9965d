// Package signing signs and verifies the service's compact tokens (session
// tokens and submission tickets) as JWS with EdDSA (Ed25519), each with a
// `kid` header so keys can rotate and a `typ` header so a token of one kind
// can never pass for another.
//
// Every token carries `iat` and `exp`. Whatever key signed it, a token
// verifies only if its life (exp - iat) is within its type's maximum and it
// was not issued in the future (beyond MaxClockSkew); a token of a retired
// key verifies only if it was issued before the key's retirement. So a key
// that leaks after its retirement can mint nothing that is accepted, and its
// last genuine tokens end at most one lifetime after it retired.
package signing

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrInvalid is returned for any token that does not verify: malformed,
// unknown key, wrong type, bad signature, a life beyond its type's, issued
// in the future or after its key retired. Callers must not tell these apart
// to the client.
var ErrInvalid = errors.New("invalid token")

// MaxClockSkew is how far in the future a token's `iat` may be: instances'
// clocks may disagree by this much (NTP keeps them within milliseconds; a
// minute covers a clock that was stepped).
const MaxClockSkew = time.Minute

// maxTokenLen bounds the work spent on a token before its signature is known.
const maxTokenLen = 16 << 10

// Type is a kind of token: its JWS typ, and the longest life (exp - iat) a
// token of that kind may claim, which its issuer never exceeds.
type Type struct {
	Name    string
	MaxLife time.Duration
}

type header struct {
	Alg string `json:"alg"`
	Typ string `json:"typ"`
	Kid string `json:"kid"`
}

// lifetime is what Verify reads of every token's claims.
type lifetime struct {
	IssuedAt  int64 `json:"iat"`
	ExpiresAt int64 `json:"exp"`
}

// Accepted is a key that verifies but does not sign: the next signer,
// accepted ahead of the switch to it (RetiredAt zero), or a retired signer.
type Accepted struct {
	Public ed25519.PublicKey
	// RetiredAt is when the key stopped signing: only its tokens issued
	// before then verify. Zero for a key that has not signed yet.
	RetiredAt time.Time
}

// KeyID returns the key's id.
func (a Accepted) KeyID() string { return KeyID(a.Public) }

// Keyring holds the key that signs and every key that verifies.
type Keyring struct {
	signer    ed25519.PrivateKey
	signerKID string
	verifiers map[string]Accepted // by key id; the signer's has no RetiredAt
	now       func() time.Time
}

// NewKeyring signs with signer and verifies with it and the accepted keys.
// An accepted key that is also the signer is the signer.
func NewKeyring(signer ed25519.PrivateKey, accepted ...Accepted) *Keyring {
	k := &Keyring{signer: signer, verifiers: map[string]Accepted{}, now: time.Now}
	for _, a := range accepted {
		k.verifiers[a.KeyID()] = a
	}
	pub, _ := signer.Public().(ed25519.PublicKey)
	k.signerKID = KeyID(pub)
	k.verifiers[k.signerKID] = Accepted{Public: pub}
	return k
}

// WithClock returns a copy of k that reads the time from now (to refuse
// tokens issued in the future) instead of time.Now.
func (k *Keyring) WithClock(now func() time.Time) *Keyring {
	c := *k
	c.now = now
	return &c
}

// SignerID returns the id of the key that signs.
func (k *Keyring) SignerID() string { return k.signerKID }

// KeyID derives a key's id from its public key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

var enc = base64.RawURLEncoding

// Sign returns a compact JWS of claims with header typ t.Name. The claims
// must carry `iat` and `exp` within t.MaxLife, or no keyring verifies it.
func (k *Keyring) Sign(t Type, claims any) (string, error) {
	h, err := json.Marshal(header{Alg: "EdDSA", Typ: t.Name, Kid: k.signerKID})
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("encode claims: %w", err)
	}
	signingInput := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	sig := ed25519.Sign(k.signer, []byte(signingInput))
	return signingInput + "." + enc.EncodeToString(sig), nil
}

// Verify checks token's signature, type and lifetime (see the package
// comment) and decodes its claims into dst. It does not look at expiry: the
// caller owns its claims.
func (k *Keyring) Verify(token string, t Type, dst any) error {
	if len(token) > maxTokenLen {
		return ErrInvalid
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ErrInvalid
	}
	hb, err := enc.DecodeString(parts[0])
	if err != nil {
		return ErrInvalid
	}
	var h header
	if err := json.Unmarshal(hb, &h); err != nil || h.Alg != "EdDSA" || h.Typ != t.Name {
		return ErrInvalid
	}
	key, ok := k.verifiers[h.Kid]
	if !ok {
		return ErrInvalid
	}
	sig, err := enc.DecodeString(parts[2])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return ErrInvalid
	}
	if !ed25519.Verify(key.Public, []byte(parts[0]+"."+parts[1]), sig) {
		return ErrInvalid
	}
	cb, err := enc.DecodeString(parts[1])
	if err != nil {
		return ErrInvalid
	}
	var life lifetime
	if err := json.Unmarshal(cb, &life); err != nil || !k.lives(life, t, key) {
		return ErrInvalid
	}
	dec := json.NewDecoder(bytes.NewReader(cb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return ErrInvalid
	}
	return nil
}

// lives tells whether a token of type t with life l, signed by key, may be
// accepted: issued neither in the future nor after key retired, and
// claiming no longer a life than its type allows.
func (k *Keyring) lives(l lifetime, t Type, key Accepted) bool {
	if l.IssuedAt <= 0 || l.ExpiresAt <= l.IssuedAt || l.ExpiresAt-l.IssuedAt > int64(t.MaxLife/time.Second) {
		return false
	}
	issued := time.Unix(l.IssuedAt, 0)
	if issued.After(k.now().Add(MaxClockSkew)) {
		return false
	}
	return key.RetiredAt.IsZero() || issued.Before(key.RetiredAt)
}
