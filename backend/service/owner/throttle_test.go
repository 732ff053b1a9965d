package owner

import (
	"testing"
	"time"
)

func TestThrottlePolicy(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fails := func(n int) SignInFailures { return SignInFailures{Failures: n, LastAt: t0} }
	cases := []struct {
		name          string
		addr, account SignInFailures
		after         time.Duration
		want          time.Duration
	}{
		{name: "nothing failed", want: 0},
		{name: "address: four failures are free", addr: fails(4), want: 0},
		{name: "address: the fifth waits a second", addr: fails(5), want: time.Second},
		{name: "address: a second later", addr: fails(5), after: time.Second, want: 0},
		{name: "address: doubling", addr: fails(8), after: time.Second, want: 7 * time.Second},
		{name: "address: up to five minutes", addr: fails(40), want: 5 * time.Minute},
		{name: "address: never a lock", addr: fails(1000), after: 5 * time.Minute, want: 0},
		{name: "address: forgotten after 15 minutes", addr: fails(40), after: 15 * time.Minute, want: 0},
		{name: "account from a clean address: heard at once", addr: fails(2), account: fails(500), want: 0},
		{name: "account from a fresh address: heard at once", account: fails(500), want: 0},
		{name: "account from an address that failed 3 times", addr: fails(3), account: fails(5), want: time.Second},
		{name: "account: doubling", addr: fails(3), account: fails(9), want: 16 * time.Second},
		{name: "account: up to a minute", addr: fails(3), account: fails(500), want: time.Minute},
		{name: "account: a minute later", addr: fails(3), account: fails(500), after: time.Minute, want: 0},
		{name: "the longer of the two", addr: fails(20), account: fails(500), want: 5 * time.Minute},
		{name: "a stale address is clean", addr: SignInFailures{Failures: 4, LastAt: t0.Add(-15 * time.Minute)}, account: fails(500), want: 0},
	}
	for _, c := range cases {
		if got := retryAfter(c.addr, c.account, t0.Add(c.after)); got != c.want {
			t.Errorf("%s: wait %v, want %v", c.name, got, c.want)
		}
	}
}
