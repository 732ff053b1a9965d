package signedcheck

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

// What a wallet may set of the compute budget. The wallet pays the fee, but
// a page can change the transaction before the wallet shows it, and a price
// of 5e10 micro-lamports turned a rebate into a loss of 0.33 SOL. So the
// ticket states bounds (Bounds, in the Digest), and Check refuses a message
// beyond them:
//   - the limit at most the built one plus the guard headroom
//     (Allowance.HeadroomUnits): what the assertions a wallet adds need,
//     should it raise the limit for them;
//   - the price at most the larger of the built one and Allowance.MaxPrice
//     (RECLAIM_MAX_COMPUTE_UNIT_PRICE, DefaultMaxPrice: the ceiling x402's
//     facilitators apply to what a payer may set);
//   - the priority fee (price × limit) at most the built one plus half the
//     transaction's net rebate, when it has one: whatever the wallet sets,
//     the user keeps at least half of what the build promised, and never
//     pays to reclaim.
//
// A message without SetComputeUnitLimit gets the runtime's default, taken
// as 200,000 units per instruction (the most any runtime version gives), so
// a wallet that drops the limit is held to the same bounds.

// DefaultMaxPrice is the default of Allowance.MaxPrice, in micro-lamports
// per compute unit: 5 lamports a unit.
const DefaultMaxPrice = 5_000_000

const (
	// maxComputeUnits is the runtime's largest compute unit limit.
	maxComputeUnits = 1_400_000
	// defaultUnitsPerInstruction is the runtime's limit per instruction
	// without SetComputeUnitLimit (3,000 for builtin programs since agave
	// 2.2; the larger is assumed).
	defaultUnitsPerInstruction = 200_000
	microLamportsPerLamport    = 1_000_000
)

// Bounds are the most a wallet may set of a transaction's compute budget.
// DigestOf sets them to the built budget; Allow widens them.
type Bounds struct {
	// MaxUnits is the largest compute unit limit accepted.
	MaxUnits uint32 `json:"mu,omitempty"`
	// MaxPrice is the largest compute unit price, in micro-lamports.
	MaxPrice uint64 `json:"mp,omitempty"`
	// MaxPriorityFee is the largest priority fee (ceil(price × limit /
	// 1e6)), in lamports.
	MaxPriorityFee uint64 `json:"mpf,omitempty"`
}

// Allowance is how far a wallet may raise a transaction's compute budget
// beyond what was built.
type Allowance struct {
	// HeadroomUnits may be added to the built compute unit limit
	// (RECLAIM_GUARD_HEADROOM_UNITS).
	HeadroomUnits uint32
	// MaxPrice is the highest compute unit price a wallet may set, in
	// micro-lamports, when the built price is lower
	// (RECLAIM_MAX_COMPUTE_UNIT_PRICE).
	MaxPrice uint64
}

// Allow widens d's bounds, the built compute budget as DigestOf sets them,
// by a, for a transaction whose net rebate as built is net (negative for
// cNFT burns alone, which return nothing: then only the price and limit
// bound the fee). Call it once.
func (d *Digest) Allow(a Allowance, net int64) {
	built := d.MaxPriorityFee
	d.MaxUnits = uint32(min(uint64(d.MaxUnits)+uint64(a.HeadroomUnits), maxComputeUnits))
	d.MaxPrice = max(d.MaxPrice, a.MaxPrice)
	d.MaxPriorityFee = PriorityFee(d.MaxPrice, d.MaxUnits)
	if net > 0 {
		half, carry := bits.Add64(built, uint64(net)/2, 0)
		if carry == 0 {
			d.MaxPriorityFee = min(d.MaxPriorityFee, half)
		}
	}
}

// PriorityFee is what the runtime charges for a compute unit price (in
// micro-lamports) on a compute unit limit: ceil(price * limit / 1e6),
// saturating at the largest uint64 as the runtime does.
func PriorityFee(microLamports uint64, units uint32) uint64 {
	hi, lo := bits.Mul64(microLamports, uint64(units))
	lo, carry := bits.Add64(lo, microLamportsPerLamport-1, 0)
	hi += carry
	if hi >= microLamportsPerLamport {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, microLamportsPerLamport)
	return q
}

