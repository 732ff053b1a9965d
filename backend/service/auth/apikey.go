package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"strings"

	"github.com/mr-tron/base58"
)

// APIKeyPrefix starts every API key.
const APIKeyPrefix = "ak_live_"

// apiKeyEntropy is the number of random bytes in a key.
const apiKeyEntropy = 32

// displayPrefixLen is how much of a key is kept in clear, to tell keys apart.
const displayPrefixLen = 12

// Hasher computes the keyed hash under which API keys are stored. The pepper
// never leaves the process: a stolen database yields no usable key.
type Hasher struct {
	pepper []byte
}

// NewHasher returns a Hasher keyed by pepper (at least 32 bytes).
func NewHasher(pepper []byte) *Hasher {
	return &Hasher{pepper: append([]byte(nil), pepper...)}
}

// Hash returns HMAC-SHA256(pepper, key).
func (h *Hasher) Hash(key string) []byte {
	mac := hmac.New(sha256.New, h.pepper)
	mac.Write([]byte(key))
	return mac.Sum(nil)
}

// NewAPIKey returns a fresh key and its display prefix.
func NewAPIKey() (key, prefix string, err error) {
	b := make([]byte, apiKeyEntropy)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	key = APIKeyPrefix + base58.Encode(b)
	return key, key[:displayPrefixLen], nil
}

// wellFormedAPIKey tells whether s could be a key we issued, so garbage is
// refused before it costs a database lookup.
func wellFormedAPIKey(s string) bool {
	if !strings.HasPrefix(s, APIKeyPrefix) || len(s) > 100 {
		return false
	}
	b, err := base58.Decode(s[len(APIKeyPrefix):])
	return err == nil && len(b) == apiKeyEntropy
}
