package signedcheck

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestCheckBudget is the attacker's side of the compute budget: a page that
// changes the transaction before the wallet shows it. Built: limit 20,000,
// price 5,000 (a priority fee of 100 lamports); allowed: a limit of 26,000,
// a price of 5,000,000, a priority fee of 130,000 or 100 plus half the net
// rebate. A wallet's modest raise and a lowered budget land; the audit's
// price of 5e10 with two guards (a net rebate of -334,369,648 lamports) and
// every other way past the bounds are refused, naming the figure and its
// bound.
func TestCheckBudget(t *testing.T) {
	t.Parallel()
	b := built()
	ours := b[2:]
	guards := []solana.Instruction{assertSystemOwned(wallet), assertLamports(wallet, 5_000)}
	with := func(budget ...solana.Instruction) []solana.Instruction {
		return append(append(append([]solana.Instruction{}, budget...), ours...), guards...)
	}
	cases := []struct {
		name string
		net  int64
		ixs  []solana.Instruction
		want string // "" accepted
	}{
		{"as built, with Solflare's guards", fixtureNet, with(b[0], b[1]), ""},
		{"a wallet's raise: 2,000,000 micro-lamports", fixtureNet, with(b[0], computePrice(2_000_000)), ""},
		{"the cap itself, on the whole headroom", fixtureNet, with(computeLimit(26_000), computePrice(DefaultMaxPrice)), ""},
		{"a lowered limit and no price", fixtureNet, with(computeLimit(15_000)), ""},
		{"a cNFT burn (no rebate) at the cap", -5_100, with(b[0], computePrice(DefaultMaxPrice)), ""},
		{"the audit's attack: 5e10 with two guards", fixtureNet, with(b[0], computePrice(50_000_000_000)),
			"the compute unit price 50,000,000,000 micro-lamports is above the 5,000,000 this transaction accepts"},
		{"just above the cap", fixtureNet, with(b[0], computePrice(DefaultMaxPrice+1)),
			"the compute unit price 5,000,001 micro-lamports is above the 5,000,000"},
		{"the largest price", fixtureNet, with(b[0], computePrice(math.MaxUint64)), "is above the 5,000,000"},
		{"a limit one unit past the headroom", fixtureNet, with(computeLimit(26_001), b[1]),
			"the compute unit limit 26,001 is above the 26,000 this transaction accepts"},
		{"the largest limit at the built price", fixtureNet, with(computeLimit(math.MaxUint32), b[1]), "is above the 26,000"},
		{"the limit removed (the runtime's default)", fixtureNet, with(b[1]),
			"the message sets no compute unit limit, so the runtime gives the transaction up to 1,000,000 units, above the 26,000"},
		{"no compute budget at all", fixtureNet, ours,
			"the message sets no compute unit limit, so the runtime gives the transaction up to 600,000 units"},
		{"a fee past half a small net rebate", 20_000, with(b[0], computePrice(1_000_000)),
			"the compute unit price 1,000,000 micro-lamports makes a priority fee of 20,000 lamports at a limit of 20,000 units, above the 10,100 this transaction accepts (the built fee and at most half its net rebate): at that limit the price may be at most 505,000"},
		{"the most half a small net rebate allows", 20_000, with(b[0], computePrice(505_000)), ""},
		{"one micro-lamport more", 20_000, with(b[0], computePrice(505_001)), "makes a priority fee of 10,101 lamports"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := allowed(t, signedBy(t, b...), c.net)
			_, err := Check(d, wallet, signedBy(t, c.ixs...))
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var r *MismatchError
			if !errors.As(err, &r) || !strings.Contains(r.Reason, c.want) {
				t.Fatalf("got %v, want a refusal saying %q", err, c.want)
			}
		})
	}
}

