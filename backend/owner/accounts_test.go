package owner_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/owner"
)

const password = "correct horse battery staple"

func TestCreateOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _, _ := newService()
	o, err := s.CreateOwner(ctx, " Alice@Example.com ", password)
	if err != nil {
		t.Fatal(err)
	}
	if o.Email != "alice@example.com" || !strings.HasPrefix(o.PasswordHash, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Errorf("owner = %+v, want the email lowercased and an argon2id hash with the service's parameters", o)
	}
	if ok, err := owner.CheckPassword(o.PasswordHash, password); !ok || err != nil {
		t.Errorf("CheckPassword(right password) = %v, %v", ok, err)
	}
	if ok, _ := owner.CheckPassword(o.PasswordHash, password+"!"); ok {
		t.Error("CheckPassword accepts a wrong password")
	}
	cases := []struct {
		name, email, password string
		field                 string // of the *InvalidError; "" for wantErr
		wantErr               error
	}{
		{name: "not an email", email: "alice", password: password, field: "email"},
		{name: "a display name", email: "Alice <a@example.com>", password: password, field: "email"},
		{name: "short password", email: "b@example.com", password: "short", field: "password"},
		{name: "long password", email: "b@example.com", password: strings.Repeat("x", 257), field: "password"},
		{name: "taken", email: "ALICE@example.com", password: password, wantErr: owner.ErrConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.CreateOwner(ctx, c.email, c.password)
			var invalid *owner.InvalidError
			switch {
			case c.field != "" && (!errors.As(err, &invalid) || invalid.Field != c.field):
				t.Errorf("err = %v, want an *InvalidError on %s", err, c.field)
			case c.field == "" && !errors.Is(err, c.wantErr):
				t.Errorf("err = %v, want %v", err, c.wantErr)
			}
		})
	}
}

// Sign-in throttling: per email and client address, 3 free failures, then
// doubling waits, then a 15-minute lock after 10; failures older than the
// lock are forgotten, and a success forgets them too.
func TestSignInThrottling(t *testing.T) {
	t.Parallel()
	const client = "192.0.2.1"
	cases := []struct {
		name     string
		failures int           // recorded before the attempt
		ago      time.Duration // since the last of them
		email    string
		password string
		wantErr  error
		wantWait time.Duration // of the *ThrottledError
		left     int           // failures recorded after the attempt
	}{
		{name: "success", email: "alice@example.com", password: password},
		{name: "success forgets failures", failures: 2, email: "Alice@Example.com", password: password},
		{name: "wrong password", email: "alice@example.com", password: "wrong password!", wantErr: owner.ErrBadCredentials, left: 1},
		{name: "unknown email", email: "nobody@example.com", password: password, wantErr: owner.ErrBadCredentials, left: 1},
		{name: "third failure is free", failures: 2, email: "alice@example.com", password: "wrong password!", wantErr: owner.ErrBadCredentials, left: 3},
		{name: "after three, wait a second", failures: 3, email: "alice@example.com", password: password, wantWait: time.Second, left: 3},
		{name: "after three, a second later", failures: 3, ago: time.Second, email: "alice@example.com", password: password},
		{name: "after five, four seconds", failures: 5, ago: time.Second, email: "alice@example.com", password: password, wantWait: 3 * time.Second, left: 5},
		{name: "after nine, 64 seconds", failures: 9, email: "alice@example.com", password: "wrong password!", wantWait: 64 * time.Second, left: 9},
		{name: "locked after ten", failures: 10, ago: time.Minute, email: "alice@example.com", password: password, wantWait: 14 * time.Minute, left: 10},
		{name: "lock over", failures: 12, ago: 15 * time.Minute, email: "alice@example.com", password: "wrong password!", wantErr: owner.ErrBadCredentials, left: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, store, _, clk := newService()
			if _, err := s.CreateOwner(ctx, "alice@example.com", password); err != nil {
				t.Fatal(err)
			}
			key := owner.NormalizeEmail(c.email) + "|" + client
			if c.failures > 0 {
				store.failures[key] = owner.SignInFailures{Key: key, Failures: c.failures, LastAt: clk.Now().Add(-c.ago)}
			}
			// Another client's failures never count.
			store.failures[owner.NormalizeEmail(c.email)+"|198.51.100.7"] = owner.SignInFailures{Failures: 10, LastAt: clk.Now()}
			o, err := s.SignIn(ctx, c.email, c.password, client)
			var throttled *owner.ThrottledError
			switch {
			case c.wantWait > 0:
				if !errors.As(err, &throttled) || throttled.Wait != c.wantWait {
					t.Errorf("err = %v, want a wait of %v", err, c.wantWait)
				}
			case !errors.Is(err, c.wantErr):
				t.Errorf("err = %v, want %v", err, c.wantErr)
			case err == nil && o.Email != "alice@example.com":
				t.Errorf("signed in as %+v", o)
			}
			if got := store.failures[key].Failures; got != c.left {
				t.Errorf("%d failures recorded after, want %d", got, c.left)
			}
		})
	}
}
