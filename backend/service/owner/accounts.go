package owner

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// ValidateEmail checks that email is a plain address (no display name), at
// most 254 bytes.
func ValidateEmail(email string) error {
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return fault.Invalid("email", "Enter an email address such as name@example.com.")
	}
	return nil
}

// NormalizeEmail is the form an email is stored and compared in.
func NormalizeEmail(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

// CreateOwner validates email (trimmed) and password and stores a new owner
// with the password hashed (in the password budget: a *BusyError when it
// has no room). A taken email gives ErrConflict. Sign-up and `reclaim owner
// create` both use it.
func (s *Service) CreateOwner(ctx context.Context, email, password string) (Owner, error) {
	email = strings.TrimSpace(email)
	if err := ValidateEmail(email); err != nil {
		return Owner{}, err
	}
	if err := ValidatePassword(password); err != nil {
		return Owner{}, err
	}
	var hash string
	var err error
	if berr := s.budget.run(ctx, func() { hash, err = s.passwords.Hash(password) }); berr != nil {
		return Owner{}, berr
	}
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

// Device is a returning browser, as its device cookie says: the account it
// signed in to before, and the cookie's own random id. The console gives it
// only for a cookie whose signature it checked; the zero Device is a
// browser without one.
type Device struct {
	OwnerID string
	ID      string
}

// SignIn checks email and password, tried from client (the key of a network
// address) by the browser device, under the throttling rules of
// throttle.go, and with the password check inside the password budget
// (budget.go). A browser whose device names the account it signs in to is
// a returning one: it is throttled by its device rather than its address,
// and its check runs in the devices' lane, which a flood of other browsers
// cannot fill. It returns the owner; *ThrottledError when the attempt is
// not heard; *BusyError when the budget has no room for it;
// ErrBadCredentials when the email or the password is wrong (an unknown
// email costs the same work as a known one).
func (s *Service) SignIn(ctx context.Context, email, password, client string, device Device) (Owner, error) {
	now := s.now()
	o, err := s.store.OwnerByEmail(ctx, email)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Owner{}, err
	}
	returning := o.ID != "" && device.OwnerID == o.ID && device.ID != ""
	from := addressKey(client)
	if returning {
		from = deviceKey(device.ID)
	}
	addr, err := s.failures(ctx, from, now)
	if err != nil {
		return Owner{}, err
	}
	account, err := s.failures(ctx, accountKey(email), now)
	if err != nil {
		return Owner{}, err
	}
	if wait := retryAfter(addr, account, now); wait > 0 {
		return Owner{}, &ThrottledError{Wait: wait}
	}
	hash := o.PasswordHash
	if hash == "" {
		hash = s.dummy
	}
	var ok bool
	check := func() { ok, _ = CheckPassword(hash, password) }
	if returning {
		err = s.devices.run(ctx, o.ID, check)
	} else {
		err = s.budget.run(ctx, check)
	}
	if err != nil {
		return Owner{}, err
	}
	if !ok || o.ID == "" {
		for _, key := range []string{from, accountKey(email)} {
			if _, err := s.store.RecordSignInFailure(ctx, key, now); err != nil {
				return Owner{}, err
			}
		}
		s.sweep(ctx)
		return Owner{}, ErrBadCredentials
	}
	if err := s.store.ClearSignInFailures(ctx, accountKey(email)); err != nil {
		return Owner{}, err
	}
	return o, nil
}

// PasswordsBusy returns a *BusyError when the password budget could take
// no more work now (its slots and its queue are full), so that the console
// refuses a sign-in or sign-up before it spends its form's token and reads
// the database: under a flood most requests end here, cheaply. For a
// returning browser (device), it is the devices' lane that is asked: busy
// when the device's account has an attempt in it already, or it is full.
// A nil error promises nothing: the budget may fill meanwhile.
func (s *Service) PasswordsBusy(device Device) error {
	if device.OwnerID != "" {
		return s.devices.full(device.OwnerID)
	}
	return s.budget.full()
}

// newToken returns 32 random bytes, base64url: 43 characters.
func newToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
