package storage_test

import (
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// TestConfirmEntryCountsLandedFigures claims an entry with its promise and
// recipients, confirms it with what the chain did (the wallet raised its
// priority fee by 10,000 lamports): the entry holds both, Differs, and
// stats, both leaderboard paths and the rebuilt totals count what landed.
func TestConfirmEntryCountsLandedFigures(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		claim := claimEntry(p.ID, "jti-landed")
		claim.DonationAmount, claim.ServiceFee, claim.Fees, claim.NetRebate = 200_000, 100_000, 105_000, 1_734_280
		claim.Promised = claim.Figures()
		claim.DonationWallet, claim.Treasury = "Donation1111111111111111111111111111111111", "Treasury1111111111111111111111111111111111"
		if err := s.ClaimTicket(ctx, claim); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MarkSubmitted(ctx, "jti-landed"); err != nil {
			t.Fatal(err)
		}
		landed := claim.Promised
		landed.NetworkFee += 10_000
		landed.NetRebate -= 10_000
		when := time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)
		for i, want := range []bool{true, false} {
			changed, err := s.ConfirmEntry(ctx, "jti-landed", landed, 0, when)
			if err != nil || changed != want {
				t.Fatalf("confirm %d: %v, %v", i, changed, err)
			}
		}
		e, err := s.EntryByTicketJTI(ctx, "jti-landed")
		if err != nil {
			t.Fatal(err)
		}
		if e.Figures() != landed || e.Fees != landed.Fees() || e.Promised != claim.Promised || !e.Differs() ||
			e.DonationWallet != claim.DonationWallet || e.Treasury != claim.Treasury || e.Status != ledger.StatusConfirmed {
			t.Fatalf("entry %+v", e)
		}
		if got := e.Difference(); got != "network fee 5,000 → 15,000 (+10,000); net rebate 1,734,280 → 1,724,280 (-10,000)" {
			t.Fatalf("difference %q", got)
		}
		checkCounted := func(stage string) {
			t.Helper()
			st, err := s.Stats(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if st.TotalNetRebate != landed.NetRebate || st.TotalGrossRebate != landed.GrossRebate || st.TotalTransactionCount != 1 {
				t.Fatalf("%s: stats %+v", stage, st)
			}
			for _, f := range []ledger.Filter{{}, {Start: &time.Time{}}} {
				lb, err := s.Leaderboard(ctx, p.ID, f)
				if err != nil || len(lb) != 1 || lb[0].TotalNetRebate != landed.NetRebate || lb[0].TotalCommunityAmount != landed.ServiceFee {
					t.Fatalf("%s: leaderboard (%+v): %+v %v", stage, f, lb, err)
				}
			}
		}
		checkCounted("running totals")
		if err := s.RebuildPayerTotals(ctx); err != nil {
			t.Fatal(err)
		}
		checkCounted("rebuilt totals")
	})
}

// TestPromiseBackfill: an entry recorded before the promise columns existed
// gets its own figures as its promise, so it does not count as differing.
func TestPromiseBackfill(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		e := entry("old", wsol, ledger.TypeTokenBurn, 1_000_000, 100_000, 5_000, ledger.StatusConfirmed, at("2026-01-10T12:00:00Z"))
		e.ProjectID = p.ID
		if err := s.InsertEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
		if err := storage.ForgetPromises(ctx, s.DB); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.EntryByTicketJTI(ctx, "old"); !got.Differs() {
			t.Fatalf("without a promise the entry should differ: %+v", got)
		}
		if err := storage.BackfillPromises(ctx, s.DB); err != nil {
			t.Fatal(err)
		}
		got, err := s.EntryByTicketJTI(ctx, "old")
		if err != nil || got.Differs() || got.Promised != e.Figures() {
			t.Fatalf("after the backfill: %+v %v", got, err)
		}
	})
}
