package owner_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
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
		field                 string // of the invalid fault; "" for wantErr
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
			switch {
			case c.field != "" && !invalidOn(err, c.field):
				t.Errorf("err = %v, want an invalid fault on %s", err, c.field)
			case c.field == "" && !errors.Is(err, c.wantErr):
				t.Errorf("err = %v, want %v", err, c.wantErr)
			}
		})
	}
}

// Sign-in throttling (throttle.go): failures counted per address and per
// account; an address that failed often waits, an account that failed
// often makes addresses that failed themselves wait; a success clears the
// account's count, never the address's; stale counts are forgotten.
func TestSignInThrottling(t *testing.T) {
	t.Parallel()
	const client, attacker = "192.0.2.1", "203.0.113.9"
	type counts struct{ addr, account int }
	cases := []struct {
		name     string
		before   counts        // failures recorded before the attempt
		ago      time.Duration // since the last of them
		email    string
		password string
		wantErr  error
		wantWait time.Duration // of the *ThrottledError
		after    counts        // failures recorded after the attempt
	}{
		{name: "success", email: "alice@example.com", password: password},
		{name: "success clears the account's failures, not the address's", before: counts{2, 4}, email: "Alice@Example.com", password: password, after: counts{2, 0}},
		{name: "wrong password", email: "alice@example.com", password: "wrong password!", wantErr: owner.ErrBadCredentials, after: counts{1, 1}},
		{name: "unknown email", email: "nobody@example.com", password: password, wantErr: owner.ErrBadCredentials, after: counts{1, 1}},
		{name: "fifth failure of an address is free", before: counts{4, 4}, email: "alice@example.com", password: "wrong password!", wantErr: owner.ErrBadCredentials, after: counts{5, 5}},
		{name: "after five, the address waits a second", before: counts{5, 0}, email: "alice@example.com", password: password, wantWait: time.Second, after: counts{5, 0}},
		{name: "after five, a second later", before: counts{5, 0}, ago: time.Second, email: "alice@example.com", password: password, after: counts{5, 0}},
		{name: "a clean address is heard at once by an account under attack", before: counts{0, 500}, email: "alice@example.com", password: password},
		{name: "an address that failed makes the account's wait", before: counts{3, 9}, ago: 10 * time.Second, email: "alice@example.com", password: password, wantWait: 6 * time.Second, after: counts{3, 9}},
		{name: "forgotten after 15 minutes", before: counts{40, 40}, ago: 15 * time.Minute, email: "alice@example.com", password: "wrong password!", wantErr: owner.ErrBadCredentials, after: counts{1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, store, _, clk := newService()
			if _, err := s.CreateOwner(ctx, "alice@example.com", password); err != nil {
				t.Fatal(err)
			}
			addrKey, accountKey := "address:"+client, "account:"+owner.NormalizeEmail(c.email)
			last := clk.Now().Add(-c.ago)
			for key, n := range map[string]int{addrKey: c.before.addr, accountKey: c.before.account} {
				if n > 0 {
					store.failures[key] = owner.SignInFailures{Key: key, Failures: n, LastAt: last}
				}
			}
			// Another address's failures never count against this one.
			store.failures["address:"+attacker] = owner.SignInFailures{Failures: 1000, LastAt: clk.Now()}
			o, err := s.SignIn(ctx, c.email, c.password, client, owner.Device{})
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
			if got := (counts{store.failures[addrKey].Failures, store.failures[accountKey].Failures}); got != c.after {
				t.Errorf("failures after (address, account) = %v, want %v", got, c.after)
			}
		})
	}
}

// An attacker who keeps failing at an account, from one address or from
// many, never keeps its owner out: from a clean address the right password
// signs in at once, every time.
func TestSignInOwnerNotLockedOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _, clk := newService()
	if _, err := s.CreateOwner(ctx, "alice@example.com", password); err != nil {
		t.Fatal(err)
	}
	for round := range 20 {
		for i := range 50 { // fifty addresses, each failing until it is made to wait
			for {
				_, err := s.SignIn(ctx, "alice@example.com", "guess guess guess", fmt.Sprintf("203.0.113.%d", i), owner.Device{})
				if errors.Is(err, owner.ErrBadCredentials) {
					continue
				}
				var throttled *owner.ThrottledError
				if !errors.As(err, &throttled) {
					t.Fatalf("round %d, attacker %d: %v, want failures then a wait", round, i, err)
				}
				break
			}
		}
		if o, err := s.SignIn(ctx, "alice@example.com", password, "198.51.100.7", owner.Device{}); err != nil || o.Email != "alice@example.com" {
			t.Fatalf("round %d: the owner from a clean address: %v, want signed in at once", round, err)
		}
		clk.Advance(30 * time.Second)
	}
}

// A returning browser (a device naming the account it signs in to) is
// counted by its device, not its address: an attacker's failures at the
// owner's address (a shared NAT) do not slow it, and its own failures earn
// it the address's delays. A device naming another account is an
// ordinary browser at its address.
func TestSignInReturningDevice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store, _, clk := newService()
	alice, err := s.CreateOwner(ctx, "alice@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	const shared = "198.51.100.7"
	store.failures["address:"+shared] = owner.SignInFailures{Key: "address:" + shared, Failures: 1000, LastAt: clk.Now()}
	device := owner.Device{OwnerID: alice.ID, ID: "dev1"}
	if _, err := s.SignIn(ctx, "alice@example.com", password, shared, owner.Device{}); !errors.As(err, new(*owner.ThrottledError)) {
		t.Fatalf("an ordinary browser at the attacker's address: %v, want a wait", err)
	}
	if _, err := s.SignIn(ctx, "bob@example.com", password, shared, device); !errors.As(err, new(*owner.ThrottledError)) {
		t.Errorf("the device at another account: %v, want the address's wait", err)
	}
	if o, err := s.SignIn(ctx, "alice@example.com", password, shared, device); err != nil || o.ID != alice.ID {
		t.Fatalf("the returning browser at the attacker's address: %v, want signed in", err)
	}
	for range 5 {
		if _, err := s.SignIn(ctx, "alice@example.com", "a wrong guess, again", shared, device); !errors.Is(err, owner.ErrBadCredentials) {
			t.Fatalf("the device's free failures: %v", err)
		}
	}
	if got := store.failures["device:dev1"].Failures; got != 5 {
		t.Errorf("the device's failures = %d, want 5", got)
	}
	if got := store.failures["address:"+shared].Failures; got != 1000 {
		t.Errorf("the address's failures = %d, want 1000: the device's are its own", got)
	}
	if _, err := s.SignIn(ctx, "alice@example.com", password, shared, device); !errors.As(err, new(*owner.ThrottledError)) {
		t.Errorf("the device after 5 failures of its own: %v, want a wait", err)
	}
}
