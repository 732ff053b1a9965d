package e2e

import (
	"bytes"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// Issue 23 end to end: excess rent after a rent cut, program buffers,
// durable nonce and stake accounts, listed, built, signed by a wallet that
// adds Lighthouse guards, submitted, landed and counted, on a validator of
// the test's own (the rent cut and the warps change the whole cluster).

// rentCut is the Rent sysvar's lamports per byte after the cut: a first
// SIMD-0437 step from 6,960 (550,840 lamports less per token account).
const rentCut = 5080

// account reads an account at confirmed commitment (nil when it does not
// exist).
func account(t *testing.T, v *harness.Validator, key solana.PublicKey) *rpc.Account {
	t.Helper()
	res, err := v.RPC.GetAccountInfoWithOpts(t.Context(), key, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed, Encoding: solana.EncodingBase64})
	if err == rpc.ErrNotFound {
		return nil
	}
	if err != nil {
		t.Fatalf("account %s: %v", key, err)
	}
	return res.Value
}

// listedBy lists wallet, by address, keeping only items of typ.
func listedBy(t *testing.T, s *service, wallet solana.PublicKey, token, typ string) (map[string]walletItem, listing) {
	t.Helper()
	var l listing
	if code := s.call("GET", "/v1/wallet/"+wallet.String()+"/assets", bearerOf(token), nil, &l); code != 200 {
		t.Fatalf("assets: %d", code)
	}
	out := map[string]walletItem{}
	for _, it := range l.Items {
		if it.Type == typ {
			out[it.Address] = it
		}
	}
	if l.Counts[typ] != len(out) {
		t.Errorf("counts[%s] = %d, %d listed", typ, l.Counts[typ], len(out))
	}
	return out, l
}

// landGuarded signs the built transactions as a wallet that adds guards
// (Phantom's, with a token-account assertion on guarded, when set; else
// Solflare's), submits them and waits until they are confirmed; it returns
// their landings, in order, and checks the wallet gained exactly the sum of
// their net rebates.
func landGuarded(t *testing.T, v *harness.Validator, s *service, owner solana.PrivateKey, token string, b built, guarded *solana.PublicKey) []burnLanded {
	t.Helper()
	w := owner.PublicKey()
	changes := make([]guardTx, len(b.Transactions))
	var net int64
	for i, tx := range b.Transactions {
		net += int64(tx.NetRebate)
		changes[i] = guardTx{TransactionBase64: tx.TransactionBase64, Edits: solflare(w)}
		if guarded != nil {
			changes[i].Edits = phantom(w, *guarded, randomKey())
		}
	}
	signed := make([]signedTx, len(b.Transactions))
	for i, msg := range change(t, changes...) {
		signed[i] = signedTx{TransactionBase64: signMessage(t, msg, owner), SubmissionTicket: b.Transactions[i].SubmissionTicket}
	}
	before := v.Balance(t, w)
	sigs := s.submitConfirmed(t, v, w, token, signed...)
	if got := int64(v.Balance(t, w)) - int64(before); got != net {
		t.Fatalf("the wallet gained %d lamports, the build promised a net rebate of %d", got, net)
	}
	env := &burnEnv{v: v}
	out := make([]burnLanded, len(sigs))
	for i, sig := range sigs {
		out[i] = env.landed(t, sig, burnBuilt{})
		tx := b.Transactions[i]
		fee := tx.RentRebate * serviceFeeBPS / 10_000 // of the rent alone
		if l := out[i]; l.delta(w) != int64(tx.NetRebate) || l.delta(s.donation) != int64(tx.DonationAmount) || l.delta(s.treasury) != int64(fee) {
			t.Fatalf("transaction %d: wallet %+d (net %d), donation %+d (%d), treasury %+d (service fee %d)",
				i, l.delta(w), tx.NetRebate, l.delta(s.donation), tx.DonationAmount, l.delta(s.treasury), fee)
		}
	}
	return out
}

