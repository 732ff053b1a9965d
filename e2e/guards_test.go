package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// Wallet guards. Phantom and Solflare add Lighthouse assertions
// (L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95) to the transactions they
// sign. The local validator has no build of Lighthouse: it loads SPL Noop
// under Lighthouse's id (backend/localvalidator/lib/chain.js, STAND_INS, from
// ../shared/programs), so the guards these tests add execute, cost compute
// units and always pass. What is tested is Reclaim's side: that it accepts
// them, lands and counts them once, and records what the chain did; not
// Lighthouse's semantics.

// Guards in the shapes wallets add, built by guardclient with lighthouse-sdk.
func lamportsOwner(target solana.PublicKey) map[string]any {
	return map[string]any{"kind": "lamportsOwner", "target": target.String(), "min": 1}
}

func lamportsRange(target solana.PublicKey) map[string]any {
	return map[string]any{"kind": "lamportsRange", "target": target.String(), "min": 0, "max": "1000000000000000"}
}

func tokenAccount(target, owner solana.PublicKey) map[string]any {
	return map[string]any{"kind": "tokenAccount", "target": target.String(), "owner": owner.String(), "amount": 0}
}

// phantom inserts Phantom's guards as x402 #3318 saw them, [limit, price,
// LH, LH, LH, ours..., LH]: on the wallet's lamports and owner, on the first
// closed token account, and, last, on an account not in the transaction.
func phantom(wallet, account, outsider solana.PublicKey) []edit {
	return []edit{insert(2, lamportsOwner(wallet)), insert(3, tokenAccount(account, wallet)),
		insert(4, lamportsRange(wallet)), insert("end", lamportsRange(outsider))}
}

// solflare appends Solflare's two guards on the fee payer
// (Jac0xb/lighthouse#55: System-owned; then its lamports).
func solflare(wallet solana.PublicKey) []edit {
	return []edit{insert("end", map[string]any{"kind": "knownOwner", "target": wallet.String()}),
		insert("end", map[string]any{"kind": "lamports", "target": wallet.String(), "min": 1})}
}

