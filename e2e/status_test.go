package e2e

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// submissionStatus is the status route's answer for one signature, as an
// integrator would declare it.
type submissionStatus struct {
	Signature   string
	Status      string
	Includes    []map[string]string
	Error       *struct{ Code, Message string }
	Slot        uint64
	ConfirmedAt string
	Landed      *struct {
		Fee, GrossRebate, DonationAmount uint64
		NetRebate                        int64
	}
}

// submissions asks the status route about sigs as the wallet's session,
// waiting up to wait seconds for them to be final (waitUntil=final: landed
// does not end the wait).
func (s *service) submissions(t *testing.T, owner solana.PublicKey, token string, wait int, sigs ...string) []submissionStatus {
	t.Helper()
	q := url.Values{"signature": sigs}
	if wait > 0 {
		q.Set("waitSeconds", strconv.Itoa(wait))
		q.Set("waitUntil", "final")
	}
	var out struct{ Submissions []submissionStatus }
	if code := s.call("GET", "/v1/wallet/"+owner.String()+"/submissions?"+q.Encode(), bearerOf(token), nil, &out); code != 200 {
		t.Fatalf("submissions: %d", code)
	}
	if len(out.Submissions) != len(sigs) {
		t.Fatalf("%d submissions for %d signatures", len(out.Submissions), len(sigs))
	}
	return out.Submissions
}

// statusAgreesWithChain checks the status route's answer for each reclaim
// against the chain: confirmed exactly when the validator has it, at its
// slot, with the fee it paid (network fee plus the treasury's transfer),
// the lamports its closed account returned, and the change of the wallet's
// balance; a reclaim that never landed is expired with TICKET_EXPIRED.
func statusAgreesWithChain(t *testing.T, v *harness.Validator, s *service, rs []reclaim, accounts []solana.PublicKey) {
	t.Helper()
	for i, r := range rs {
		got := s.submissions(t, r.owner, r.token, 30, r.sig)[0]
		version := uint64(0)
		tx, err := v.RPC.GetTransaction(context.Background(), solana.MustSignatureFromBase58(r.sig),
			&rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentFinalized, MaxSupportedTransactionVersion: &version})
		if err != nil {
			if got.Status != "expired" || got.Error == nil || got.Error.Code != "TICKET_EXPIRED" {
				t.Errorf("reclaim %d never landed (%v), status %+v", i, err, got)
			}
			continue
		}
		if got.Status != "confirmed" || got.Landed == nil || got.Slot != tx.Slot || got.ConfirmedAt == "" || len(got.Includes) != 1 ||
			got.Includes[0]["address"] != accounts[i].String() {
			t.Errorf("reclaim %d landed at slot %d, status %+v", i, tx.Slot, got)
			continue
		}
		msg, err := tx.Transaction.GetTransaction()
		if err != nil {
			t.Fatal(err)
		}
		delta := func(key solana.PublicKey) int64 {
			for j, k := range msg.Message.AccountKeys {
				if k.Equals(key) {
					return int64(tx.Meta.PostBalances[j]) - int64(tx.Meta.PreBalances[j])
				}
			}
			return 0
		}
		l := got.Landed
		if want := tx.Meta.Fee + uint64(delta(s.treasury)); l.Fee != want {
			t.Errorf("reclaim %d: fee %d, the chain's %d (network fee %d)", i, l.Fee, want, tx.Meta.Fee)
		}
		if want := -delta(accounts[i]); int64(l.GrossRebate) != want || want == 0 {
			t.Errorf("reclaim %d: gross rebate %d, the closed account returned %d", i, l.GrossRebate, want)
		}
		if want := delta(r.owner); l.NetRebate != want {
			t.Errorf("reclaim %d: net rebate %d, the wallet's balance changed by %d", i, l.NetRebate, want)
		}
		if l.DonationAmount != 0 || l.GrossRebate-l.Fee-l.DonationAmount != uint64(l.NetRebate) {
			t.Errorf("reclaim %d: donation %d (none was built), figures %+v", i, l.DonationAmount, *l)
		}
	}
	if len(rs) > 1 {
		// Another wallet's signature: unknown to this one.
		if got := s.submissions(t, rs[0].owner, rs[0].token, 0, rs[1].sig)[0]; got.Status != "unknown" || len(got.Includes) != 0 {
			t.Errorf("another wallet's reclaim: %+v", got)
		}
	}
}