// checkGross checks each transaction's gross rebate is what its items
// returned on chain: the lamports each listed account lost in it.
func checkGross(t *testing.T, b built, landed []burnLanded, listed map[string]walletItem) {
	t.Helper()
	for i, tx := range b.Transactions {
		var gross uint64
		for _, inc := range tx.Includes {
			it := listed[inc.Address]
			lost := -landed[i].delta(solana.MustPublicKeyFromBase58(inc.Address))
			if lost != int64(it.Lamports) {
				t.Errorf("%s %s gave %d lamports on chain, listed for %d", it.Type, it.Address, lost, it.Lamports)
			}
			gross += it.Lamports
		}
		if gross != tx.GrossRebate {
			t.Errorf("transaction %d: gross rebate %d, its items were listed for %d", i, tx.GrossRebate, gross)
		}
		t.Logf("transaction %d: %d %s items, %d bytes, gross %d, net %d", i, len(tx.Includes), tx.Includes[0].Type, landed[i].size, tx.GrossRebate, tx.NetRebate)
	}
}

// excessWallet is what a wallet of the excess rent tests holds: an SPL
// Token account of 1,000,000 tokens, a Token-2022 account of 5,000, an
// empty Token-2022 account, wrapped SOL, a Token-2022 and an SPL Token mint
// whose mint authority it is; issuer holds the other mints' authority.
type excessWallet struct {
	spl, t22, empty, wrapped, mine22, mineSPL solana.PublicKey
}

func newExcessWallet(t *testing.T, v *harness.Validator, owner, issuer solana.PrivateKey) excessWallet {
	t.Helper()
	w := owner.PublicKey()
	var x excessWallet
	splMint := v.CreateMint(t, issuer, harness.MintSpec{Decimals: 6})
	x.spl = v.CreateATA(t, owner, w, splMint)
	v.MintTo(t, splMint, x.spl, 1_000_000)
	t22Mint := v.CreateMint(t, issuer, harness.MintSpec{Program: solana.Token2022ProgramID, Decimals: 9})
	x.t22 = v.CreateATA(t, owner, w, t22Mint)
	v.MintTo(t, t22Mint, x.t22, 5_000)
	x.empty = v.CreateATA(t, owner, w, v.CreateMint(t, issuer, harness.MintSpec{Program: solana.Token2022ProgramID}))
	x.wrapped = v.WrapSOL(t, owner, 100_000_000)
	x.mine22 = v.CreateMint(t, owner, harness.MintSpec{Program: solana.Token2022ProgramID, Decimals: 2}).Address
	x.mineSPL = v.CreateMint(t, owner, harness.MintSpec{Decimals: 0}).Address
	return x
}

func selectListed(items map[string]walletItem, action string) []selection {
	var sel []selection
	for _, it := range items {
		sel = append(sel, selection{Type: it.Type, Address: it.Address, Action: action})
	}
	return sel
}

// reclaimablesEnv is what the tests of issue 23 start from: the wallet
// guards' client, a validator of the test's own (a rent cut and warps
// change the whole cluster), the service on it, a wallet of 100 SOL with a
// session, and an issuer of 10 SOL for the mints the wallet does not
// control.
func reclaimablesEnv(t *testing.T) (v *harness.Validator, s *service, owner, issuer solana.PrivateKey, token string) {
	t.Helper()
	guardClient(t)
	requireLighthouse(t)
	v = harness.Private(t)
	// Builds ask their own blockhash: these tests withdraw nonce accounts
	// right after moving the cluster to a new blockhash (NextBlockhash),
	// and the local validator checks "nonce can only advance once per
	// slot" against the transaction's blockhash, where a polled one may be
	// older (a cluster checks the bank's own).
	s = startService(t, v, "RECLAIM_CHAIN_POLL_MS=0")
	owner, issuer = v.NewWallet(t, 100*solana.LAMPORTS_PER_SOL), v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	return v, s, owner, issuer, s.session(owner.PublicKey())
}

