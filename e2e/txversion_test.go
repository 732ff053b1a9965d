package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestV1BuildLands: a wallet of 55 empty token accounts (28 SPL Token, 27
// Token-2022), built with a donation, the service fee and a priority fee,
// takes one v1 transaction where v0 takes four. The v1 transaction,
// signed by @solana/kit 8 as a wallet that signs v1 would (txv1kit's
// sign.mjs), is submitted with its ticket; once final, the status route's
// landed figures equal what getTransaction (maxSupportedTransactionVersion
// 1) says the transaction did, and the wallet's balance moved by exactly
// the build's netRebate.
func TestV1BuildLands(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	s := startService(t, v)
	owner, accounts, _ := v.EmptyAccountsWallet(t, 55)
	wallet := owner.PublicKey()
	token := s.session(wallet)
	items := make([]selection, len(accounts))
	for i, a := range accounts {
		items[i] = selection{Type: "empty_account", Address: a.String(), Action: "close"}
	}
	build := func(version int) (b struct {
		built
		Transactions []struct {
			builtTx
			TransactionVersion int
		}
	}) {
		t.Helper()
		if code := s.call("POST", "/v1/wallet/"+wallet.String()+"/transactions", bearerOf(token),
			map[string]any{"items": items, "donationPercentage": 0.1, "priorityFeeLevel": "medium", "transactionVersion": version}, &b); code != 200 {
			t.Fatalf("v%d build: %d", version, code)
		}
		for i, tx := range b.Transactions {
			if tx.TransactionVersion != version {
				t.Fatalf("v%d build: transaction %d says version %d", version, i, tx.TransactionVersion)
			}
		}
		return b
	}
	// v0 fits 16 closes with the guards' default headroom of 200 bytes (21
	// without it): four transactions.
	v0 := build(0)
	if len(v0.Transactions) != 4 {
		t.Fatalf("v0: 55 closes in %d transactions, want 4", len(v0.Transactions))
	}
	v1 := build(1)
	if len(v1.Transactions) != 1 || len(v1.Transactions[0].Includes) != 55 {
		t.Fatalf("v1: %d transactions, the first of %d items", len(v1.Transactions), len(v1.Transactions[0].Includes))
	}
	t.Logf("55 closes with a donation, the service fee and a priority fee: %d v0 transactions, 1 v1", len(v0.Transactions))
	built := v1.Transactions[0]
	raw, err := base64.StdEncoding.DecodeString(built.TransactionBase64)
	if err != nil {
		t.Fatal(err)
	}
	var unsigned txv1.Transaction
	if err := unsigned.UnmarshalBinary(raw); err != nil || len(raw) > txv1.MaxTransactionSize {
		t.Fatalf("the v1 transaction (%d bytes) does not decode: %v", len(raw), err)
	}

	t.Logf("the v1 transaction: %d bytes; its ticket: %d characters", len(raw), len(built.SubmissionTicket))
	signed := kitSign(t, built.TransactionBase64, owner)
	before := v.Balance(t, wallet)
	var res struct{ Results []submitResult }
	if code := s.call("POST", "/v1/wallet/"+wallet.String()+"/transactions/submit", bearerOf(token),
		map[string]any{"signed": []signedTx{{TransactionBase64: signed, SubmissionTicket: built.SubmissionTicket}}}, &res); code != 200 {
		t.Fatalf("submit: %d", code)
	}
	if r := res.Results[0]; r.Status != "submitted" || r.Signature == nil {
		t.Fatalf("submit of the kit-signed v1 transaction: %+v (error %+v)", r, r.Error)
	}
	sig := *res.Results[0].Signature
	got := s.submissions(t, wallet, token, 30, sig)[0]
	if got.Status != "confirmed" || got.Landed == nil {
		t.Fatalf("the v1 transaction ended %+v", got)
	}
	chain := v1Landed(t, v, sig)
	l := got.Landed
	if l.Fee != chain.fee+uint64(chain.delta(s.treasury)) || l.NetRebate != chain.delta(wallet) ||
		l.DonationAmount != uint64(chain.delta(s.donation)) || l.GrossRebate != l.Fee+l.DonationAmount+uint64(l.NetRebate) {
		t.Errorf("landed %+v; the chain: fee %d, wallet %+d, donation %+d, treasury %+d", *l, chain.fee, chain.delta(wallet), chain.delta(s.donation), chain.delta(s.treasury))
	}
	if moved := int64(v.Balance(t, wallet)) - int64(before); moved != int64(built.NetRebate) || moved != l.NetRebate {
		t.Errorf("the wallet moved by %d, the build said %d", moved, built.NetRebate)
	}
}

// kitSign signs a built transaction with @solana/kit (e2e/txv1kit's
// sign.mjs) and returns it signed, in base64.
func kitSign(t *testing.T, b64 string, key solana.PrivateKey) string {
	t.Helper()
	dir := nodeClient(t, "txv1kit", "the v1 signing test")
	in, err := json.Marshal(map[string]string{"transactionBase64": b64, "secretKey": base64.StdEncoding.EncodeToString(key[:32])})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "node", "sign.mjs")
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node sign.mjs: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// landedV1 is what getTransaction says a v1 transaction did.
type landedV1 struct {
	fee  uint64
	keys []solana.PublicKey
	pre  []uint64
	post []uint64
}

// delta is the change of key's balance (0: not in the transaction).
func (l landedV1) delta(key solana.PublicKey) int64 {
	for i, k := range l.keys {
		if k.Equals(key) {
			return int64(l.post[i]) - int64(l.pre[i])
		}
	}
	return 0
}

// v1Landed reads a v1 transaction with getTransaction
// (maxSupportedTransactionVersion 1, base64) at commitment finalized.
func v1Landed(t *testing.T, v *harness.Validator, sig string) landedV1 {
	t.Helper()
	var out struct {
		Transaction []string
		Meta        struct {
			Fee                       uint64
			PreBalances, PostBalances []uint64
		}
	}
	if err := v.Call(t.Context(), &out, "getTransaction", sig,
		map[string]any{"encoding": "base64", "maxSupportedTransactionVersion": 1, "commitment": "finalized"}); err != nil || len(out.Transaction) == 0 {
		t.Fatalf("getTransaction %s: %v", sig, err)
	}
	raw, err := base64.StdEncoding.DecodeString(out.Transaction[0])
	if err != nil {
		t.Fatal(err)
	}
	var tx txv1.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatalf("getTransaction's transaction is no v1 one: %v", err)
	}
	return landedV1{fee: out.Meta.Fee, keys: tx.Message.AccountKeys, pre: out.Meta.PreBalances, post: out.Meta.PostBalances}
}
