package relay_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// TestReportedTransactions: a wallet that sent its transaction itself
// reports its signature with the ticket; nothing is sent, the ticket is
// consumed (a second report is duplicate), and the tracker counts the landed
// transaction only if it is the ticket's: the ticket's own is counted once
// with the chain's figures, while a real ticket paired with another
// transaction that landed (the wallet's own) ends failed, HASH_MISMATCH,
// and is never counted.
func TestReportedTransactions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	wallet := f.wallet.PublicKey()
	cluster := &fakeCluster{height: 50, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{}, landed: map[solana.Signature]landedTx{}}
	land := func(tx *solana.Transaction) {
		cluster.statuses[tx.Signatures[0]] = &rpc.SignatureStatusesResult{ConfirmationStatus: rpc.ConfirmationStatusFinalized}
		cluster.landed[tx.Signatures[0]] = landedTx{tx: tx, fee: 5_000, deltas: map[solana.PublicKey]int64{wallet: 2_034_280}}
	}
	report := func(tok, sig string) relay.Result {
		t.Helper()
		res, err := f.relay.Submit(ctx, f.project.ID, wallet, []relay.Signed{{Ticket: tok, Signature: sig}})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}

	own, ownTok := f.build(t)
	sign(t, own, f.wallet)
	ownSig := own.Signatures[0].String()
	if r := report(ownTok, ownSig); r.Status != relay.StatusSubmitted || r.Signature != ownSig || len(r.Includes) != 1 {
		t.Fatalf("report %+v", r)
	}
	if r := report(ownTok, ownSig); r.Status != relay.StatusDuplicate || r.Signature != ownSig {
		t.Fatalf("second report %+v", r)
	}
	// The same transaction relayed after the report, while the cluster does
	// not know it (the wallet's send was lost): those bytes are sent, under
	// the one entry.
	if r := f.submit(t, sign(t, own, f.wallet), ownTok); r.Status != relay.StatusSubmitted || r.Signature != ownSig || f.rpc.sends.Load() != 1 {
		t.Fatalf("relayed after the report %+v, %d sends", r, f.rpc.sends.Load())
	}

	_, realTok := f.build(t)
	unrelated, _ := f.build(t) // another transaction of the wallet, never reported
	sign(t, unrelated, f.wallet)
	if r := report(realTok, unrelated.Signatures[0].String()); r.Status != relay.StatusSubmitted {
		t.Fatalf("report of an unrelated transaction %+v", r)
	}
	if n := f.rpc.sends.Load(); n != 1 {
		t.Fatalf("%d sends, want the relayed one alone", n)
	}

	land(own)
	land(unrelated)
	now := f.now.Add(time.Second)
	tr := relay.NewTracker(cluster, f.store, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return now })
	if moved, err := tr.Pass(ctx); err != nil || moved != 2 {
		t.Fatalf("moved %d, %v", moved, err)
	}
	subs, err := f.relay.Submissions(ctx, f.project.ID, wallet.String(), []string{ownSig, unrelated.Signatures[0].String()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := subs[0]; s.State != relay.StateConfirmed || s.Landed.NetRebate != 2_034_280 || s.Landed.GrossRebate != 2_039_280 {
		t.Fatalf("the ticket's own transaction: %+v", s)
	}
	if s := subs[1]; s.State != relay.StateFailed || s.Code != relay.CodeHashMismatch || !strings.Contains(s.Message, "not counted") {
		t.Fatalf("the unrelated transaction: %+v", s)
	}
	st, err := f.store.Stats(ctx, f.project.ID)
	if err != nil || st.TotalTransactionCount != 1 || st.TotalNetRebate != 2_034_280 {
		t.Fatalf("stats %+v %v", st, err)
	}
	if got := tr.Counts(); got.Confirmed != 1 || got.Failed != 1 {
		t.Fatalf("counts %+v", got)
	}
	if r := report(realTok, unrelated.Signatures[0].String()); r.Status != relay.StatusFailed || r.Code != relay.CodeHashMismatch {
		t.Fatalf("the mismatched ticket reported again: %+v", r)
	}
	e, err := f.store.EntryByTicketJTI(ctx, mustJTI(t, f, realTok))
	if err != nil || e.Status != ledger.StatusFailed || e.Reported == nil || e.Raw != nil {
		t.Fatalf("entry %+v %v", e, err)
	}
}
