package e2e

import (
	"maps"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// summary is GET /v1/wallet/{address}/summary's answer.
type summary struct {
	WalletAddress string
	Types         map[string]struct {
		Count    int
		Lamports uint64
	}
	Totals           struct{ ItemCount, GrossRebate, RentRebate, OwnBalanceRebate, NetRebate, DonationAmount, Fees uint64 }
	TransactionCount int
}

// TestSelectAllAndSummary (issue 23): a wallet holds every safe item (an
// empty account, excess rent of token accounts of both programs and of two
// mints after a rent cut, a program buffer, a nonce account, a stake
// account) beside what select-all must leave (tokens that would burn,
// wrapped SOL). The summary states each type as the listing does, and the
// select-all build at the same donation and priority returns exactly the
// summary's totals in its transaction count; it selects the safe items
// alone, never a burn; signed with wallet guards and landed, the wallet
// gains exactly the sum of the net rebates and every item gives exactly
// its listed lamports; then nothing is left to select.
func TestSelectAllAndSummary(t *testing.T) {
	t.Parallel()
	v, s, owner, issuer, token := reclaimablesEnv(t)
	w := owner.PublicKey()

	x := newExcessWallet(t, v, owner, issuer)
	buffer := v.CreateBuffer(t, owner, 1_000)
	nonceAccount := v.CreateNonce(t, owner)
	stake := v.CreateStake(t, owner, solana.LAMPORTS_PER_SOL, false)
	v.SetRent(t, rentCut)
	v.NextBlockhash(t) // the nonce was initialized under the current one

	want := map[string]selection{ // address: what select-all takes
		x.empty.String():      {"empty_account", x.empty.String(), "close"},
		x.spl.String():        {"excess_rent", x.spl.String(), "withdraw_excess"},
		x.t22.String():        {"excess_rent", x.t22.String(), "withdraw_excess"},
		x.mine22.String():     {"excess_rent", x.mine22.String(), "withdraw_excess"},
		x.mineSPL.String():    {"excess_rent", x.mineSPL.String(), "withdraw_excess"},
		buffer.String():       {"program_buffer", buffer.String(), "close"},
		nonceAccount.String(): {"nonce_account", nonceAccount.String(), "close"},
		stake.String():        {"stake_account", stake.String(), "withdraw"},
	}
	var l listing
	if code := s.call("GET", "/v1/wallet/"+w.String()+"/assets", bearerOf(token), nil, &l); code != 200 {
		t.Fatalf("assets: %d", code)
	}
	listed := map[string]walletItem{}
	types := map[string]struct {
		count    int
		lamports uint64
	}{}
	burns := 0
	for _, it := range l.Items {
		if _, ok := want[it.Address]; ok && it.Type == want[it.Address].Type {
			listed[it.Address] = it
		}
		if slices.Contains(it.Actions, "burn") {
			burns++
		}
		ts := types[it.Type]
		ts.count++
		ts.lamports += it.Lamports
		types[it.Type] = ts
	}
	if len(listed) != len(want) || burns == 0 {
		t.Fatalf("listed %d of the %d safe items, %d burnable items: %+v", len(listed), len(want), burns, l.Items)
	}

	const query = "?donationPercentage=0.1&priorityFeeLevel=medium"
	var sum summary
	if code := s.call("GET", "/v1/wallet/"+w.String()+"/summary"+query, bearerOf(token), nil, &sum); code != 200 {
		t.Fatalf("summary: %d", code)
	}
	if len(sum.Types) != len(l.Counts) {
		t.Errorf("summary of %d types, the listing counts %d", len(sum.Types), len(l.Counts))
	}
	for typ, n := range l.Counts {
		if got := sum.Types[typ]; got.Count != n || got.Lamports != types[typ].lamports {
			t.Errorf("summary %s: %d items, %d lamports; listed %d, %d lamports", typ, got.Count, got.Lamports, n, types[typ].lamports)
		}
	}

	b := s.build(t, w, token, map[string]any{"selectAll": true, "donationPercentage": 0.1, "priorityFeeLevel": "medium"})
	if sum.Totals != b.Totals || sum.TransactionCount != len(b.Transactions) {
		t.Fatalf("summary %+v in %d transactions, the select-all build %+v in %d", sum.Totals, sum.TransactionCount, b.Totals, len(b.Transactions))
	}
	t.Logf("summary = build: %+v in %d transactions", b.Totals, len(b.Transactions))
	var got []string
	for _, tx := range b.Transactions {
		for _, inc := range tx.Includes {
			if inc != want[inc.Address] {
				t.Errorf("select-all took %+v, want %+v", inc, want[inc.Address])
			}
			got = append(got, inc.Address)
		}
	}
	if slices.Sort(got); !slices.Equal(got, slices.Sorted(maps.Keys(want))) || int(b.Totals.ItemCount) != len(want) {
		t.Fatalf("select-all took %v (%d items), want %v", got, b.Totals.ItemCount, slices.Sorted(maps.Keys(want)))
	}

	landed := landGuarded(t, v, s, owner, token, b, &x.spl)
	checkGross(t, b, landed, listed)
	for _, k := range []solana.PublicKey{x.spl, x.t22, x.mine22, x.mineSPL} {
		if a := account(t, v, k); a == nil || a.Lamports != v.MinimumBalance(t, uint64(len(a.Data.GetBinary()))) {
			t.Errorf("%s after select-all: %+v, want open at its new minimum", k, a)
		}
	}
	for _, k := range []solana.PublicKey{x.empty, buffer, nonceAccount, stake} {
		if a := account(t, v, k); a != nil {
			t.Errorf("%s still open: %+v", k, a)
		}
	}
	if a := account(t, v, x.wrapped); a == nil {
		t.Error("select-all closed wrapped SOL")
	}

	var after summary
	if code := s.call("GET", "/v1/wallet/"+w.String()+"/summary", bearerOf(token), nil, &after); code != 200 {
		t.Fatalf("summary: %d", code)
	}
	if after.TransactionCount != 0 || after.Totals.ItemCount != 0 || after.Types["token"].Count == 0 {
		t.Errorf("summary after select-all: %+v, want nothing safe left and the tokens still there", after)
	}
	if code := s.call("POST", "/v1/wallet/"+w.String()+"/transactions", bearerOf(token), map[string]any{"selectAll": true}, nil); code != 400 {
		t.Errorf("select-all with nothing safe: %d, want 400", code)
	}
}