// TestCheckWithoutBounds: a ticket issued before tickets stated bounds
// accepts no change beyond the exact message (which submit accepts by its
// hash, before Check).
func TestCheckWithoutBounds(t *testing.T) {
	t.Parallel()
	b := built()
	d := digest(t, signedBy(t, b...))
	d.Bounds = Bounds{}
	_, err := Check(d, wallet, signedBy(t, append(append([]solana.Instruction{}, b...), assertSystemOwned(wallet))...))
	if err == nil || !strings.Contains(err.Error(), "states no bounds for the compute budget") {
		t.Fatalf("err = %v", err)
	}
}

// TestAllow: DigestOf's bounds are the built budget; Allow widens them by
// the headroom and the price cap, the fee by at most half the net rebate,
// and never past the runtime's maximum limit.
func TestAllow(t *testing.T) {
	t.Parallel()
	msg := signedBy(t, built()...)
	if d := digest(t, msg); d.Bounds != (Bounds{MaxUnits: 20_000, MaxPrice: 5_000, MaxPriorityFee: 100}) {
		t.Fatalf("built bounds %+v", d.Bounds)
	}
	big := signedBy(t, append([]solana.Instruction{computeLimit(1_399_000), computePrice(10_000_000)}, built()[2:]...)...)
	noPrice := signedBy(t, append([]solana.Instruction{computeLimit(20_000)}, built()[2:]...)...)
	cases := []struct {
		name string
		msg  []byte
		a    Allowance
		net  int64
		want Bounds
	}{
		{"the defaults, a large net rebate", msg, allowance, fixtureNet, Bounds{26_000, DefaultMaxPrice, 130_000}},
		{"half the net rebate binds", msg, allowance, 20_000, Bounds{26_000, DefaultMaxPrice, 10_100}},
		{"no rebate: the price and limit alone", msg, allowance, -5_100, Bounds{26_000, DefaultMaxPrice, 130_000}},
		{"a built price above the cap stays", big, allowance, 1 << 40, Bounds{1_400_000, 10_000_000, 14_000_000}},
		{"no raise allowed", msg, Allowance{}, fixtureNet, Bounds{20_000, 5_000, 100}},
		{"no price built, none allowed", noPrice, Allowance{HeadroomUnits: 6_000}, fixtureNet, Bounds{26_000, 0, 0}},
		{"the largest net rebate", msg, allowance, math.MaxInt64, Bounds{26_000, DefaultMaxPrice, 130_000}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := digest(t, c.msg)
			d.Allow(c.a, c.net)
			if d.Bounds != c.want {
				t.Fatalf("bounds %+v, want %+v", d.Bounds, c.want)
			}
		})
	}
}

func TestPriorityFee(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		price uint64
		units uint32
		want  uint64
	}{
		{"no price", 0, 1_400_000, 0},
		{"a micro-lamport rounds up to a lamport", 1, 2_742, 1},
		{"exact", 1_000, 10_000, 10},
		{"just above a lamport", 3, 333_334, 2},
		{"just at a lamport", 3, 333_333, 1},
		{"a lamport per unit", 1_000_000, 1_400_000, 1_400_000},
		{"the audit's price", 50_000_000_000, 26_000, 1_300_000_000},
		{"saturates", math.MaxUint64, 1_400_000, math.MaxUint64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := PriorityFee(tc.price, tc.units); got != tc.want {
				t.Errorf("PriorityFee(%d, %d) = %d, want %d", tc.price, tc.units, got, tc.want)
			}
		})
	}
}

// TestMaxPriceFor: the price a refusal names is the largest whose fee fits.
func TestMaxPriceFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fee   uint64
		units uint32
	}{{10_100, 20_000}, {1, 3}, {130_000, 26_000}, {0, 7}, {1 << 50, 1}, {math.MaxUint64, 1_400_000}} {
		p := maxPriceFor(c.fee, c.units)
		if PriorityFee(p, c.units) > c.fee || (p < math.MaxUint64 && PriorityFee(p+1, c.units) <= c.fee) {
			t.Errorf("maxPriceFor(%d, %d) = %d", c.fee, c.units, p)
		}
	}
}
