package owner

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"
)

// ValidateEmail checks that email is a plain address (no display name), at
// most 254 bytes.
func ValidateEmail(email string) error {
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return &InvalidError{Field: "email", Message: "Enter an email address such as name@example.com."}
	}
	return nil
}

// NormalizeEmail is the form an email is stored and compared in.
func NormalizeEmail(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

// CreateOwner validates email (trimmed) and password and stores a new owner
// with the password hashed. A taken email gives ErrConflict. Sign-up and
// `reclaim owner create` both use it.
func (s *Service) CreateOwner(ctx context.Context, email, password string) (Owner, error) {
	email = strings.TrimSpace(email)
	if err := ValidateEmail(email); err != nil {
		return Owner{}, err
	}
	if err := ValidatePassword(password); err != nil {
		return Owner{}, err
	}
	hash, err := s.passwords.Hash(password)
	if err != nil {
		return Owner{}, fmt.Errorf("hash password: %w", err)
	}
	return s.store.CreateOwner(ctx, Owner{Email: NormalizeEmail(email), PasswordHash: hash, CreatedAt: s.now().UTC()})
}

// OwnerByEmail returns the owner whose email is email, or ErrNoAccount.
func (s *Service) OwnerByEmail(ctx context.Context, email string) (Owner, error) {
	o, err := s.store.OwnerByEmail(ctx, email)
	if errors.Is(err, ErrNotFound) {
		return Owner{}, ErrNoAccount
	}
	return o, err
}

// SignIn checks email and password, tried from client (a network address),
// under the throttling rules: per email and client, 3 free failures, then
// waits of 1, 2, 4 ... 64 s, then a 15-minute lock after 10. It returns the
// owner; *ThrottledError when the attempt is not heard; ErrBadCredentials
// when the email or the password is wrong (an unknown email costs the same
// work as a known one). A success forgets the failures.
func (s *Service) SignIn(ctx context.Context, email, password, client string) (Owner, error) {
	key := throttleKey(email, client)
	fails, err := s.store.SignInFailures(ctx, key)
	if err != nil {
		return Owner{}, err
	}
	now := s.now()
	if stale(fails, now) {
		if err := s.store.ClearSignInFailures(ctx, key); err != nil {
			return Owner{}, err
		}
		fails = SignInFailures{}
	}
	if wait := retryAfter(fails, now); wait > 0 {
		return Owner{}, &ThrottledError{Wait: wait}
	}
	o, err := s.store.OwnerByEmail(ctx, email)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Owner{}, err
	}
	hash := o.PasswordHash
	if hash == "" {
		hash = s.dummyHash()
	}
	if ok, _ := CheckPassword(hash, password); !ok || o.ID == "" {
		if _, err := s.store.RecordSignInFailure(ctx, key, now); err != nil {
			return Owner{}, err
		}
		return Owner{}, ErrBadCredentials
	}
	if err := s.store.ClearSignInFailures(ctx, key); err != nil {
		return Owner{}, err
	}
	return o, nil
}

// dummyHash is a hash no password matches, checked for unknown emails.
func (s *Service) dummyHash() string {
	s.dummyOnce.Do(func() { s.dummy, _ = s.passwords.Hash(newToken()) })
	return s.dummy
}

// newToken returns 32 random bytes, base64url: 43 characters.
func newToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
