package owner

import (
	"context"
	"fmt"
	"time"
)

// Sign-in throttling. Failed sign-ins are counted under two keys: the
// client's address, whatever emails it tried, and the account (the email,
// known or not), wherever the attempts came from. Each count earns a
// growing delay before the next attempt is heard, never a lock:
//
//   - an address: addressFree failures are free, then 1 s, 2 s, 4 s ... up
//     to addressMaxWait between its attempts;
//   - an account: accountFree failures are free, then 1 s, 2 s ... up to
//     accountMaxWait between attempts at it, but only from addresses that
//     have failed cleanFailures times or more themselves. A clean address
//     (the owner's, somewhere the attacker is not) is heard at once, so an
//     attacker slows the account's guessers down but never locks its owner
//     out.
//
// A returning browser (Device) is counted by its device cookie in place of
// its address, so that an attacker sharing the owner's address (a NAT, a
// proxy) does not slow the owner down, and a stolen cookie still earns the
// delays above.
//
// A count is forgotten forgetAfter its last failure. An account's is
// cleared when it signs in; an address's is not, or a client could clear
// its own by signing in to an account of its own between guesses.
const (
	addressFree    = 5
	addressMaxWait = 5 * time.Minute
	accountFree    = 5
	accountMaxWait = time.Minute
	cleanFailures  = 3
	forgetAfter    = 15 * time.Minute
)

// ThrottledError is returned by SignIn when the client's address, or the
// account from an address that failed before, has failed too often: no
// attempt is heard before Wait has passed.
type ThrottledError struct {
	Wait time.Duration
}

// Error says how long to wait.
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many failed sign-ins: retry in %v", e.Wait)
}

// addressKey names the failures of one client address.
func addressKey(client string) string { return "address:" + client }

// deviceKey names the failures of one returning browser (Device.ID),
// counted in place of its address's.
func deviceKey(id string) string { return "device:" + id }

// accountKey names the failures at one email.
func accountKey(email string) string { return "account:" + NormalizeEmail(email) }

// stale reports whether f is old enough to be forgotten.
func stale(f SignInFailures, now time.Time) bool {
	return f.Failures > 0 && now.Sub(f.LastAt) >= forgetAfter
}

// delay returns how long f's key must wait before its next attempt is
// heard, 0 when it may try now: free failures cost nothing, then the wait
// doubles from a second up to maxWait.
func delay(f SignInFailures, free int, maxWait time.Duration, now time.Time) time.Duration {
	if f.Failures < free || stale(f, now) {
		return 0
	}
	wait := maxWait
	if n := f.Failures - free; n < 30 {
		wait = min(maxWait, time.Second<<n)
	}
	if left := f.LastAt.Add(wait).Sub(now); left > 0 {
		return left
	}
	return 0
}

// retryAfter returns how long an attempt from an address with failures
// addr at an account with failures account must wait, 0 when it is heard
// now.
func retryAfter(addr, account SignInFailures, now time.Time) time.Duration {
	wait := delay(addr, addressFree, addressMaxWait, now)
	if addr.Failures >= cleanFailures && !stale(addr, now) {
		wait = max(wait, delay(account, accountFree, accountMaxWait, now))
	}
	return wait
}

// failures returns the live failures under key; stale ones are cleared, so
// that the next failure counts from one.
func (s *Service) failures(ctx context.Context, key string, now time.Time) (SignInFailures, error) {
	f, err := s.store.SignInFailures(ctx, key)
	if err != nil || !stale(f, now) {
		return f, err
	}
	return SignInFailures{Key: key}, s.store.ClearSignInFailures(ctx, key)
}
