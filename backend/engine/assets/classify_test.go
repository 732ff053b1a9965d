package assets

import "testing"

func TestAssetsUIAmount(t *testing.T) {
	t.Parallel()
	cases := []struct {
		amount   uint64
		decimals uint8
		want     float64
	}{
		{0, 6, 0},
		{1_500_000, 6, 1.5},
		{1, 9, 0.000000001},
		{123, 0, 123},
		{18_446_744_073_709_551_615, 0, 18446744073709551615},
		{18_446_744_073_709_551_615, 19, 1.8446744073709551615},
		{100_000_000, 9, 0.1},
	}
	for _, tc := range cases {
		if got := uiAmount(tc.amount, tc.decimals); got != tc.want {
			t.Errorf("uiAmount(%d, %d) = %v, want %v", tc.amount, tc.decimals, got, tc.want)
		}
	}
}
