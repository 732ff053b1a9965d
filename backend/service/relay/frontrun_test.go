package relay_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// TestFrontRunReportIsNotCredited: another project (any API key can mint a
// session for any wallet) reports the wallet's own signature with a ticket
// of its own build first. Whether the transaction has landed when it does
// (the report ends HASH_MISMATCH at once, nothing recorded) or not yet (its
// entry holds nothing and fails HASH_MISMATCH when it lands), the victim's
// report with its ticket is submitted, not duplicate, and only the victim's
// project counts the transaction.
func TestFrontRunReportIsNotCredited(t *testing.T) {
	t.Parallel()
	for _, landedFirst := range []bool{true, false} {
		name := map[bool]string{true: "landed before the reports", false: "reported before it landed"}[landedFirst]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			ctx := context.Background()
			wallet := f.wallet.PublicKey()
			attacker, err := f.store.CreateProject(ctx, project.Project{Name: "attacker"})
			if err != nil {
				t.Fatal(err)
			}
			victimTx, victimTok := f.build(t)
			attackerTx, _ := f.build(t) // the attacker's own build for the same wallet
			attackerTok := f.ticketFor(t, attacker.ID, attackerTx)
			sign(t, victimTx, f.wallet)
			sig := victimTx.Signatures[0].String()
			report := func(projectID, tok string) relay.Result {
				t.Helper()
				res, err := f.relay.Submit(ctx, projectID, wallet, []relay.Signed{{Ticket: tok, Signature: sig}})
				if err != nil {
					t.Fatal(err)
				}
				return res[0]
			}
			if landedFirst {
				f.rpc.land(t, victimTx)
			}
			got := report(attacker.ID, attackerTok)
			if landedFirst && (got.Status != relay.StatusFailed || got.Code != relay.CodeHashMismatch) {
				t.Fatalf("the attacker's report of a landed transaction: %+v", got)
			}
			if !landedFirst && got.Status != relay.StatusSubmitted {
				t.Fatalf("the attacker's report before landing: %+v", got)
			}
			if got := report(f.project.ID, victimTok); got.Status != relay.StatusSubmitted || got.Signature != sig {
				t.Fatalf("the victim's report: %+v", got)
			}

			cluster := &fakeCluster{height: 50, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{
				victimTx.Signatures[0]: {ConfirmationStatus: rpc.ConfirmationStatusFinalized},
			}, landed: map[solana.Signature]landedTx{
				victimTx.Signatures[0]: {tx: victimTx, fee: 5_000, deltas: map[solana.PublicKey]int64{wallet: 2_034_280}},
			}}
			now := f.now.Add(time.Second)
			tr := relay.NewTracker(cluster, f.store, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return now })
			if _, err := tr.Pass(ctx); err != nil {
				t.Fatal(err)
			}
			if st, err := f.store.Stats(ctx, f.project.ID); err != nil || st.TotalTransactionCount != 1 || st.TotalNetRebate != 2_034_280 {
				t.Fatalf("the victim's stats %+v %v", st, err)
			}
			if st, err := f.store.Stats(ctx, attacker.ID); err != nil || st.TotalTransactionCount != 0 {
				t.Fatalf("the attacker's stats %+v %v", st, err)
			}
			e, err := f.store.EntryBySignature(ctx, sig)
			if err != nil || e.ProjectID != f.project.ID || e.Status != ledger.StatusConfirmed {
				t.Fatalf("the entry holding the signature: %+v %v", e, err)
			}
			if !landedFirst {
				subs, err := f.relay.Submissions(ctx, attacker.ID, wallet.String(), []string{sig}, 0)
				if err != nil || len(subs) != 1 || subs[0].State != relay.StateFailed || subs[0].Code != relay.CodeHashMismatch {
					t.Fatalf("the attacker's submission: %+v %v", subs, err)
				}
			}
		})
	}
}