// maxPriceFor is the largest price whose priority fee on units stays within
// fee: floor(fee * 1e6 / units) (any price, when fee is the saturated
// largest).
func maxPriceFor(fee uint64, units uint32) uint64 {
	if units == 0 || fee == math.MaxUint64 {
		return math.MaxUint64
	}
	hi, lo := bits.Mul64(fee, microLamportsPerLamport)
	if hi >= uint64(units) {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, uint64(units))
	return q
}

// budget is a message's compute budget as the runtime takes it.
type budget struct {
	units uint32
	price uint64
	// fee is the priority fee in lamports: PriorityFee(price, units), or a
	// v1 message's total.
	fee uint64
	// explicit is false when no SetComputeUnitLimit (or v1 mask bit) sets
	// units.
	explicit bool
	// total is true for a v1 message: its fee is a total in lamports, and
	// price only what it comes to per unit.
	total bool
}

// budget reads m's compute unit limit and price (sort has refused a second
// of either), or a v1 message's limit and total fee.
func (m *message) budget() budget {
	if m.v1() {
		return m.v1Budget()
	}
	var b budget
	others := 0
	for _, ix := range m.instructions {
		switch computeBudgetKind(m.keys[ix.program], ix) {
		case computeUnitLimit:
			b.units, b.explicit = binary.LittleEndian.Uint32(ix.data[1:]), true
		case computeUnitPrice:
			b.price = binary.LittleEndian.Uint64(ix.data[1:])
		default:
			others++
		}
	}
	if !b.explicit {
		b.units = uint32(min(uint64(others)*defaultUnitsPerInstruction, maxComputeUnits))
	}
	b.fee = PriorityFee(b.price, b.units)
	return b
}

// check refuses a compute budget beyond the bounds, naming the figure and
// its bound.
func (bd Bounds) check(b budget) error {
	if bd.MaxUnits == 0 {
		return refuse("the ticket states no bounds for the compute budget (it was issued before tickets did), so only the exact built message is accepted; rebuild the transactions")
	}
	switch {
	case b.units > bd.MaxUnits && !b.explicit:
		return refuse("the message sets no compute unit limit, so the runtime gives the transaction up to %s units, above the %s it accepts (the built limit and the guards' headroom)",
			group(uint64(b.units)), group(uint64(bd.MaxUnits)))
	case b.units > bd.MaxUnits:
		return refuse("the compute unit limit %s is above the %s this transaction accepts (the built limit and the guards' headroom)",
			group(uint64(b.units)), group(uint64(bd.MaxUnits)))
	case b.total:
		return bd.checkTotal(b)
	case b.price > bd.MaxPrice:
		return refuse("the compute unit price %s micro-lamports is above the %s this transaction accepts",
			group(b.price), group(bd.MaxPrice))
	}
	if fee := b.fee; fee > bd.MaxPriorityFee {
		return refuse("the compute unit price %s micro-lamports makes a priority fee of %s lamports at a limit of %s units, above the %s this transaction accepts (the built fee and at most half its net rebate): at that limit the price may be at most %s",
			group(b.price), group(fee), group(uint64(b.units)), group(bd.MaxPriorityFee), group(maxPriceFor(bd.MaxPriorityFee, b.units)))
	}
	return nil
}

// group writes n with thousands separators.
func group(n uint64) string {
	s := strconv.FormatUint(n, 10)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// checkTotal refuses a v1 message's total priority fee beyond the bounds:
// above the most its limit allows at the price cap, or above the fee bound.
func (bd Bounds) checkTotal(b budget) error {
	if most := PriorityFee(bd.MaxPrice, b.units); b.fee > most {
		return refuse("the config mask's priority fee of %s lamports on a limit of %s units is %s micro-lamports a unit, above the %s this transaction accepts: at that limit the fee may be at most %s lamports",
			group(b.fee), group(uint64(b.units)), group(b.price), group(bd.MaxPrice), group(most))
	}
	if b.fee > bd.MaxPriorityFee {
		return refuse("the config mask's priority fee of %s lamports is above the %s this transaction accepts (the built fee and at most half its net rebate)",
			group(b.fee), group(bd.MaxPriorityFee))
	}
	return nil
}
