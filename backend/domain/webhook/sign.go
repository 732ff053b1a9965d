package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// The Standard Webhooks specification's headers
// (https://www.standardwebhooks.com): every delivery carries them, so the
// specification's verifier libraries check Reclaim's events as they are.
const (
	// HeaderID is the event's id: the same on every attempt, so a receiver
	// deduplicates by it.
	HeaderID = "webhook-id"
	// HeaderTimestamp is the attempt's time in Unix seconds: verifiers
	// refuse one too far from their clock (5 minutes), which stops replays.
	HeaderTimestamp = "webhook-timestamp"
	// HeaderSignature is one or more space-separated "v1,<signature>".
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every signing secret, as the specification writes
// them: the rest is the base64 of the key's bytes.
const SecretPrefix = "whsec_"

// secretBytes is the size of a new secret's key (the specification asks
// for 24 to 64).
const secretBytes = 32

// RotationOverlap is how long a rotated secret still signs beside the new
// one, so that receivers can switch at their pace.
const RotationOverlap = 24 * time.Hour

// NewSecret returns a new signing secret.
func NewSecret() string {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// errSecret is a secret not of the specification's form.
var errSecret = errors.New("webhook secret: want whsec_ and the base64 of 24 to 64 bytes")

// secretKey is the HMAC key of secret: the bytes after SecretPrefix,
// base64-decoded.
func secretKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errSecret
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, errSecret
	}
	return key, nil
}

// Sign returns the headers of one attempt at delivering body as event id
// at at, signed with every secret given (the current one first, then one a
// rotation replaced while it overlaps): HeaderSignature is
// "v1,<base64 of HMAC-SHA256 of id.timestamp.body>" per secret, separated
// by spaces.
func Sign(id string, at time.Time, body []byte, secrets ...string) (map[string]string, error) {
	ts := strconv.FormatInt(at.Unix(), 10)
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return nil, err
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte(id))
		m.Write([]byte{'.'})
		m.Write([]byte(ts))
		m.Write([]byte{'.'})
		m.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	if len(sigs) == 0 {
		return nil, errSecret
	}
	return map[string]string{HeaderID: id, HeaderTimestamp: ts, HeaderSignature: strings.Join(sigs, " ")}, nil
}

// Verify reports whether the headers sign body with secret at now, within
// tolerance of the timestamp: what a receiver written in Go does (the
// examples and tests use the specification's npm library instead).
func Verify(secret string, headers map[string]string, body []byte, now time.Time, tolerance time.Duration) bool {
	ts, err := strconv.ParseInt(headers[HeaderTimestamp], 10, 64)
	if err != nil {
		return false
	}
	at := time.Unix(ts, 0)
	if now.Sub(at) > tolerance || at.Sub(now) > tolerance {
		return false
	}
	want, err := Sign(headers[HeaderID], at, body, secret)
	if err != nil {
		return false
	}
	expected := strings.TrimPrefix(want[HeaderSignature], "v1,")
	for _, sig := range strings.Fields(headers[HeaderSignature]) {
		if v, ok := strings.CutPrefix(sig, "v1,"); ok && hmac.Equal([]byte(v), []byte(expected)) {
			return true
		}
	}
	return false
}