// TestReclaimablesLand: token accounts of both programs with balances, a
// Token-2022 mint and an SPL Token mint (p-token) of the wallet, an empty
// account and wrapped SOL; no excess before the rent cut; after it, exactly
// the four accounts with a balance or a mint are listed, each for its
// lamports less its new minimum, withdrawn, and left open with their
// balances and exactly that minimum. Then a program buffer, a nonce
// account, an initialized stake account and a delegated one (listed only
// once fully deactivated) are reclaimed whole. Every transaction is signed
// with wallet guards; the ledger counts each type.
func TestReclaimablesLand(t *testing.T) {
	t.Parallel()
	v, s, owner, issuer, token := reclaimablesEnv(t)
	w := owner.PublicKey()
	var gross int64 // what every landed item returned, by the chain

	t.Run("excess rent", func(t *testing.T) {
		s := s.in(t)
		x := newExcessWallet(t, v, owner, issuer)
		spl, t22, empty, wrapped, mine22, mineSPL := x.spl, x.t22, x.empty, x.wrapped, x.mine22, x.mineSPL
		if listed, _ := listedBy(t, s, w, token, "excess_rent"); len(listed) != 0 {
			t.Fatalf("excess rent before the rent cut: %+v", listed)
		}

		v.SetRent(t, rentCut)
		before := map[solana.PublicKey]*rpc.Account{}
		for _, k := range []solana.PublicKey{spl, t22, mine22, mineSPL} {
			before[k] = account(t, v, k)
		}
		listed, l := listedBy(t, s, w, token, "excess_rent")
		for k, a := range before {
			size := uint64(len(a.Data.GetBinary()))
			want := a.Lamports - v.MinimumBalance(t, size)
			it, ok := listed[k.String()]
			if !ok || it.Lamports != want || len(it.Actions) != 1 || it.Actions[0] != "withdraw_excess" || it.TokenProgram != a.Owner.String() {
				t.Errorf("%s (%d bytes, %d lamports): listed %+v (%v), want excess_rent of %d", k, size, a.Lamports, it, ok, want)
			}
			t.Logf("excess at %d lamports a byte: %s of %d bytes, %d lamports, %d above its minimum", rentCut, k, size, a.Lamports, want)
		}
		if len(listed) != len(before) {
			t.Errorf("%d excess_rent items, want %d (not the empty account %s, which closes, nor wrapped SOL %s): %+v", len(listed), len(before), empty, wrapped, listed)
		}
		for _, it := range l.Items {
			if it.Address == empty.String() && (it.Type != "empty_account" || it.Lamports != harness.TokenAccountRent+34_800) {
				t.Errorf("the empty account is listed %+v, want an empty_account closing for all its lamports", it)
			}
		}

		b := s.build(t, w, token, map[string]any{"items": selectListed(listed, "withdraw_excess"), "donationPercentage": 0.1, "priorityFeeLevel": "medium"})
		landed := landGuarded(t, v, s, owner, token, b, &spl)
		checkGross(t, b, landed, listed)
		for k, a := range before {
			after := account(t, v, k)
			if after == nil {
				t.Fatalf("%s closed", k)
			}
			if minimum := v.MinimumBalance(t, uint64(len(a.Data.GetBinary()))); after.Lamports != minimum || !bytes.Equal(after.Data.GetBinary(), a.Data.GetBinary()) || !after.Owner.Equals(a.Owner) {
				t.Errorf("%s: %d lamports (minimum %d), data unchanged %v", k, after.Lamports, minimum, bytes.Equal(after.Data.GetBinary(), a.Data.GetBinary()))
			}
			gross += int64(a.Lamports - after.Lamports)
		}
		for k, amount := range map[solana.PublicKey]uint64{spl: 1_000_000, t22: 5_000} {
			st, err := spltoken.ParseAccount(account(t, v, k).Data.GetBinary())
			if err != nil || st.Amount != amount || !st.Owner.Equals(w) {
				t.Errorf("%s after the withdrawal: %+v %v, want %d tokens of the wallet", k, st, err, amount)
			}
		}
		if left, _ := listedBy(t, s, w, token, "excess_rent"); len(left) != 0 {
			t.Errorf("excess rent listed after the withdrawal: %+v", left)
		}
	})

	t.Run("buffer, nonce and stake accounts", func(t *testing.T) {
		s := s.in(t)
		buffer := v.CreateBuffer(t, owner, 2_000)
		nonceAccount := v.CreateNonce(t, owner)
		initialized := v.CreateStake(t, owner, solana.LAMPORTS_PER_SOL, false)
		delegated := v.CreateStake(t, owner, 5*solana.LAMPORTS_PER_SOL, true)
		stakes := func() map[string]walletItem {
			m, _ := listedBy(t, s, w, token, "stake_account")
			return m
		}
		v.WarpEpochs(t, 1)
		if m := stakes(); len(m) != 1 || m[initialized.String()].Lamports == 0 {
			t.Fatalf("active stake: listed %+v, want the initialized account alone", m)
		}
		v.DeactivateStake(t, owner, delegated)
		if m := stakes(); len(m) != 1 {
			t.Fatalf("stake in its deactivation epoch: listed %+v, want the initialized account alone", m)
		}
		epoch := v.WarpEpochs(t, 1)
		t.Logf("epoch %d: the delegation deactivated in epoch %d has cooled down", epoch, epoch-1)

		listed := map[string]walletItem{}
		want := map[solana.PublicKey]string{buffer: "program_buffer", nonceAccount: "nonce_account", initialized: "stake_account", delegated: "stake_account"}
		for k, typ := range want {
			got, _ := listedBy(t, s, w, token, typ)
			it, ok := got[k.String()]
			a := account(t, v, k)
			if !ok || a == nil || it.Lamports != a.Lamports || it.TokenProgram != a.Owner.String() || it.Mint != "" {
				t.Fatalf("%s: listed %+v (%v), want a %s of all its lamports", k, it, ok, typ)
			}
			listed[it.Address] = it
			t.Logf("%s %s: %d lamports", typ, k, it.Lamports)
		}
		var sel []selection
		for _, it := range listed {
			action := "close"
			if it.Type == "stake_account" {
				action = "withdraw"
			}
			sel = append(sel, selection{Type: it.Type, Address: it.Address, Action: action})
		}
		b := s.build(t, w, token, map[string]any{"items": sel, "donationPercentage": 0.1, "priorityFeeLevel": "medium"})
		if len(b.Transactions) != 3 {
			t.Fatalf("%d transactions, want one per type", len(b.Transactions))
		}
		landed := landGuarded(t, v, s, owner, token, b, nil)
		checkGross(t, b, landed, listed)
		for k := range want {
			if a := account(t, v, k); a != nil {
				t.Errorf("%s still open: %+v", k, a)
			}
			gross += int64(listed[k.String()].Lamports)
		}
		for _, typ := range []string{"program_buffer", "nonce_account", "stake_account"} {
			if left, _ := listedBy(t, s, w, token, typ); len(left) != 0 {
				t.Errorf("%s listed after its reclaim: %+v", typ, left)
			}
		}
	})

	t.Run("the ledger counts each type", func(t *testing.T) {
		s := s.in(t)
		var board []struct {
			Payer                 string
			TotalGrossRebate      int64
			TransactionTypeCounts map[string]int64
		}
		want := map[string]int64{"token_account_closure": 0, "token_burn": 0, "nft_burn": 0, "excess_rent_withdrawal": 1,
			"program_buffer_closure": 1, "nonce_account_closure": 1, "stake_account_withdrawal": 1, "lookup_table_reclaim": 0}
		// Each transaction counts once the tracker has seen it confirmed: wait
		// for every type, not some (the nonce's closure was once a pass late).
		waitFor(t, "the leaderboard counts the five transactions", 60*time.Second, func() bool {
			s.call("GET", "/v1/leaderboard", s.key(), nil, &board)
			if len(board) != 1 {
				return false
			}
			for typ, n := range want {
				if board[0].TransactionTypeCounts[typ] != n {
					return false
				}
			}
			return true
		})
		if b := board[0]; b.Payer != w.String() || b.TotalGrossRebate != gross || len(b.TransactionTypeCounts) != len(want) {
			t.Errorf("leaderboard %+v, want the wallet's gross %d", board, gross)
		}
		for typ, n := range want {
			if board[0].TransactionTypeCounts[typ] != n {
				t.Errorf("%s: %d transactions, want %d", typ, board[0].TransactionTypeCounts[typ], n)
			}
		}
	})
}
