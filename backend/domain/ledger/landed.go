package ledger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Figures are the money of one transaction, in lamports.
type Figures struct {
	// GrossRebate is what the reclaimed items returned to the wallet.
	GrossRebate int64
	// NetRebate is the change of the wallet's balance.
	NetRebate int64
	// DonationAmount is what the donation wallet received.
	DonationAmount int64
	// NetworkFee is the fee the transaction paid the cluster.
	NetworkFee int64
	// ServiceFee is what the treasury received.
	ServiceFee int64
}

// Fees is NetworkFee + ServiceFee.
func (f Figures) Fees() int64 { return f.NetworkFee + f.ServiceFee }

// Figures returns the money of e: what the chain did once e is confirmed,
// the ticket's promise before.
func (e Entry) Figures() Figures {
	return Figures{GrossRebate: e.GrossRebate, NetRebate: e.NetRebate, DonationAmount: e.DonationAmount, NetworkFee: e.NetworkFee, ServiceFee: e.ServiceFee}
}

// SetFigures sets e's money to f, Fees included.
func (e *Entry) SetFigures(f Figures) {
	e.GrossRebate, e.NetRebate, e.DonationAmount, e.NetworkFee, e.ServiceFee = f.GrossRebate, f.NetRebate, f.DonationAmount, f.NetworkFee, f.ServiceFee
	e.Fees = f.Fees()
}

// Differs reports whether a confirmed entry landed with other figures than
// its ticket promised (a wallet that raised its priority fee; an account
// that received lamports after the build).
func (e Entry) Differs() bool {
	return e.Status == StatusConfirmed && e.Figures() != e.Promised
}

// Difference says how a confirmed entry's figures differ from its promise,
// "" when they agree: "network fee 5,000 → 15,000 (+10,000); net rebate
// 1,990,000 → 1,980,000 (-10,000)".
func (e Entry) Difference() string {
	if !e.Differs() {
		return ""
	}
	got, want := e.Figures(), e.Promised
	var parts []string
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"gross rebate", got.GrossRebate, want.GrossRebate},
		{"network fee", got.NetworkFee, want.NetworkFee},
		{"donation", got.DonationAmount, want.DonationAmount},
		{"service fee", got.ServiceFee, want.ServiceFee},
		{"net rebate", got.NetRebate, want.NetRebate},
	} {
		if c.got != c.want {
			parts = append(parts, fmt.Sprintf("%s %s → %s (%s)", c.name, lamports(c.want), lamports(c.got), signed(c.got-c.want)))
		}
	}
	return strings.Join(parts, "; ")
}

// Landing is what the chain reports of a landed transaction (getTransaction
// with its meta): the fee it paid and every account's balance before and
// after, by account index.
type Landing struct {
	Fee  uint64
	Keys []string
	Pre  []uint64
	Post []uint64
}

// ErrLanding is a landing the chain reported inconsistently.
var ErrLanding = errors.New("inconsistent landing")

// Figures computes what a landed transaction did: the wallet's balance
// change is the net rebate, the donation wallet's and the treasury's are the
// donation and the service fee, and the gross rebate is what the items
// returned (net + network fee + donation + service fee). A donation wallet
// that is also the treasury received both in one balance: the promised
// donation is taken as the donation, the rest as the service fee.
func (l Landing) Figures(wallet, donationWallet, treasury string, promised Figures) (Figures, error) {
	if len(l.Pre) != len(l.Keys) || len(l.Post) != len(l.Keys) {
		return Figures{}, fmt.Errorf("%w: %d keys, %d balances before, %d after", ErrLanding, len(l.Keys), len(l.Pre), len(l.Post))
	}
	change := func(key string) int64 {
		for i, k := range l.Keys {
			if k == key && key != "" {
				return int64(l.Post[i]) - int64(l.Pre[i])
			}
		}
		return 0
	}
	if len(l.Keys) == 0 || l.Keys[0] != wallet {
		return Figures{}, fmt.Errorf("%w: the fee payer is not the wallet %s", ErrLanding, wallet)
	}
	f := Figures{NetRebate: change(wallet), NetworkFee: int64(l.Fee), DonationAmount: change(donationWallet), ServiceFee: change(treasury)}
	if donationWallet != "" && donationWallet == treasury {
		f.DonationAmount = min(f.DonationAmount, promised.DonationAmount)
		f.ServiceFee -= f.DonationAmount
	}
	f.GrossRebate = f.NetRebate + f.NetworkFee + f.DonationAmount + f.ServiceFee
	return f, nil
}

// lamports formats n with thousands separators.
func lamports(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

func signed(n int64) string {
	if n > 0 {
		return "+" + lamports(n)
	}
	return lamports(n)
}
