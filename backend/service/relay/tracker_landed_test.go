package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// TestTrackerLandsAtConfirmed follows one transaction as the cluster sees
// it, on SQLite and Postgres: found at confirmed commitment, it is landed
// at once, with the slot and the figures read there (one getTransaction at
// confirmed, none again on the next pass), counted nowhere, and the
// endpoint that names submission.landed gets it with includes and slot
// while the one that names no type does not; a fork drops it: submitted
// again with its promise; found again: landed again; finalized: confirmed
// and counted, as before.
func TestTrackerLandsAtConfirmed(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := context.Background()
		now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		endpoints := map[string][]string{"whe_all": nil, "whe_landed": {webhook.TypeSubmissionLanded, webhook.TypeSubmissionConfirmed}}
		for id, events := range endpoints {
			if err := s.CreateWebhookEndpoint(ctx, webhook.Endpoint{ID: id, ProjectID: p.ID, URL: "https://hooks.example/" + id,
				Events: events, Secret: []byte("sealed"), CreatedAt: now}); err != nil {
				t.Fatal(err)
			}
		}
		wallet, donation, treasury := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
		promise := ledger.Figures{GrossRebate: 2_039_280, NetRebate: 1_728_388, DonationAmount: 203_928, NetworkFee: 5_000, ServiceFee: 101_964}
		sig := solana.Signature{7}
		e := ledger.Entry{ProjectID: p.ID, Payer: wallet.String(), Type: ledger.TypeTokenAccountClosure, Signature: sig.String(),
			TicketJTI: "jti-landed", CreatedAt: now, LastValidBlockHeight: 300, DonationWallet: donation.String(), Treasury: treasury.String(),
			Includes: []ticket.Item{{Type: "empty_account", Address: "A1", Action: "close"}}, Raw: []byte{1}}
		e.SetFigures(promise)
		e.Promised = promise
		if err := s.ClaimTicket(ctx, e); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MarkSubmitted(ctx, e.TicketJTI); err != nil {
			t.Fatal(err)
		}
		tx, err := solana.NewTransaction([]solana.Instruction{
			system.NewTransferInstruction(1, wallet, donation).Build(), system.NewTransferInstruction(1, wallet, treasury).Build(),
		}, solana.Hash{7}, solana.TransactionPayer(wallet))
		if err != nil {
			t.Fatal(err)
		}
		tx.Signatures = []solana.Signature{sig}
		// It landed with a raised fee: the landed figures are the chain's.
		got := promise
		got.NetworkFee, got.NetRebate = 15_000, promise.NetRebate-10_000
		cluster := &fakeCluster{height: 150, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{}, landed: map[solana.Signature]landedTx{
			sig: {tx: tx, fee: 15_000, slot: 4321, deltas: map[solana.PublicKey]int64{wallet: got.NetRebate, donation: promise.DonationAmount, treasury: promise.ServiceFee}},
		}}
		tr := relay.NewTracker(cluster, s, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return now })
		tr.RebroadcastInterval = 0
		changes := 0
		tr.Changed = func() { changes++ }
		status := func() relay.Submission {
			t.Helper()
			subs, err := relay.New(&fakeRPC{}, s, nil, func() time.Time { return now }).Submissions(ctx, p.ID, wallet.String(), []string{sig.String()}, 0)
			if err != nil {
				t.Fatal(err)
			}
			return subs[0]
		}
		pass := func(st *rpc.SignatureStatusesResult) {
			t.Helper()
			now = now.Add(time.Second)
			cluster.statuses[sig] = st
			if _, err := tr.Pass(ctx); err != nil {
				t.Fatal(err)
			}
		}
		counted := func(want int64) {
			t.Helper()
			st, err := s.Stats(ctx, p.ID)
			if err != nil || st.TotalTransactionCount != want {
				t.Fatalf("stats %+v %v, want %d transactions", st, err, want)
			}
		}
		events := func(id string) []string {
			t.Helper()
			ds, err := s.WebhookDeliveries(ctx, p.ID, id, 10)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, d := range ds {
				out = append(out, d.Type)
				if d.Type != webhook.TypeSubmissionLanded {
					continue
				}
				var ev struct{ Data webhook.Submission }
				if err := json.Unmarshal(d.Payload, &ev); err != nil {
					t.Fatal(err)
				}
				if ev.Data.Status != "landed" || ev.Data.Slot != 4321 || len(ev.Data.Includes) != 1 || ev.Data.Landed == nil ||
					ev.Data.Landed.NetRebate != got.NetRebate || ev.Data.Landed.Fee != got.Fees() {
					t.Fatalf("landed event %s", d.Payload)
				}
			}
			return out
		}

		confirmed := &rpc.SignatureStatusesResult{Slot: 4321, ConfirmationStatus: rpc.ConfirmationStatusConfirmed}
		pass(confirmed)
		landedAt := now
		if st := status(); st.State != relay.StateLanded || st.Slot != 4321 || st.Landed != got || len(st.Includes) != 1 {
			t.Fatalf("after the first pass at confirmed: %+v", st)
		}
		if en, _ := s.EntryByTicketJTI(ctx, e.TicketJTI); en.Status != ledger.StatusSubmitted || en.LandedAt == nil || !en.LandedAt.Equal(landedAt) {
			t.Fatalf("landed entry %+v", en)
		}
		counted(0)
		if changes != 1 {
			t.Fatalf("%d changes told after the landing, want 1", changes)
		}
		pass(confirmed)
		if changes != 1 {
			t.Fatalf("%d changes told after a pass that changed nothing, want 1", changes)
		}
		if cluster.reads[rpc.CommitmentConfirmed] != 1 || cluster.reads[rpc.CommitmentFinalized] != 0 {
			t.Fatalf("getTransaction calls %v, want one at confirmed", cluster.reads)
		}
		if all, landed := events("whe_all"), events("whe_landed"); len(all) != 0 || len(landed) != 1 {
			t.Fatalf("events: every type %v, landed %v", all, landed)
		}

		pass(nil) // a fork dropped it
		if st := status(); st.State != relay.StateSubmitted || st.Slot != 0 || st.Landed != (ledger.Figures{}) {
			t.Fatalf("dropped by a fork: %+v", st)
		}
		if en, _ := s.EntryByTicketJTI(ctx, e.TicketJTI); en.LandedAt != nil || en.Figures() != promise || en.Fees != promise.Fees() || en.Slot != 0 {
			t.Fatalf("dropped entry %+v", en)
		}
		pass(confirmed)
		if st := status(); st.State != relay.StateLanded || st.Slot != 4321 {
			t.Fatalf("landed again: %+v", st)
		}
		counted(0)

		pass(&rpc.SignatureStatusesResult{Slot: 4321, ConfirmationStatus: rpc.ConfirmationStatusFinalized})
		st := status()
		if st.State != relay.StateConfirmed || st.Slot != 4321 || st.Landed != got || !st.ConfirmedAt.Equal(now) {
			t.Fatalf("finalized: %+v", st)
		}
		counted(1)
		if all, landed := events("whe_all"), events("whe_landed"); len(all) != 1 || all[0] != webhook.TypeSubmissionConfirmed || len(landed) != 3 {
			t.Fatalf("events: every type %v, landed and confirmed %v", all, landed)
		}
		if c := tr.Counts(); c.Landed != 2 || c.Dropped != 1 || c.Confirmed != 1 {
			t.Fatalf("counts %+v", c)
		}
	})
}

