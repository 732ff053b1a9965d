package webhook

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n        int
		min, max time.Duration
	}{
		{1, 4 * time.Second, 6 * time.Second},
		{2, 24 * time.Second, 36 * time.Second},
		{3, 96 * time.Second, 144 * time.Second},
		{4, 192 * time.Second, 288 * time.Second},
		{11, 6*time.Hour + 24*time.Minute, 9*time.Hour + 36*time.Minute}, // 256 min
		{12, 6*time.Hour + 24*time.Minute, 9*time.Hour + 36*time.Minute}, // capped at 8 h
		{100, 6*time.Hour + 24*time.Minute, 9*time.Hour + 36*time.Minute},
	}
	for _, c := range cases {
		lo, hi := Backoff(c.n, 0), Backoff(c.n, 0.999999)
		if lo < c.min || hi > c.max || lo >= hi {
			t.Errorf("Backoff(%d) from %s to %s, want within %s to %s", c.n, lo, hi, c.min, c.max)
		}
	}
	// The first retry under 10 s, the second under a minute, whatever the
	// jitter; and the schedule covers the window: it retries for at least
	// a day, in fewer than 30 attempts.
	if Backoff(1, 0.999999) >= 10*time.Second || Backoff(1, 0)+Backoff(2, 0.999999) >= time.Minute {
		t.Error("the first retries are not quick")
	}
	created := time.Unix(0, 0)
	at, n := created, 0
	for {
		n++
		st, next := Next(created, at, n, MinRetryFor, 0.5)
		if st == StateFailed {
			break
		}
		at = next
	}
	if at.Sub(created) < MinRetryFor || n > 30 {
		t.Errorf("given up after %s and %d attempts", at.Sub(created), n)
	}
}

func TestShouldDisable(t *testing.T) {
	t.Parallel()
	since := time.Unix(0, 0)
	day := 24 * time.Hour
	if ShouldDisable(since, 9, since.Add(10*day), 5*day) {
		t.Error("9 failures disable")
	}
	if ShouldDisable(since, 50, since.Add(4*day), 5*day) {
		t.Error("4 days disable")
	}
	if !ShouldDisable(since, 10, since.Add(5*day), 5*day) {
		t.Error("10 failures over 5 days do not disable")
	}
}
