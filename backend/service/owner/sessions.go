package owner

import (
	"context"
	"crypto/sha256"
	"time"
)

// Session lifetimes: a session ends after SessionIdle without activity, and
// SessionMaxAge after it began whatever the activity. Activity is recorded
// at most once per touchEvery.
const (
	SessionIdle   = 30 * time.Minute
	SessionMaxAge = 12 * time.Hour
	touchEvery    = time.Minute
)

// sessionIDLen is the length of a session id: 32 random bytes, base64url.
const sessionIDLen = 43

func hashSessionID(id string) []byte {
	sum := sha256.Sum256([]byte(id))
	return sum[:]
}

// StartSession signs ownerID in. It returns the new session's id, which the
// browser keeps (it is stored only as its SHA-256), and the session with its
// CSRF token. Each sign-in gets a fresh id, so a planted one is never
// promoted.
func (s *Service) StartSession(ctx context.Context, ownerID string) (string, Session, error) {
	now := s.now().UTC()
	id := newToken()
	sess := Session{
		IDHash: hashSessionID(id), OwnerID: ownerID, CSRFToken: newToken(),
		CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(SessionMaxAge),
	}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return "", Session{}, err
	}
	s.sweep(ctx)
	return id, sess, nil
}

// Session returns the live session whose id is id, with its owner, or
// ErrNotFound. An expired session is deleted.
func (s *Service) Session(ctx context.Context, id string) (Session, Owner, error) {
	if len(id) != sessionIDLen {
		return Session{}, Owner{}, ErrNotFound
	}
	sess, err := s.store.SessionByHash(ctx, hashSessionID(id))
	if err != nil {
		return Session{}, Owner{}, err
	}
	now := s.now()
	if !now.Before(sess.ExpiresAt) || now.Sub(sess.LastSeenAt) >= SessionIdle {
		_ = s.store.DeleteSession(ctx, sess.IDHash)
		return Session{}, Owner{}, ErrNotFound
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		if err := s.store.TouchSession(ctx, sess.IDHash, now); err != nil {
			return Session{}, Owner{}, err
		}
	}
	o, err := s.store.OwnerByID(ctx, sess.OwnerID)
	if err != nil {
		return Session{}, Owner{}, err
	}
	return sess, o, nil
}

// EndSession signs a session out, on the server: its id is useless after.
func (s *Service) EndSession(ctx context.Context, sess Session) error {
	return s.store.DeleteSession(ctx, sess.IDHash)
}

// SpendToken records the single-use token id (a sign-in form's) as used,
// until expires: ErrSpent when it was used already.
func (s *Service) SpendToken(ctx context.Context, id []byte, expires time.Time) error {
	fresh, err := s.store.SpendToken(ctx, id, expires)
	if err != nil {
		return err
	}
	s.sweep(ctx)
	if !fresh {
		return ErrSpent
	}
	return nil
}
