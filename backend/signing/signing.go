// Package signing signs and verifies the service's compact tokens (session
// tokens and submission tickets) as JWS with EdDSA (Ed25519), each with a
// `kid` header so keys can rotate and a `typ` header so a token of one kind
// can never pass for another.
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
)

// ErrInvalid is returned for any token that does not verify: malformed,
// unknown key, wrong type or bad signature. Callers must not tell these
// apart to the client.
var ErrInvalid = errors.New("invalid token")

// maxTokenLen bounds the work spent on a token before its signature is known.
const maxTokenLen = 16 << 10

type header struct {
	Alg string `json:"alg"`
	Typ string `json:"typ"`
	Kid string `json:"kid"`
}

// Keyring holds the key that signs and every key that verifies.
type Keyring struct {
	signer    ed25519.PrivateKey
	signerKID string
	verifiers map[string]ed25519.PublicKey
}

// NewKeyring signs with signer and verifies with it and any retired keys.
func NewKeyring(signer ed25519.PrivateKey, retired ...ed25519.PublicKey) *Keyring {
	k := &Keyring{signer: signer, verifiers: map[string]ed25519.PublicKey{}}
	pub, _ := signer.Public().(ed25519.PublicKey)
	k.signerKID = KeyID(pub)
	k.verifiers[k.signerKID] = pub
	for _, p := range retired {
		k.verifiers[KeyID(p)] = p
	}
	return k
}

// KeyID derives a key's id from its public key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

var enc = base64.RawURLEncoding

// Sign returns a compact JWS of claims with header typ.
func (k *Keyring) Sign(typ string, claims any) (string, error) {
	h, err := json.Marshal(header{Alg: "EdDSA", Typ: typ, Kid: k.signerKID})
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

// Verify checks token's signature and type and decodes its claims into dst.
// It does not look at expiry: the caller owns its claims.
func (k *Keyring) Verify(token, typ string, dst any) error {
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
	if err := json.Unmarshal(hb, &h); err != nil || h.Alg != "EdDSA" || h.Typ != typ {
		return ErrInvalid
	}
	pub, ok := k.verifiers[h.Kid]
	if !ok {
		return ErrInvalid
	}
	sig, err := enc.DecodeString(parts[2])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return ErrInvalid
	}
	if !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return ErrInvalid
	}
	cb, err := enc.DecodeString(parts[1])
	if err != nil {
		return ErrInvalid
	}
	dec := json.NewDecoder(bytes.NewReader(cb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return ErrInvalid
	}
	return nil
}
