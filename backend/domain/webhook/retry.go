package webhook

import (
	"fmt"
	"time"
)

// Timeout is how long a receiver has to answer an attempt (its head).
const Timeout = 10 * time.Second

// DefaultRetryFor is how long a failing delivery is tried again before it
// is given up (RECLAIM_WEBHOOK_RETRY_FOR): three days, as Stripe does, for
// a receiver down over a weekend night.
const DefaultRetryFor = 72 * time.Hour

// MinRetryFor is the shortest retry window an operator may set: a day.
const MinRetryFor = 24 * time.Hour

// DefaultDisableAfter is how long an endpoint may fail every attempt
// before it is disabled (RECLAIM_WEBHOOK_DISABLE_AFTER), once it failed at
// least DisableFailures times in a row.
const DefaultDisableAfter = 5 * 24 * time.Hour

// DisableFailures is the fewest failures in a row that disable an endpoint,
// however long they took: an endpoint that failed its first attempt and
// got no event for a week is not disabled for that.
const DisableFailures = 10

// maxBackoff bounds the wait between two attempts.
const maxBackoff = 8 * time.Hour

// Backoff is the wait before the next attempt once a delivery failed n
// times (n >= 1); r in [0, 1) draws its jitter (±20%), so receivers that
// failed together are not retried together. Most failures are blips: the
// first retry comes after about 5 s (4 to 6), the second after about 30 s
// (24 to 36); then 2 min, doubling to 8 h at most.
func Backoff(n int, r float64) time.Duration {
	var base time.Duration
	switch {
	case n <= 1:
		base = 5 * time.Second
	case n == 2:
		base = 30 * time.Second
	case n-3 >= 12: // past 8 h
		base = maxBackoff
	default:
		base = min(2*time.Minute<<(n-3), maxBackoff)
	}
	return time.Duration(float64(base) * (0.8 + 0.4*r))
}

// Next decides a delivery's state after an attempt at at that failed for
// the n-th time: pending again at the returned time, or failed for good
// when the retry window since the delivery was created is over.
func Next(created, at time.Time, n int, retryFor time.Duration, r float64) (State, time.Time) {
	if at.Sub(created) >= retryFor {
		return StateFailed, time.Time{}
	}
	return StatePending, at.Add(Backoff(n, r))
}

// ShouldDisable reports whether an endpoint that has failed failures times
// in a row since since should be disabled at now.
func ShouldDisable(since time.Time, failures int, now time.Time, after time.Duration) bool {
	return failures >= DisableFailures && now.Sub(since) >= after
}

// DisabledReason is what the console says of an endpoint ShouldDisable
// disabled, with its last attempt's failure.
func DisabledReason(since time.Time, failures int, last string) string {
	return fmt.Sprintf("disabled after %d failed attempts in a row since %s (the last: %s); fix the receiver, then enable the endpoint",
		failures, since.UTC().Format("2006-01-02 15:04 UTC"), last)
}
