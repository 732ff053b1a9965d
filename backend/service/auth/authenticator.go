package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

// Authenticator turns credential headers into a Principal.
type Authenticator struct {
	store  Store
	hasher *Hasher
	keys   *signing.Keyring
	now    func() time.Time
	// keyTTL bounds how long a cached API key is trusted: a key revoked on
	// any instance stops working here (and so do its sessions) within it.
	keyTTL time.Duration

	mu    sync.Mutex
	cache map[string]cachedKey // by key id
	// refreshing are the keys being read again in the background;
	// refreshed, when set (tests), is called after each such read landed.
	refreshing map[string]bool
	refreshed  func()
	// verified are the session tokens already verified (verified.go).
	verified verifiedSessions
}

type cachedKey struct {
	key     project.APIKey
	fetched time.Time
}

const maxCachedKeys = 10_000

// NewAuthenticator returns an Authenticator. keyTTL is how stale a cached
// API key may be (RECLAIM's SessionCheckInterval); now is the clock that
// expires sessions and refuses those issued in the future.
func NewAuthenticator(store Store, hasher *Hasher, keys *signing.Keyring, keyTTL time.Duration, now func() time.Time) *Authenticator {
	return &Authenticator{store: store, hasher: hasher, keys: keys.WithClock(now), keyTTL: keyTTL, now: now,
		cache: map[string]cachedKey{}, refreshing: map[string]bool{}}
}

// Authenticate checks the credentials of a request: apiKey is the X-Api-Key
// header, authorization the Authorization header. Credential problems are
// unauthenticated faults; a store that cannot be reached an unavailable one.
func (a *Authenticator) Authenticate(ctx context.Context, apiKey, authorization string) (Principal, error) {
	switch {
	case apiKey != "" && authorization != "":
		return Principal{}, deny("send either X-Api-Key or Authorization, not both")
	case apiKey != "":
		return a.apiKey(ctx, apiKey)
	case authorization != "":
		scheme, token, ok := strings.Cut(authorization, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return Principal{}, deny("malformed Authorization header: want Bearer SESSION_TOKEN")
		}
		return a.Session(ctx, strings.TrimSpace(token))
	}
	return Principal{}, deny("missing credentials: send X-Api-Key or Authorization: Bearer SESSION_TOKEN")
}

func (a *Authenticator) apiKey(ctx context.Context, key string) (Principal, error) {
	if !wellFormedAPIKey(key) {
		return Principal{}, deny("invalid API key")
	}
	hash := a.hasher.Hash(key)
	k, err := a.store.APIKeyByHash(ctx, hash)
	if errors.Is(err, project.ErrNotFound) {
		return Principal{}, deny("invalid API key")
	}
	if err != nil {
		return Principal{}, storeDown(err)
	}
	if subtle.ConstantTimeCompare(k.Hash, hash) != 1 {
		return Principal{}, deny("invalid API key")
	}
	if k.Revoked() {
		return Principal{}, deny("API key revoked: create a new key on the console's API keys page")
	}
	a.remember(k)
	a.touch(k)
	return Principal{Kind: KindAPIKey, ProjectID: k.ProjectID, APIKeyID: k.ID}, nil
}

// Toucher records when a key was last used; a Store may implement it.
type Toucher interface {
	TouchAPIKeyUsed(ctx context.Context, id string, at time.Time) error
}

// touchEvery is how stale a key's "last used" may get.
const touchEvery = time.Minute

// touch records the key's use in the background, at most about once a minute
// per key, so a request never waits on that write.
func (a *Authenticator) touch(k project.APIKey) {
	t, ok := a.store.(Toucher)
	now := a.now()
	if !ok || (k.LastUsedAt != nil && now.Sub(*k.LastUsedAt) < touchEvery) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = t.TouchAPIKeyUsed(ctx, k.ID, now) // best effort: a display field
	}()
}

// Session verifies a session token, including that its API key still stands.
func (a *Authenticator) Session(ctx context.Context, token string) (Principal, error) {
	c, ok := a.verify(token)
	if !ok {
		return Principal{}, deny("invalid session token")
	}
	now := a.now()
	if now.Unix() >= c.ExpiresAt {
		return Principal{}, deny("session expired: request a new session token from your backend")
	}
	k, err := a.keyByID(ctx, c.APIKeyID)
	if errors.Is(err, project.ErrNotFound) {
		return Principal{}, deny("invalid session token")
	}
	if err != nil {
		return Principal{}, storeDown(err)
	}
	if k.Revoked() {
		return Principal{}, deny("session revoked: the API key that created it was revoked")
	}
	return Principal{
		Kind:      KindSession,
		ProjectID: c.Project,
		APIKeyID:  c.APIKeyID,
		Wallet:    c.Subject,
		Scopes:    c.Scopes,
		SessionID: c.ID,
		ExpiresAt: time.Unix(c.ExpiresAt, 0).UTC(),
	}, nil
}

// keyByID returns the API key id, as read at most keyTTL ago. A key read
// more than half of keyTTL ago is read again in the background, its
// callers answered meanwhile from memory: under steady traffic no request
// waits for the database, and a revocation still reaches every session
// within keyTTL.
func (a *Authenticator) keyByID(ctx context.Context, id string) (project.APIKey, error) {
	now := a.now()
	a.mu.Lock()
	c, ok := a.cache[id]
	age := now.Sub(c.fetched)
	refresh := ok && age >= a.keyTTL/2 && age < a.keyTTL && !a.refreshing[id]
	if refresh {
		a.refreshing[id] = true
	}
	a.mu.Unlock()
	if refresh {
		go a.refresh(id) //nolint:gosec // G118: the read outlives the request that noticed it is due, on purpose
	}
	if ok && age < a.keyTTL {
		return c.key, nil
	}
	k, err := a.store.APIKeyByID(ctx, id)
	if err != nil {
		return k, err
	}
	a.remember(k)
	return k, nil
}

// refresh reads the key id again for keyByID; a key no longer found is
// forgotten, so that its next request reads it and is refused.
func (a *Authenticator) refresh(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), a.keyTTL)
	defer cancel()
	started := a.now() // what was read is at least this old
	k, err := a.store.APIKeyByID(ctx, id)
	a.mu.Lock()
	delete(a.refreshing, id)
	switch {
	case err == nil:
		if len(a.cache) >= maxCachedKeys {
			clear(a.cache)
		}
		a.cache[id] = cachedKey{key: k, fetched: started}
	case errors.Is(err, project.ErrNotFound):
		delete(a.cache, id)
	}
	done := a.refreshed
	a.mu.Unlock()
	if done != nil {
		done()
	}
}

func (a *Authenticator) remember(k project.APIKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.cache) >= maxCachedKeys {
		clear(a.cache)
	}
	a.cache[k.ID] = cachedKey{key: k, fetched: a.now()}
}
