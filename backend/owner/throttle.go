package owner

import (
	"fmt"
	"time"
)

// Sign-in throttling, per email and client address: the first freeFailures
// failures cost nothing; each further one doubles the wait before the next
// attempt is heard (1 s, 2 s, 4 s ...); after lockFailures the pair is locked
// out for lockout. Failures older than lockout are forgotten.
const (
	freeFailures = 3
	lockFailures = 10
	lockout      = 15 * time.Minute
)

// ThrottledError is returned by SignIn when the email has failed too often
// from the client: no attempt is heard before Wait has passed.
type ThrottledError struct {
	Wait time.Duration
}

// Error says how long to wait.
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many failed sign-ins: retry in %v", e.Wait)
}

// throttleKey names the failures of one email from one client address.
func throttleKey(email, client string) string {
	return NormalizeEmail(email) + "|" + client
}

// stale reports whether f is old enough to be forgotten.
func stale(f SignInFailures, now time.Time) bool {
	return f.Failures > 0 && now.Sub(f.LastAt) >= lockout
}

// retryAfter returns how long the pair must wait before its next attempt is
// heard, 0 when it may try now.
func retryAfter(f SignInFailures, now time.Time) time.Duration {
	if f.Failures < freeFailures || stale(f, now) {
		return 0
	}
	var wait time.Duration
	if f.Failures >= lockFailures {
		wait = lockout
	} else {
		wait = time.Second << (f.Failures - freeFailures)
	}
	if left := f.LastAt.Add(wait).Sub(now); left > 0 {
		return left
	}
	return 0
}
