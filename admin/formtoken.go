package admin

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"
)

// The sign-in and sign-up forms' CSRF tokens. Before there is a session,
// the browser holds a random pre-session id in the csrfCookie cookie; every
// form the console renders carries a token of its own, bound to that id by
// an HMAC under Deps.FormKey, with a random nonce and the time it was
// issued:
//
//	base64url(nonce (16 bytes) | issued (Unix seconds, 8 bytes) | HMAC-SHA256(key, id | nonce | issued))
//
// A POST is heard only with a token made for its cookie less than
// formTokenTTL ago and not spent yet: the console spends the nonce (in the
// database every instance shares) before it reads anything else of the
// form. So a token can be neither made without the key, nor carried to
// another browser, nor used twice; each answer renders the form with a
// fresh one.
const formTokenTTL = time.Hour

const (
	nonceLen     = 16
	formTokenLen = nonceLen + 8 + sha256.Size
)

// formTokens issues and checks the tokens under one key.
type formTokens struct {
	key []byte
}

// issue returns a fresh token bound to binding, issued at now.
func (f formTokens) issue(binding string, now time.Time) string {
	b := make([]byte, formTokenLen)
	if _, err := rand.Read(b[:nonceLen]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	binary.BigEndian.PutUint64(b[nonceLen:], uint64(now.Unix()))
	copy(b[nonceLen+8:], f.mac(binding, b[:nonceLen+8]))
	return base64.RawURLEncoding.EncodeToString(b)
}

// check returns the nonce of token and when it expires, if token was
// issued for binding by this key and has not expired at now. Spending the
// nonce is the caller's.
func (f formTokens) check(binding, token string, now time.Time) (nonce []byte, expires time.Time, ok bool) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) != formTokenLen {
		return nil, time.Time{}, false
	}
	if !hmac.Equal(b[nonceLen+8:], f.mac(binding, b[:nonceLen+8])) {
		return nil, time.Time{}, false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b[nonceLen:])), 0)
	expires = issued.Add(formTokenTTL)
	if now.Before(issued.Add(-time.Minute)) || !now.Before(expires) { // a minute of clock skew between instances
		return nil, time.Time{}, false
	}
	return b[:nonceLen], expires, true
}

func (f formTokens) mac(binding string, nonceAndTime []byte) []byte {
	m := hmac.New(sha256.New, f.key)
	m.Write([]byte(binding))
	m.Write(nonceAndTime)
	return m.Sum(nil)
}
