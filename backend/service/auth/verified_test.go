package auth_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// countingStore is a store of one key that counts its reads and can hold
// them until released.
type countingStore struct {
	mu      sync.Mutex
	key     project.APIKey
	reads   int
	hold    chan struct{} // non-nil: reads wait for it to close
	started chan struct{} // receives once per read, when non-nil
}

func (s *countingStore) APIKeyByHash(context.Context, []byte) (project.APIKey, error) {
	return project.APIKey{}, project.ErrNotFound
}

func (s *countingStore) APIKeyByID(_ context.Context, id string) (project.APIKey, error) {
	s.mu.Lock()
	s.reads++
	hold, started := s.hold, s.started
	s.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if hold != nil {
		<-hold
	}
	s.mu.Lock()
	k := s.key // what the database holds once the read completes
	s.mu.Unlock()
	if id != k.ID {
		return project.APIKey{}, project.ErrNotFound
	}
	return k, nil
}

func (s *countingStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

func newSessionFixture(t *testing.T, ttl time.Duration) (*auth.Authenticator, *countingStore, *clocktest.Clock, string) {
	t.Helper()
	clock := clocktest.New(time.Now().Truncate(time.Second))
	keys := signing.NewKeyring(newKey(t))
	store := &countingStore{key: project.APIKey{ID: "key_1", ProjectID: "prj_1"}}
	caller := auth.Principal{Kind: auth.KindAPIKey, ProjectID: "prj_1", APIKeyID: "key_1"}
	token, _, err := auth.NewIssuer(keys, clock.Now).Issue(caller, auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	return auth.NewAuthenticator(store, auth.NewHasher(make([]byte, 32)), keys, 2*time.Second, clock.Now), store, clock, token
}

// A session verified once is remembered, and what is checked on every
// request still is: the token expires at its exp, not when it was
// remembered.
func TestVerifiedSessionStillExpires(t *testing.T) {
	t.Parallel()
	a, _, clock, token := newSessionFixture(t, 10*time.Second)
	for range 3 {
		if _, err := a.Session(context.Background(), token); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(10 * time.Second)
	_, err := a.Session(context.Background(), token)
	if f, ok := fault.As(err, fault.KindUnauthenticated); !ok || f.Error() != "session expired: request a new session token from your backend" {
		t.Fatalf("after exp: %v", err)
	}
	if p, ok := a.SessionProject(token); !ok || p != "prj_1" {
		t.Fatalf("SessionProject of an expired session: %q %v (CORS still needs its project)", p, ok)
	}
}

// Under steady traffic no request waits for the database to read a
// session's API key: past half of the check interval the key is read again
// in the background while requests are answered from memory; a revocation
// still stops the sessions within the interval.
func TestSessionKeyReadInTheBackground(t *testing.T) {
	t.Parallel()
	a, store, clock, token := newSessionFixture(t, time.Hour)
	ctx := context.Background()
	if _, err := a.Session(ctx, token); err != nil {
		t.Fatal(err)
	}
	if store.count() != 1 {
		t.Fatalf("%d reads for the first request, want 1", store.count())
	}
	clock.Advance(500 * time.Millisecond)
	if _, err := a.Session(ctx, token); err != nil || store.count() != 1 {
		t.Fatalf("within half the interval: %v, %d reads, want 1", err, store.count())
	}

	// Past half the interval: the key is read again in the background,
	// held here; requests do not wait for it, and only one read goes out.
	hold, started, landed := make(chan struct{}), make(chan struct{}, 1), make(chan struct{}, 1)
	auth.OnRefreshed(a, func() { landed <- struct{}{} })
	store.mu.Lock()
	store.hold, store.started = hold, started
	store.key.RevokedAt = new(clock.Now()) // revoked meanwhile
	store.mu.Unlock()
	clock.Advance(700 * time.Millisecond) // 1.2 s old
	for range 5 {
		if _, err := a.Session(ctx, token); err != nil {
			t.Fatalf("answered from memory while the key is read: %v", err)
		}
	}
	within(t, started, "the background read")
	if n := store.count(); n != 2 {
		t.Fatalf("%d reads, want one more in the background", n)
	}
	close(hold)
	within(t, landed, "the background read to land")
	// The background read is in: the revocation holds, without a read.
	_, err := a.Session(ctx, token)
	if f, ok := fault.As(err, fault.KindUnauthenticated); !ok || f.Error() != "session revoked: the API key that created it was revoked" {
		t.Fatalf("after the background read: %v", err)
	}
	if n := store.count(); n != 2 {
		t.Fatalf("%d reads, want 2", n)
	}
}

// A key whose last read is older than the interval is read before the
// request is answered: a revocation is never served past it, even when a
// background read did not land.
func TestSessionKeyNeverOlderThanTheInterval(t *testing.T) {
	t.Parallel()
	a, store, clock, token := newSessionFixture(t, time.Hour)
	ctx := context.Background()
	if _, err := a.Session(ctx, token); err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	store.key.RevokedAt = new(clock.Now())
	store.mu.Unlock()
	clock.Advance(2 * time.Second)
	_, err := a.Session(ctx, token)
	if f, ok := fault.As(err, fault.KindUnauthenticated); !ok || f.Error() != "session revoked: the API key that created it was revoked" {
		t.Fatalf("a key read 2 s ago, revoked since: %v", err)
	}
}

// within waits for ch, failing t after a minute (a read that never came).
func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("no %s", what)
	}
}
