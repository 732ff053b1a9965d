package admin

import (
	"fmt"
	"time"

	"github.com/reclaim-sol/reclaim/backend/owner"
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

// throttleKey names the failures of one email from one client address.
func throttleKey(email, ip string) string {
	return normalizeEmail(email) + "|" + ip
}

// stale reports whether f is old enough to be forgotten.
func stale(f owner.SignInFailures, now time.Time) bool {
	return f.Failures > 0 && now.Sub(f.LastAt) >= lockout
}

// retryAfter returns how long the pair must wait before its next attempt is
// heard, 0 when it may try now.
func retryAfter(f owner.SignInFailures, now time.Time) time.Duration {
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

// throttleMessage tells the owner how long to wait.
func throttleMessage(wait time.Duration) string {
	if wait > time.Minute {
		return fmt.Sprintf("Too many failed sign-ins. This account is locked on this network for %d minutes; try again later.",
			int((wait+time.Minute-1)/time.Minute))
	}
	secs := int((wait + time.Second - 1) / time.Second)
	unit := "seconds"
	if secs == 1 {
		unit = "second"
	}
	return fmt.Sprintf("Too many failed sign-ins. Wait %d %s before trying again.", secs, unit)
}
