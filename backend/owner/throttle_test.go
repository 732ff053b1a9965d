package owner

import (
	"testing"
	"time"
)

func TestThrottlePolicy(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		failures int
		after    time.Duration
		want     time.Duration
	}{
		{2, 0, 0},
		{3, 0, time.Second},
		{3, time.Second, 0},
		{5, time.Second, 3 * time.Second},
		{9, 0, 64 * time.Second},
		{10, time.Minute, 14 * time.Minute},
		{12, 15 * time.Minute, 0},
	}
	for _, c := range cases {
		f := SignInFailures{Failures: c.failures, LastAt: t0}
		if got := retryAfter(f, t0.Add(c.after)); got != c.want {
			t.Errorf("%d failures, %v later: wait %v, want %v", c.failures, c.after, got, c.want)
		}
	}
}
