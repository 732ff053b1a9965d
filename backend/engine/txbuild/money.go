package txbuild

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sort"
	"strconv"
)

// Money is integer lamports throughout. Fractions are applied exactly and
// rounded down, so the user never receives less than the figures promise and
// a rounding never costs the wallet a lamport it was not told about.

// SignatureFee is the base fee per signature, in lamports.
const SignatureFee = 5000

// parseFraction turns a donation percentage (a fraction from 0 to 1) into the
// exact rational its shortest decimal form denotes: 0.1 is 1/10, not the
// binary float just above it, so floor(gross * 0.1) never loses a lamport to
// float rounding.
func parseFraction(p float64) (*big.Rat, error) {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return nil, fmt.Errorf("donationPercentage %v is not between 0 and 1", p)
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(p, 'f', -1, 64))
	if !ok {
		return nil, fmt.Errorf("donationPercentage %v is not a number", p)
	}
	return r, nil
}

// floorFraction is floor(gross * frac) for 0 <= frac <= 1.
func floorFraction(gross uint64, frac *big.Rat) uint64 {
	n := new(big.Int).SetUint64(gross)
	n.Mul(n, frac.Num())
	n.Quo(n, frac.Denom()) // both non-negative: truncation is floor
	return n.Uint64()
}

// serviceFee is floor(gross * bps / 10000), computed without overflow.
func serviceFee(gross uint64, bps int) uint64 {
	hi, lo := bits.Mul64(gross, uint64(bps))
	q, _ := bits.Div64(hi, lo, 10_000) // bps <= 10000, so hi < 10000
	return q
}

// Priority levels and the percentile of recent prioritization fees each one
// pays.
var priorityPercentiles = map[string]int{
	PriorityNone:   0,
	PriorityLow:    25,
	PriorityMedium: 50,
	PriorityHigh:   75,
}

// percentile is the nearest-rank percentile of fees: sort ascending and take
// the value at rank ceil(pct/100 * n) (1-based), so the 50th of [1 2 3 4] is
// 2 and of [1 2 3] is 2. No fees give 0.
func percentile(fees []uint64, pct int) uint64 {
	if len(fees) == 0 {
		return 0
	}
	sorted := append([]uint64(nil), fees...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	rank := (pct*len(sorted) + 99) / 100
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

// computeLimit is the limit set for a transaction that consumed units in
// simulation: 10% and 1,000 units more, for state that differs slightly when
// it lands, capped at the transaction maximum.
func computeLimit(units uint64) uint32 {
	limit := units + units/10 + 1_000
	if limit > MaxComputeUnits {
		return MaxComputeUnits
	}
	return uint32(limit)
}
