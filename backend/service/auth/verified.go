package auth

import (
	"crypto/sha256"
	"sync"
	"time"
)

// maxVerifiedSessions bounds the session tokens whose signature is
// remembered: about 200 bytes each, 2 MB in all. When full, the memory is
// cleared and tokens are verified again as they come.
const maxVerifiedSessions = 10_000

// verifiedSessions remembers the claims of session tokens whose signature
// and lifetime were checked, by the SHA-256 of the token, until the token
// expires: a session is verified once per process, not once per request
// (an Ed25519 verification is most of what authenticating a session
// costs). What the claims are checked against on every request (expiry,
// the API key still standing, scopes, the wallet) is checked as before: a
// verified signature never goes stale, since the keyring is fixed for the
// life of the process.
type verifiedSessions struct {
	mu     sync.Mutex
	claims map[[sha256.Size]byte]sessionClaims
}

// tokenBufs are the buffers a token is copied to for its digest, so that
// a request's lookup allocates nothing.
var tokenBufs = sync.Pool{New: func() any { return new([]byte) }}

// digest is the SHA-256 of token.
func digest(token string) [sha256.Size]byte {
	buf, _ := tokenBufs.Get().(*[]byte)
	*buf = append((*buf)[:0], token...)
	sum := sha256.Sum256(*buf)
	tokenBufs.Put(buf)
	return sum
}

func (v *verifiedSessions) get(token string, now time.Time) (sessionClaims, bool) {
	sum := digest(token)
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.claims[sum]
	if ok && now.Unix() >= c.ExpiresAt {
		delete(v.claims, sum)
		return sessionClaims{}, false
	}
	return c, ok
}

func (v *verifiedSessions) put(token string, c sessionClaims) {
	sum := digest(token)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.claims == nil || len(v.claims) >= maxVerifiedSessions {
		v.claims = make(map[[sha256.Size]byte]sessionClaims)
	}
	v.claims[sum] = c
}

// verify returns the claims of a session token this service signed (a
// current or retired key, a lifetime its type allows), from memory when it
// was verified before and has not expired.
func (a *Authenticator) verify(token string) (sessionClaims, bool) {
	now := a.now()
	if c, ok := a.verified.get(token, now); ok {
		return c, true
	}
	var c sessionClaims
	if err := a.keys.Verify(token, sessionType, &c); err != nil || c.Issuer != issuer {
		return sessionClaims{}, false
	}
	if now.Unix() < c.ExpiresAt {
		a.verified.put(token, c)
	}
	return c, true
}
