package e2e

import (
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// selectAllListed selects every listed item that offers an action.
func selectAllListed(l listing) []selection {
	var sel []selection
	for _, it := range l.Items {
		if len(it.Actions) > 0 {
			sel = append(sel, selection{Type: it.Type, Address: it.Address, Action: it.Actions[0]})
		}
	}
	return sel
}

// TestReclaimEverythingOverREST is the product's promise end to end: a wallet
// with dozens of empty accounts, token balances under Token and Token-2022
// (one with withheld transfer fees), wrapped SOL, NFTs and a frozen account is
// listed, built with a donation and a service fee, signed with solana-go,
// submitted, and lands; every figure the API reported equals what the chain
// did, to the lamport, and stats and leaderboard say the same.
func TestReclaimEverythingOverREST(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	s := startService(t, v)
	w := newReclaimWallet(t, v)
	owner := w.Owner.PublicKey()
	token := s.session(owner)

	var l listing
	if code := s.call("GET", "/v1/wallet/"+owner.String()+"/assets", bearerOf(token), nil, &l); code != 200 {
		t.Fatalf("assets: %d", code)
	}
	for _, typ := range []string{"empty_account", "token", "nft", "fungible_asset", "zk_compressed_token", "cnft"} {
		if _, ok := l.Counts[typ]; !ok {
			t.Fatalf("counts lacks %s: %v", typ, l.Counts)
		}
	}
	byAddr := map[string]walletItem{}
	for _, it := range l.Items {
		byAddr[it.Address] = it
		if acc := v.Balance(t, solana.MustPublicKeyFromBase58(it.Address)); acc != it.Lamports {
			t.Fatalf("%s lists %d lamports, the chain holds %d", it.Address, it.Lamports, acc)
		}
	}
	if got := byAddr[w.Frozen.String()]; !got.IsFrozen {
		t.Fatalf("frozen account listed as %+v", got)
	}
	for _, a := range w.empties {
		if it := byAddr[a.String()]; it.Type != "empty_account" || it.Actions[0] != "close" {
			t.Fatalf("empty %s listed as %+v", a, it)
		}
	}
	for _, a := range w.nfts {
		if it := byAddr[a.String()]; it.Type != "nft" || it.Actions[0] != "burn" {
			t.Fatalf("nft %s listed as %+v", a, it)
		}
	}
	if it := byAddr[w.WrappedSOL.String()]; it.Type != "token" || it.Actions[0] != "close" {
		t.Fatalf("wrapped SOL listed as %+v", it)
	}
	if it := byAddr[w.Withheld.String()]; it.Type != "token" || it.Actions[0] != "burn" {
		t.Fatalf("withheld-fee account listed as %+v", it)
	}
	if n := l.Counts["empty_account"]; n < len(w.empties) {
		t.Fatalf("counts %v, want at least %d empty accounts", l.Counts, len(w.empties))
	}

	sel := selectAllListed(l)
	var b built
	if code := s.call("POST", "/v1/wallet/"+owner.String()+"/transactions", bearerOf(token),
		map[string]any{"items": sel, "donationPercentage": 0.1, "priorityFeeLevel": "medium"}, &b); code != 200 {
		t.Fatalf("build: %d", code)
	}
	if int(b.Totals.ItemCount) != len(sel) {
		t.Fatalf("built %d items of %d", b.Totals.ItemCount, len(sel))
	}
	var sumNet, sumDonation, sumGross uint64
	signed := make([]signedTx, len(b.Transactions))
	for i, tx := range b.Transactions {
		sumNet += tx.NetRebate
		sumDonation += tx.DonationAmount
		sumGross += tx.GrossRebate
		signed[i] = signedTx{TransactionBase64: signTx(t, tx.TransactionBase64, w.Owner), SubmissionTicket: tx.SubmissionTicket}
	}
	if sumNet != b.Totals.NetRebate || sumDonation != b.Totals.DonationAmount || sumGross != b.Totals.GrossRebate {
		t.Fatalf("totals %+v disagree with the transactions", b.Totals)
	}
	before := map[string]uint64{"wallet": v.Balance(t, owner), "donation": v.Balance(t, s.donation), "treasury": v.Balance(t, s.treasury)}

	var res struct{ Results []submitResult }
	if code := s.call("POST", "/v1/wallet/"+owner.String()+"/transactions/submit", bearerOf(token), map[string]any{"signed": signed}, &res); code != 200 {
		t.Fatalf("submit: %d", code)
	}
	sigs := make([]string, len(res.Results))
	for i, r := range res.Results {
		if r.Status != "submitted" || r.Signature == nil || r.Error != nil || len(r.Includes) != len(b.Transactions[i].Includes) {
			t.Fatalf("result %d: %+v", i, r)
		}
		sigs[i] = *r.Signature
	}
	waitConfirmed(t, v, sigs)

	gotWallet := int64(v.Balance(t, owner)) - int64(before["wallet"])
	gotDonation := v.Balance(t, s.donation) - before["donation"]
	treasuryDelta := v.Balance(t, s.treasury) - before["treasury"]
	if gotWallet != int64(sumNet) || gotDonation != sumDonation {
		t.Fatalf("wallet changed by %d (API said %d), donation wallet by %d (API said %d)", gotWallet, sumNet, gotDonation, sumDonation)
	}
	t.Logf("%d items in %d transactions: gross %d, net %d, donation %d, fees %d, treasury +%d",
		len(sel), len(b.Transactions), sumGross, sumNet, sumDonation, b.Totals.Fees, treasuryDelta)

	// Stats and leaderboard follow once the tracker saw the confirmations.
	var st map[string]uint64
	waitFor(t, "stats count every transaction", 30*time.Second, func() bool {
		s.call("GET", "/v1/stats", s.key(), nil, &st)
		return st["totalTransactionCount"] == uint64(len(b.Transactions))
	})
	want := map[string]uint64{"totalGrossRebate": sumGross, "totalNetRebate": sumNet, "totalWallets": 1, "totalDonationAmount": sumDonation}
	for k, val := range want {
		if st[k] != val {
			t.Fatalf("stats %s = %d, want %d (%v)", k, st[k], val, st)
		}
	}
	var lb []struct {
		Payer                                     string
		TotalGrossRebate, TotalNetRebate          uint64
		TotalDonationAmount, TotalCommunityAmount uint64
		TotalTransactionCount                     uint64
		TransactionTypeCounts                     map[string]uint64
	}
	s.call("GET", "/v1/leaderboard", bearerOf(token), nil, &lb)
	if len(lb) != 1 || lb[0].Payer != owner.String() || lb[0].TotalNetRebate != sumNet || lb[0].TotalCommunityAmount != treasuryDelta {
		t.Fatalf("leaderboard %+v; treasury received %d", lb, treasuryDelta)
	}
	perType := map[string]uint64{}
	for _, tx := range b.Transactions {
		perType[ledgerTypeOf(tx.Includes)]++
	}
	for typ, n := range perType {
		if lb[0].TransactionTypeCounts[typ] != n {
			t.Fatalf("type counts %v, want %v", lb[0].TransactionTypeCounts, perType)
		}
	}

	// Resubmitting: duplicate with the same signatures, nothing sent again.
	walletNow := v.Balance(t, owner)
	var again struct{ Results []submitResult }
	s.call("POST", "/v1/wallet/"+owner.String()+"/transactions/submit", bearerOf(token), map[string]any{"signed": signed}, &again)
	for i, r := range again.Results {
		if r.Status != "duplicate" || r.Signature == nil || *r.Signature != sigs[i] {
			t.Fatalf("resubmit %d: %+v", i, r)
		}
	}
	if v.Balance(t, owner) != walletNow {
		t.Fatal("a duplicate moved money")
	}
}

func ledgerTypeOf(inc []selection) string {
	switch {
	case inc[0].Action == "close":
		return "token_account_closure"
	case inc[0].Type == "nft":
		return "nft_burn"
	}
	return "token_burn"
}

// waitConfirmed polls the cluster until every signature is confirmed
// without error.
func waitConfirmed(t *testing.T, v *harness.Validator, sigs []string) {
	t.Helper()
	parsed := make([]solana.Signature, len(sigs))
	for i, s := range sigs {
		parsed[i] = solana.MustSignatureFromBase58(s)
	}
	waitFor(t, "transactions confirmed", 30*time.Second, func() bool {
		st, err := v.RPC.GetSignatureStatuses(t.Context(), true, parsed...)
		if err != nil {
			return false
		}
		for i, s := range st.Value {
			if s == nil || s.ConfirmationStatus == "processed" {
				return false
			}
			if s.Err != nil {
				t.Fatalf("transaction %s failed on chain: %v", sigs[i], s.Err)
			}
		}
		return true
	})
}
