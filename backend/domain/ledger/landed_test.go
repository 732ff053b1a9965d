package ledger

import (
	"errors"
	"testing"
)

func TestLandingFigures(t *testing.T) {
	t.Parallel()
	promised := Figures{GrossRebate: 2_039_280, NetRebate: 1_728_367, DonationAmount: 203_928, NetworkFee: 5_021, ServiceFee: 101_964}
	keys := []string{"wallet", "account", "donation", "treasury", "program"}
	landing := func(fee uint64, deltas ...int64) Landing {
		l := Landing{Fee: fee, Keys: keys}
		for i := range keys {
			pre := uint64(10_000_000)
			l.Pre = append(l.Pre, pre)
			l.Post = append(l.Post, uint64(int64(pre)+deltas[i]))
		}
		return l
	}
	cases := []struct {
		name                     string
		l                        Landing
		donationWallet, treasury string
		want                     Figures
	}{
		{"as promised", landing(5_021, 1_728_367, -2_039_280, 203_928, 101_964, 0), "donation", "treasury", promised},
		{"the wallet raised its priority fee", landing(15_021, 1_718_367, -2_039_280, 203_928, 101_964, 0), "donation", "treasury",
			Figures{GrossRebate: 2_039_280, NetRebate: 1_718_367, DonationAmount: 203_928, NetworkFee: 15_021, ServiceFee: 101_964}},
		{"the account received lamports after the build", landing(5_021, 1_728_368, -2_039_281, 203_928, 101_964, 0), "donation", "treasury",
			Figures{GrossRebate: 2_039_281, NetRebate: 1_728_368, DonationAmount: 203_928, NetworkFee: 5_021, ServiceFee: 101_964}},
		{"no transfers", landing(5_000, 2_034_280, -2_039_280, 0, 0, 0), "", "",
			Figures{GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5_000}},
		{"donation wallet is the treasury", landing(5_021, 1_728_367, -2_039_280, 305_892, 0, 0), "donation", "donation", promised},
	}
	for _, c := range cases {
		got, err := c.l.Figures("wallet", c.donationWallet, c.treasury, promised)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.name, got, err, c.want)
		}
	}
	if _, err := landing(5_000, 0, 0, 0, 0, 0).Figures("someone else", "", "", promised); !errors.Is(err, ErrLanding) {
		t.Errorf("another fee payer: %v", err)
	}
	short := landing(5_000, 0, 0, 0, 0, 0)
	short.Post = short.Post[:2]
	if _, err := short.Figures("wallet", "", "", promised); !errors.Is(err, ErrLanding) {
		t.Errorf("short balances: %v", err)
	}
}

func TestDifference(t *testing.T) {
	t.Parallel()
	e := Entry{Status: StatusConfirmed, Promised: Figures{GrossRebate: 2_000_000, NetRebate: 1_995_000, NetworkFee: 5_000}}
	e.SetFigures(e.Promised)
	if e.Differs() || e.Difference() != "" {
		t.Fatalf("as promised: %q", e.Difference())
	}
	e.SetFigures(Figures{GrossRebate: 2_000_001, NetRebate: 1_985_001, NetworkFee: 15_000})
	if !e.Differs() || e.Fees != 15_000 {
		t.Fatalf("differs %t, fees %d", e.Differs(), e.Fees)
	}
	want := "gross rebate 2,000,000 → 2,000,001 (+1); network fee 5,000 → 15,000 (+10,000); net rebate 1,995,000 → 1,985,001 (-9,999)"
	if got := e.Difference(); got != want {
		t.Fatalf("difference\n %q\nwant %q", got, want)
	}
	e.Status = StatusSubmitted
	if e.Differs() {
		t.Fatal("an entry not confirmed carries its promise")
	}
}