// TestTrackerLandsABatchInOneRoundTrip: the landing reads of a batch go
// out together: three entries found at confirmed in one pass have their
// three getTransaction calls in flight at once (each waits for the
// others), and all three are landed.
func TestTrackerLandsABatchInOneRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	wallet, donation := f.wallet.PublicKey(), solana.NewWallet().PublicKey()
	promise := ledger.Figures{GrossRebate: 2_039_280, NetRebate: 1_830_352, DonationAmount: 203_928, NetworkFee: 5_000}
	cluster := &fakeCluster{height: 150, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{}, landed: map[solana.Signature]landedTx{}}
	const n = 3
	arrived, all := make(chan struct{}, n), make(chan struct{})
	var once sync.Once
	cluster.gate = func() {
		arrived <- struct{}{}
		if len(arrived) == n {
			once.Do(func() { close(all) })
		}
		select {
		case <-all:
		case <-time.After(30 * time.Second): // a failure's bound, not a wait
			t.Error("a landing read waited 30 s for the batch's others: the reads are not together")
		}
	}
	for i := range n {
		sig := solana.Signature{byte(40 + i)}
		e := ledger.Entry{ProjectID: f.project.ID, Payer: wallet.String(), Type: ledger.TypeTokenAccountClosure, Signature: sig.String(),
			TicketJTI: fmt.Sprintf("jti-%d", i), CreatedAt: f.now, LastValidBlockHeight: 300, DonationWallet: donation.String()}
		e.SetFigures(promise)
		e.Promised = promise
		if err := f.store.ClaimTicket(ctx, e); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.MarkSubmitted(ctx, e.TicketJTI); err != nil {
			t.Fatal(err)
		}
		tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(1, wallet, donation).Build()},
			solana.Hash{byte(i)}, solana.TransactionPayer(wallet))
		if err != nil {
			t.Fatal(err)
		}
		tx.Signatures = []solana.Signature{sig}
		cluster.statuses[sig] = &rpc.SignatureStatusesResult{Slot: 50, ConfirmationStatus: rpc.ConfirmationStatusConfirmed}
		cluster.landed[sig] = landedTx{tx: tx, fee: 5_000, slot: 50, deltas: map[solana.PublicKey]int64{wallet: promise.NetRebate, donation: promise.DonationAmount}}
	}
	tr := relay.NewTracker(cluster, f.store, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return f.now })
	if _, err := tr.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if c := tr.Counts(); c.Landed != n || cluster.reads[rpc.CommitmentConfirmed] != n {
		t.Fatalf("counts %+v, reads %v", c, cluster.reads)
	}
}
