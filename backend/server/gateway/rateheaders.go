package gateway

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
)

// The quota policies a request spends from, as the RateLimit-Policy and
// RateLimit headers name them.
const (
	policyAddress = "address" // the client address's bucket
	policyWallet  = "wallet"  // one wallet's share of its project's quota
	policyProject = "project" // the project's quota
)

// ratePolicy is one bucket's decision for a request.
type ratePolicy struct {
	name string
	// limits is the bucket's size; a zero RPS: its window is not told.
	limits ratelimit.Limits
	res    ratelimit.Result
}

// RateNote is the decisions of the buckets a request spent from (or was
// refused by), in the order they were asked.
type RateNote []ratePolicy

// SetHeaders writes the decisions into h: X-RateLimit-Limit and
// X-RateLimit-Remaining of the bucket that refused, or else of the one with
// the fewest requests left, and every bucket in the RateLimit-Policy and
// RateLimit fields of draft-ietf-httpapi-ratelimit-headers (-11):
//
//	RateLimit-Policy: "wallet";q=20;w=2, "project";q=400;w=2
//	RateLimit: "wallet";r=19;t=1, "project";r=399;t=1
//
// q is the bucket's burst and w the seconds an empty bucket takes to fill
// again; r is the whole requests left and t the seconds until one more (the
// Retry-After of a refusing bucket), left out while the bucket is full.
func (n RateNote) SetHeaders(h http.Header) {
	if len(n) == 0 {
		return
	}
	pick := n[len(n)-1]
	for i := len(n) - 1; i >= 0; i-- {
		if !n[i].res.Allowed {
			pick = n[i]
			break
		}
		if n[i].res.Remaining < pick.res.Remaining {
			pick = n[i]
		}
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(pick.res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(pick.res.Remaining))
	var policy, state strings.Builder
	for i, p := range n {
		if i > 0 {
			policy.WriteString(", ")
			state.WriteString(", ")
		}
		policy.WriteString(strconv.Quote(p.name) + ";q=" + strconv.Itoa(p.res.Limit))
		if p.limits.RPS > 0 {
			policy.WriteString(";w=" + strconv.FormatInt(ceilSeconds(time.Duration(float64(p.limits.Burst)/p.limits.RPS*float64(time.Second))), 10))
		}
		state.WriteString(strconv.Quote(p.name) + ";r=" + strconv.Itoa(p.res.Remaining))
		next := p.res.Next
		if !p.res.Allowed {
			next = p.res.RetryAfter
		}
		if next > 0 {
			state.WriteString(";t=" + strconv.FormatInt(ceilSeconds(next), 10))
		}
	}
	h.Set("RateLimit-Policy", policy.String())
	h.Set("RateLimit", state.String())
}

// ceilSeconds is d in whole seconds, rounded up, at least 1.
func ceilSeconds(d time.Duration) int64 {
	return max(1, int64(math.Ceil(d.Seconds())))
}
