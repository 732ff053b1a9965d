package e2e

import (
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestDonationOnRentOnly (issue 31, finding 4): a wallet holds 0.05 wrapped
// SOL, a deactivated stake account (2 SOL of principal above its reserve)
// and an empty token account, and builds their reclaim with a 10% donation
// and the service's 5% fee. Each transaction's donation and service fee are
// those fractions of its rent alone: the rent-exempt minimum of each
// account's size as the validator computes it (getMinimumBalanceForRentExemption),
// capped by its balance; the wrapped SOL and the principal are the wallet's
// own and come back whole (ownBalanceRebate). Signed and landed, the wallet
// gains exactly the sum of the net rebates, the donation wallet and the
// treasury exactly the donations and fees; the submission status, and the
// stats once the tracker counted them, split the gross the same way.
func TestDonationOnRentOnly(t *testing.T) {
	t.Parallel()
	v := harness.Private(t) // the stake's epochs are warped: the whole cluster moves
	s := startService(t, v, "RECLAIM_CHAIN_POLL_MS=0")
	owner, issuer := v.NewWallet(t, 100*solana.LAMPORTS_PER_SOL), v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	w, token := owner.PublicKey(), s.session(owner.PublicKey())

	const wrappedSOL, principal = 50_000_000, 2 * solana.LAMPORTS_PER_SOL
	wrapped := v.WrapSOL(t, owner, wrappedSOL)
	empty := v.CreateATA(t, owner, w, v.CreateMint(t, issuer, harness.MintSpec{Decimals: 6}))
	stake := v.CreateStake(t, owner, principal, true)
	v.WarpEpochs(t, 1)
	v.DeactivateStake(t, owner, stake)
	v.WarpEpochs(t, 1) // fully deactivated: withdrawable

	// The rent of each account, independently of the service: the
	// validator's minimum for its data size, at most its balance.
	rentOf := map[string]uint64{}
	for k, wantOwn := range map[solana.PublicKey]uint64{wrapped: wrappedSOL, empty: 0, stake: principal} {
		a := account(t, v, k)
		rent := min(a.Lamports, v.MinimumBalance(t, uint64(len(a.Data.GetBinary()))))
		if a.Lamports-rent != wantOwn {
			t.Fatalf("%s: %d lamports, %d of them rent: want %d of its own", k, a.Lamports, rent, wantOwn)
		}
		rentOf[k.String()] = rent
	}
	sel := []selection{{"token", wrapped.String(), "close"}, {"empty_account", empty.String(), "close"}, {"stake_account", stake.String(), "withdraw"}}
	b := s.build(t, w, token, map[string]any{"items": sel, "donationPercentage": 0.1, "priorityFeeLevel": "medium"})

	var net int64
	var rent, own, gross, donation, fee uint64
	for i, tx := range b.Transactions {
		var txRent uint64
		for _, inc := range tx.Includes {
			txRent += rentOf[inc.Address]
		}
		txFee := txRent * serviceFeeBPS / 10_000
		if tx.RentRebate != txRent || tx.OwnBalanceRebate != tx.GrossRebate-txRent || tx.DonationAmount != txRent/10 {
			t.Errorf("transaction %d (%v): gross %d, rent %d, own %d, donation %d; want rent %d and a donation of %d, 10%% of it alone",
				i, tx.Includes, tx.GrossRebate, tx.RentRebate, tx.OwnBalanceRebate, tx.DonationAmount, txRent, txRent/10)
		}
		net, rent, own, gross = net+int64(tx.NetRebate), rent+txRent, own+tx.OwnBalanceRebate, gross+tx.GrossRebate
		donation, fee = donation+tx.DonationAmount, fee+txFee
		t.Logf("transaction %d: %d items, gross %d = rent %d + own %d, donation %d, service fee %d, net %d",
			i, len(tx.Includes), tx.GrossRebate, tx.RentRebate, tx.OwnBalanceRebate, tx.DonationAmount, txFee, tx.NetRebate)
	}
	if own != wrappedSOL+principal || b.Totals.RentRebate != rent || b.Totals.OwnBalanceRebate != own || b.Totals.GrossRebate != gross {
		t.Fatalf("own balance %d (want %d), totals %+v", own, wrappedSOL+principal, b.Totals)
	}

	signed := make([]signedTx, len(b.Transactions))
	for i, tx := range b.Transactions {
		signed[i] = signedTx{TransactionBase64: signTx(t, tx.TransactionBase64, owner), SubmissionTicket: tx.SubmissionTicket}
	}
	before := map[string]uint64{"wallet": v.Balance(t, w), "donation": v.Balance(t, s.donation), "treasury": v.Balance(t, s.treasury)}
	sigs := s.submitConfirmed(t, v, w, token, signed...)
	if got := int64(v.Balance(t, w)) - int64(before["wallet"]); got != net {
		t.Fatalf("the wallet gained %d lamports, the sum of the net rebates is %d", got, net)
	}
	if got := v.Balance(t, s.donation) - before["donation"]; got != donation {
		t.Fatalf("the donation wallet received %d lamports, want %d (10%% of the rent %d)", got, donation, rent)
	}
	if got := v.Balance(t, s.treasury) - before["treasury"]; got != fee {
		t.Fatalf("the treasury received %d lamports, want %d (5%% of the rent %d)", got, fee, rent)
	}

	// What the ledger counted once the tracker saw them final.
	var st map[string]uint64
	waitFor(t, "stats count every transaction", 60*time.Second, func() bool {
		s.call("GET", "/v1/stats", s.key(), nil, &st)
		return st["totalTransactionCount"] == uint64(len(b.Transactions))
	})
	if st["totalRentRebate"] != rent || st["totalOwnBalanceRebate"] != own || st["totalGrossRebate"] != gross || st["totalDonationAmount"] != donation {
		t.Fatalf("stats %v, want rent %d, own %d, gross %d, donation %d", st, rent, own, gross, donation)
	}
	var subs struct {
		Submissions []struct {
			Status string
			Landed *struct{ GrossRebate, RentRebate, OwnBalanceRebate, DonationAmount uint64 }
		}
	}
	q := "/v1/wallet/" + w.String() + "/submissions?signature=" + sigs[0]
	for _, sig := range sigs[1:] {
		q += "&signature=" + sig
	}
	if code := s.call("GET", q, bearerOf(token), nil, &subs); code != 200 || len(subs.Submissions) != len(sigs) {
		t.Fatalf("submissions: %d %+v", code, subs)
	}
	for i, sub := range subs.Submissions {
		tx, l := b.Transactions[i], sub.Landed
		if sub.Status != "confirmed" || l == nil || l.RentRebate != tx.RentRebate || l.OwnBalanceRebate != l.GrossRebate-l.RentRebate || l.DonationAmount != tx.DonationAmount {
			t.Errorf("submission %d: %s %+v, want rent %d landed", i, sub.Status, l, tx.RentRebate)
		}
	}
}