// TestGuardedTransactionsLand: transactions guarded as Phantom (four
// assertions, three before our instructions, in transactions packed to the
// byte limit) and Solflare (two appended) append them, and one whose wallet
// raised the compute unit price, are accepted, land, are counted once, and
// the ledger's figures are the chain's balance changes to the lamport; the
// raised fee shows as a smaller net than promised, and lamports an account
// received after the build as a larger gross, each flagged in the console.
func TestGuardedTransactionsLand(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	guardClient(t)
	requireLighthouse(t)
	t.Log("SPL Noop stands in for Lighthouse on the local validator: the guards execute and always pass")
	s := startService(t, v)
	owner, accounts := emptyWallet(t, v, 50)
	w := owner.PublicKey()
	token := s.session(w)
	body := func(accs []solana.PublicKey) map[string]any {
		return map[string]any{"items": closeAll(accs), "donationPercentage": 0.1, "priorityFeeLevel": "medium"}
	}
	full := s.build(t, w, token, body(accounts[:40])).Transactions
	sol := s.build(t, w, token, body(accounts[40:45])).Transactions[0]
	raised := s.build(t, w, token, body(accounts[45:])).Transactions[0]
	if len(full) < 2 {
		t.Fatalf("40 closes packed into %d transaction(s)", len(full))
	}
	var changes []guardTx
	for _, tx := range full {
		first := solana.MustPublicKeyFromBase58(tx.Includes[0].Address)
		changes = append(changes, guardTx{TransactionBase64: tx.TransactionBase64, Edits: phantom(w, first, randomKey())})
	}
	changes = append(changes,
		guardTx{TransactionBase64: sol.TransactionBase64, Edits: solflare(w)},
		guardTx{TransactionBase64: raised.TransactionBase64, Edits: []edit{replace(1, map[string]any{"kind": "computeUnitPrice", "microLamports": 2_000_000})}})
	builtTxs := append(append([]builtTx{}, full...), sol, raised)
	signed := make([]signedTx, len(builtTxs))
	for i, msg := range change(t, changes...) {
		signed[i] = signedTx{TransactionBase64: signMessage(t, msg, owner), SubmissionTicket: builtTxs[i].SubmissionTicket}
		builtRaw, _ := base64.StdEncoding.DecodeString(builtTxs[i].TransactionBase64)
		raw, _ := base64.StdEncoding.DecodeString(signed[i].TransactionBase64)
		if len(raw) > 1232 {
			t.Fatalf("transaction %d is %d bytes with its guards", i, len(raw))
		}
		t.Logf("transaction %d (%d items): %d bytes built, %d guarded (+%d)", i, len(builtTxs[i].Includes), len(builtRaw), len(raw), len(raw)-len(builtRaw))
	}
	// One of Solflare's closed accounts receives lamports after the build:
	// closing it returns them too.
	const late = 1_234
	v.Airdrop(t, solana.MustPublicKeyFromBase58(sol.Includes[0].Address), late)
	before := map[solana.PublicKey]uint64{w: v.Balance(t, w), s.donation: v.Balance(t, s.donation), s.treasury: v.Balance(t, s.treasury)}
	results := s.submit(t, w, token, signed...)
	sigs := make([]string, len(results))
	for i, r := range results {
		if r.Status != "submitted" || r.Signature == nil {
			t.Fatalf("result %d: %+v %+v", i, r, r.Error)
		}
		sigs[i] = *r.Signature
	}

	var st map[string]int64
	waitFor(t, "stats count every guarded transaction (at finalized commitment)", 60*time.Second, func() bool {
		s.call("GET", "/v1/stats", s.key(), nil, &st)
		return st["totalTransactionCount"] == int64(len(sigs))
	})
	delta := func(k solana.PublicKey) int64 { return int64(v.Balance(t, k)) - int64(before[k]) }
	fees := make([]int64, len(sigs))
	var feeSum int64
	for i, sig := range sigs {
		fee, units := landed(t, v, sig)
		fees[i], feeSum = fee, feeSum+fee
		t.Logf("transaction %d landed: fee %d lamports, %d compute units consumed of %d", i, fee, units, builtTxs[i].ComputeUnitsNeeded)
	}
	net, donated, treasury := delta(w), delta(s.donation), delta(s.treasury)
	want := map[string]int64{"totalNetRebate": net, "totalDonationAmount": donated, "totalGrossRebate": net + feeSum + donated + treasury, "totalWallets": 1}
	for k, val := range want {
		if st[k] != val {
			t.Errorf("stats %s = %d, the chain says %d (%v)", k, st[k], val, st)
		}
	}
	var lb []struct{ TotalNetRebate, TotalCommunityAmount, TotalTransactionCount int64 }
	s.call("GET", "/v1/leaderboard", bearerOf(token), nil, &lb)
	if len(lb) != 1 || lb[0].TotalCommunityAmount != treasury || lb[0].TotalNetRebate != net || lb[0].TotalTransactionCount != int64(len(sigs)) {
		t.Errorf("leaderboard %+v; treasury received %d, wallet %d", lb, treasury, net)
	}
	// The promise was kept but for the raised price and the late lamports:
	// the wallet paid exactly the extra fee it chose to, and got the late
	// lamports back with the account.
	var promisedNet int64
	for _, tx := range builtTxs {
		promisedNet += int64(tx.NetRebate)
	}
	last := len(builtTxs) - 1
	extra := fees[last] - promisedFee(raised)
	if extra <= 0 || net != promisedNet-extra+late {
		t.Errorf("net %d, promised %d, raised fee %d (promised %d), %d late lamports", net, promisedNet, fees[last], promisedFee(raised), late)
	}
	page := s.consoleOverview(t)
	for _, want := range []string{
		fmt.Sprintf("network fee %s → %s", thousands(promisedFee(raised)), thousands(fees[last])),
		fmt.Sprintf("gross rebate %s → %s (+1,234)", thousands(int64(sol.GrossRebate)), thousands(int64(sol.GrossRebate)+late)),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the console does not say %q", want)
		}
	}
	if n := strings.Count(page, `data-testid="latest-difference"`); n != 2 {
		t.Errorf("the console shows %d differences, want 2:\n%s", n, page)
	}

	again := s.submit(t, w, token, signed...)
	for i, r := range again {
		if r.Status != "duplicate" || r.Signature == nil || *r.Signature != sigs[i] {
			t.Fatalf("resubmit %d: %+v", i, r)
		}
	}
}

