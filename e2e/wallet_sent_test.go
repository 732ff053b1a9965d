package e2e

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// report submits the signature of a transaction the wallet sent itself,
// with its ticket (a wallet's signAndSendTransaction).
func (s *service) report(t *testing.T, owner solana.PublicKey, token, ticket, sig string) submitResult {
	t.Helper()
	var res struct{ Results []submitResult }
	body := map[string]any{"signed": []map[string]string{{"signature": sig, "submissionTicket": ticket}}}
	if code := s.call("POST", "/v1/wallet/"+owner.String()+"/transactions/submit", bearerOf(token), body, &res); code != 200 {
		t.Fatalf("report: %d", code)
	}
	return res.Results[0]
}

// walletSends sends r's signed transaction to the validator as the wallet
// itself would (signAndSendTransaction), once.
func walletSends(t *testing.T, v *harness.Validator, r reclaim) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(r.signed.TransactionBase64)
	if err != nil {
		t.Fatal(err)
	}
	zero := uint(0)
	if _, err := v.RPC.SendRawTransactionWithOpts(context.Background(), raw, rpc.TransactionOpts{
		PreflightCommitment: rpc.CommitmentConfirmed, MaxRetries: &zero}); err != nil {
		t.Fatalf("the wallet's own send: %v", err)
	}
}

// final waits, through the status route's waitSeconds, until sig's
// submission is final, and returns it.
func (s *service) final(t *testing.T, owner solana.PublicKey, token, sig string) submissionStatus {
	t.Helper()
	var got submissionStatus
	waitFor(t, "the submission is final", 2*time.Minute, func() bool {
		got = s.submissions(t, owner, token, 30, sig)[0]
		return got.Status != "submitted" && got.Status != "landed"
	})
	return got
}

// TestWalletSentTransactions: a wallet that sends its reclaim itself and
// reports the signature with its ticket is followed like a relayed one and
// counted once, with the chain's figures; a real ticket reported with
// another transaction of the wallet that landed (a transfer) ends failed
// with HASH_MISMATCH at once and is never counted.
func TestWalletSentTransactions(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	s := startService(t, v)
	ws := landingWallets(t, v, 2)

	r := s.prepare(t, ws[0])
	walletSends(t, v, r)
	if res := s.report(t, r.owner, r.token, r.signed.SubmissionTicket, r.sig); res.Status != "submitted" || res.Signature == nil || *res.Signature != r.sig {
		t.Fatalf("report: %+v", res)
	}
	if res := s.report(t, r.owner, r.token, r.signed.SubmissionTicket, r.sig); res.Status != "duplicate" {
		t.Fatalf("second report: %+v", res)
	}
	if got := s.final(t, r.owner, r.token, r.sig); got.Status != "confirmed" {
		t.Fatalf("wallet-sent reclaim: %+v", got)
	}
	statusAgreesWithChain(t, v, s, []reclaim{r}, []solana.PublicKey{ws[0].account})

	ticketed := s.prepare(t, ws[1])
	owner := ws[1].owner
	unrelated := v.Send(t, owner, []solana.Instruction{
		system.NewTransferInstruction(1_000_000, owner.PublicKey(), solana.NewWallet().PublicKey()).Build()}).Signature.String()
	// It landed already: the report is checked against the cluster's copy
	// at once, and records nothing.
	if res := s.report(t, ticketed.owner, ticketed.token, ticketed.signed.SubmissionTicket, unrelated); res.Status != "failed" ||
		res.Error == nil || res.Error.Code != "HASH_MISMATCH" {
		t.Fatalf("report of an unrelated transaction: %+v", res)
	}
	if n := s.transactions(t); n != 1 {
		t.Fatalf("stats count %d transactions, want the wallet-sent reclaim alone", n)
	}
}
