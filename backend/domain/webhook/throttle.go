package webhook

import (
	"fmt"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// The throttle of the deliveries an owner asks for by hand (a test event,
// a redelivery): ManualBurst at once per endpoint, then one every
// ManualEvery.
const (
	ManualBurst = 5
	ManualEvery = 12 * time.Second
)

// Throttled is a test event or a redelivery refused because the endpoint
// had its share of them; RetryAfter is when the next is allowed.
func Throttled(retryAfter time.Duration) *ThrottledError {
	return &ThrottledError{RetryAfter: retryAfter}
}

// ThrottledError is a test event or redelivery refused by the endpoint's
// throttle. It is a fault.KindConflict: nothing the request says is wrong;
// the same request later succeeds.
type ThrottledError struct {
	RetryAfter time.Duration
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("this endpoint was sent %d test events or redeliveries in the last minute, the most it may have: try again in %d s",
		ManualBurst, RetryAfterSeconds(e.RetryAfter))
}

// Unwrap makes the error a fault.KindConflict with the same message, for
// faces that map faults by kind.
func (e *ThrottledError) Unwrap() error { return fault.New(fault.KindConflict, e.Error()) }

// RetryAfterSeconds is d in whole seconds, rounded up, at least 1.
func RetryAfterSeconds(d time.Duration) int64 {
	return max(1, int64((d+time.Second-1)/time.Second))
}