// promisedFee is the network fee a build response implies: gross less net,
// donation and the service fee (5% of the rent).
func promisedFee(tx builtTx) int64 {
	return int64(tx.GrossRebate) - int64(tx.NetRebate) - int64(tx.DonationAmount) - int64(tx.RentRebate*serviceFeeBPS/10_000)
}

// landed reads a transaction back from the cluster: its fee and the compute
// units it consumed.
func landed(t *testing.T, v *harness.Validator, sig string) (fee int64, units uint64) {
	t.Helper()
	version := uint64(0)
	res, err := v.RPC.GetTransaction(context.Background(), solana.MustSignatureFromBase58(sig), &rpc.GetTransactionOpts{
		Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &version,
	})
	if err != nil || res.Meta == nil {
		t.Fatalf("getTransaction %s: %v", sig, err)
	}
	if res.Meta.ComputeUnitsConsumed != nil {
		units = *res.Meta.ComputeUnitsConsumed
	}
	return int64(res.Meta.Fee), units
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestGuardRefusals: everything a wallet must not change is refused as
// HASH_MISMATCH with what differs, each its own case, all against one
// ticket, which stays unconsumed and none of them sent: among them the
// audit's attack on the compute budget (issue 19: a page set a price of
// 5e10 micro-lamports beside two guards before the wallet signed; it landed
// and the net rebate became -334,369,648 lamports) and a limit past the
// guard headroom. The same transaction with guards between our instructions
// (allowed: guards may stand anywhere, ours keep their order) and its limit
// raised by the guard headroom, as a wallet paying for its guards would, is
// then accepted and lands; the refused ones never reach the chain.
func TestGuardRefusals(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	guardClient(t)
	requireLighthouse(t)
	s := startService(t, v)
	owner, accounts := emptyWallet(t, v, 3)
	w := owner.PublicKey()
	token := s.session(w)
	tx := s.build(t, w, token, map[string]any{"items": closeAll(accounts[:2]), "donationPercentage": 0.1}).Transactions[0]
	// Built: [0 limit, 1 price, 2 close, 3 close, 4 donation, 5 service fee].
	guard := lamportsRange(w)
	transfer := func(to solana.PublicKey, lamports uint64) map[string]any {
		return map[string]any{"kind": "transfer", "from": w.String(), "to": to.String(), "lamports": lamports}
	}
	price := func(microLamports uint64) map[string]any {
		return map[string]any{"kind": "computeUnitPrice", "microLamports": microLamports}
	}
	limit := func(units uint64) map[string]any { return map[string]any{"kind": "computeUnitLimit", "units": units} }
	const headroom = 6_000 // RECLAIM_GUARD_HEADROOM_UNITS's default
	cases := []struct {
		name   string
		change guardTx
		want   string
	}{
		{"a System transfer to a stranger", guardTx{Edits: []edit{insert(2, guard), insert("end", transfer(randomKey(), 1_000_000))}},
			"an instruction was added at index 8: System transfer"},
		{"a Memo", guardTx{Edits: []edit{insert("end", map[string]any{"kind": "memo", "text": "gm"})}},
			"an instruction was added at index 7: Memo instruction"},
		{"a second Token instruction", guardTx{Edits: []edit{insert(4, map[string]any{"kind": "closeAccount",
			"account": accounts[2].String(), "destination": w.String(), "owner": w.String()})}},
			"an instruction was added at index 4: Token CloseAccount"},
		{"a Lighthouse memory write", guardTx{Edits: []edit{insert("end", map[string]any{"kind": "memoryWrite", "payer": w.String()})}},
			"instruction 7 is a Lighthouse MemoryWrite, which moves lamports"},
		{"a changed donation beside a valid guard", guardTx{Edits: []edit{insert(0, guard), replace(-2, transfer(s.donation, tx.DonationAmount-1))}},
			"instruction 6 (System transfer) changed its data"},
		{"a changed service fee beside a valid guard", guardTx{Edits: []edit{replace(-1, transfer(s.treasury, 1)), insert("end", guard)}},
			"instruction 6 (System transfer) changed its data"},
		{"a second compute unit price", guardTx{Edits: []edit{insert("end", map[string]any{"kind": "computeUnitPrice", "microLamports": 1})}},
			"a second Compute Budget SetComputeUnitPrice"},
		{"a changed fee payer", guardTx{FeePayer: v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey().String(), Edits: []edit{insert("end", guard)}},
			"the fee payer changed"},
		{"a changed blockhash", guardTx{Blockhash: solana.Hash(randomKey()).String(), Edits: []edit{insert("end", guard)}},
			"the recent blockhash changed"},
		{"an address lookup table", guardTx{LookupTable: map[string]any{"address": randomKey().String(), "addresses": []string{s.donation.String()}}},
			"address lookup tables are not accepted"},
		{"our instructions reordered", guardTx{Edits: []edit{{Op: "swap", I: -2, J: -1}, insert("end", guard)}},
			"the built instructions were reordered"},
		{"the audit's price: 5e10 beside two guards", guardTx{Edits: append([]edit{replace(1, price(50_000_000_000))}, solflare(w)...)},
			"the compute unit price 50,000,000,000 micro-lamports is above the 5,000,000 this transaction accepts"},
		{"a price just past the cap", guardTx{Edits: []edit{replace(1, price(5_000_001)), insert("end", guard)}},
			"the compute unit price 5,000,001 micro-lamports is above the 5,000,000"},
		{"a limit past the guard headroom", guardTx{Edits: []edit{replace(0, limit(tx.ComputeUnitsNeeded+headroom+1)), insert("end", guard)}},
			fmt.Sprintf("the compute unit limit %s is above the %s this transaction accepts",
				thousands(int64(tx.ComputeUnitsNeeded+headroom+1)), thousands(int64(tx.ComputeUnitsNeeded+headroom)))},
		{"the reference key dropped", guardTx{Edits: []edit{{Op: "remove", At: 2}, insert("end", guard)}},
			"built instruction 0 of 5 (a Compute Budget instruction) is missing"},
		{"the limit dropped", guardTx{Edits: []edit{{Op: "remove", At: 0}, insert("end", guard)}},
			"the message sets no compute unit limit, so the runtime gives the transaction up to"},
	}
	changes := make([]guardTx, len(cases))
	for i, c := range cases {
		changes[i] = c.change
		changes[i].TransactionBase64 = tx.TransactionBase64
	}
	msgs := change(t, changes...)
	refused := make([]solana.Signature, len(cases))
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			signed := signMessage(t, msgs[i], owner)
			refused[i] = signatureOf(t, signed)
			r := s.submit(t, w, token, signedTx{signed, tx.SubmissionTicket})[0]
			if r.Status != "failed" || r.Error == nil || r.Error.Code != "HASH_MISMATCH" || !strings.Contains(r.Error.Message, c.want) {
				t.Fatalf("%+v %+v, want HASH_MISMATCH saying %q", r, r.Error, c.want)
			}
		})
	}
	between := change(t, guardTx{TransactionBase64: tx.TransactionBase64, Edits: []edit{
		replace(0, limit(tx.ComputeUnitsNeeded+headroom)), insert(3, tokenAccount(accounts[0], w)), insert(-2, guard)}})[0]
	r := s.submit(t, w, token, signedTx{signMessage(t, between, owner), tx.SubmissionTicket})[0]
	if r.Status != "submitted" || r.Signature == nil {
		t.Fatalf("guards between our instructions, the limit raised by the headroom: %+v %+v", r, r.Error)
	}
	waitConfirmed(t, v, []string{*r.Signature})
	// The ticket's one transaction landed; none of the refused ones was
	// ever sent.
	st, err := v.RPC.GetSignatureStatuses(context.Background(), true, refused...)
	if err != nil {
		t.Fatal(err)
	}
	for i, status := range st.Value {
		if status != nil {
			t.Errorf("%s: the refused transaction reached the chain: %+v", cases[i].name, status)
		}
	}
}

// signatureOf is the wallet's signature of a signed transaction (base64).
func signatureOf(t *testing.T, signed string) solana.Signature {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(signed)
	if err != nil || len(raw) < 65 {
		t.Fatalf("signed transaction: %v", err)
	}
	return solana.SignatureFromBytes(raw[1:65])
}
