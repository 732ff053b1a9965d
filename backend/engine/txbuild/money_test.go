package txbuild

import (
	"math"
	"testing"
)

func TestDonationIsExact(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		gross uint64
		p     float64
		want  uint64
	}{
		{"zero", 2_039_280, 0, 0},
		{"all", 2_039_280, 1, 2_039_280},
		{"tenth of a token account", 2_039_280, 0.1, 203_928},
		{"tenth floors", 19, 0.1, 1},
		{"tenth of e2e closures", 142_859_680, 0.1, 14_285_968},
		// float64(90)*0.7 is 62.99999999999999: float math loses a lamport.
		{"0.7 where float is off by one", 90, 0.7, 63},
		{"0.29 where float is off by one", 100, 0.29, 29},
		{"0.29 of 400", 400, 0.29, 116},
		{"many digits", 1_000_000_000, 0.123456789, 123_456_789},
		{"smallest positive", 1_000_000, 5e-324, 0},
		{"largest gross", math.MaxUint64, 0.5, math.MaxUint64 / 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			frac, err := parseFraction(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if got := floorFraction(tc.gross, frac); got != tc.want {
				t.Errorf("floor(%d * %v) = %d, want %d", tc.gross, tc.p, got, tc.want)
			}
		})
	}
}

func TestParseFractionRejects(t *testing.T) {
	t.Parallel()
	for _, p := range []float64{-0.1, 1.0000001, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := parseFraction(p); err == nil {
			t.Errorf("parseFraction(%v) accepted", p)
		}
	}
}

func TestServiceFee(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		gross uint64
		bps   int
		want  uint64
	}{
		{"none", 2_039_280, 0, 0},
		{"500 bps", 2_039_280, 500, 101_964},
		{"500 bps floors", 2_039_299, 500, 101_964},
		{"1 bps below a lamport", 9_999, 1, 0},
		{"1 bps at a lamport", 10_000, 1, 1},
		{"everything", 2_039_280, 10_000, 2_039_280},
		{"no overflow", math.MaxUint64, 10_000, math.MaxUint64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := serviceFee(tc.gross, tc.bps); got != tc.want {
				t.Errorf("serviceFee(%d, %d) = %d, want %d", tc.gross, tc.bps, got, tc.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	hundred := make([]uint64, 100)
	for i := range hundred {
		hundred[i] = uint64(100 - i) // descending: percentile sorts
	}
	cases := []struct {
		name string
		fees []uint64
		pct  int
		want uint64
	}{
		{"no fees", nil, 50, 0},
		{"one fee", []uint64{7}, 25, 7},
		{"25th of four", []uint64{4, 1, 3, 2}, 25, 1},
		{"50th of four", []uint64{4, 1, 3, 2}, 50, 2},
		{"75th of four", []uint64{4, 1, 3, 2}, 75, 3},
		{"50th of three", []uint64{30, 10, 20}, 50, 20},
		{"25th of 1..100", hundred, 25, 25},
		{"75th of 1..100", hundred, 75, 75},
		{"mostly zero", []uint64{0, 0, 0, 5000}, 75, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := percentile(tc.fees, tc.pct); got != tc.want {
				t.Errorf("percentile(%v, %d) = %d, want %d", tc.fees, tc.pct, got, tc.want)
			}
		})
	}
}

func TestComputeLimit(t *testing.T) {
	t.Parallel()
	for units, want := range map[uint64]uint32{0: 1_000, 2_742: 4_016, 21_658: 24_823, 1_272_000: MaxComputeUnits, 2_000_000: MaxComputeUnits} {
		if got := computeLimit(units); got != want {
			t.Errorf("computeLimit(%d) = %d, want %d", units, got, want)
		}
	}
}
