package ratelimit

import (
	"fmt"
	"math"
	"time"
)

// The bounds of a bucket, as both limiters keep it.
const (
	// MaxRPS is one request a microsecond: Redis keeps a bucket in
	// microseconds, and one token refills in at least one.
	MaxRPS = 1_000_000
	// MaxBurst is the largest capacity a bucket takes.
	MaxBurst = 10_000_000
	// maxFill is the longest an empty bucket may take to refill
	// (burst / rps): Memory keeps it in nanoseconds, and every value the
	// Redis script sees must be an exact double (2^53).
	maxFill = time.Duration(1 << 53)
)

// Check reports whether rps and burst describe a bucket the limiters can
// keep, and if not, which bound they break, in the terms of a setting: the
// rate above 0 and at most MaxRPS, the burst from 1 to MaxBurst, and a rate
// high enough for the burst (an empty bucket refills within maxFill, about
// 104 days). NewMemory and NewRedis panic on what Check refuses.
func Check(rps float64, burst int) error {
	switch {
	case math.IsNaN(rps) || rps <= 0 || rps > MaxRPS:
		return fmt.Errorf("the rate must be above 0 and at most %d requests per second (one a microsecond), got %g", MaxRPS, rps)
	case burst < 1 || burst > MaxBurst:
		return fmt.Errorf("the burst must be from 1 to %d, got %d", MaxBurst, burst)
	case float64(burst)/rps > maxFill.Seconds():
		return fmt.Errorf("the rate must be at least %.3g requests per second for a burst of %d: an empty bucket must refill within %d seconds (about %d days)",
			float64(burst)/maxFill.Seconds(), burst, int64(maxFill.Seconds()), int64(maxFill.Hours()/24))
	}
	return nil
}
