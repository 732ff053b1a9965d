package storage_test

import (
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// TestRentSplitCounted: an entry keeps its ticket's rent beside its gross
// (a wrapped SOL close: 2,039,280 of rent, 0.05 SOL the wallet's own), once
// confirmed with more lamports than promised (sent to the account after the
// build) the extra is own balance; an entry claimed without a rent (a
// ticket from before) counts in neither figure of the stats, in the running
// totals and rebuilt alike, and its status says no split.
func TestRentSplitCounted(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		confirm := func(e ledger.Entry, landed ledger.Figures) ledger.Entry {
			t.Helper()
			if err := s.ClaimTicket(ctx, e); err != nil {
				t.Fatal(err)
			}
			if _, err := s.MarkSubmitted(ctx, e.TicketJTI); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.ConfirmEntry(ctx, e.TicketJTI, landed, 7, time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)); err != nil || !ok {
				t.Fatalf("confirm %s: %v %v", e.TicketJTI, ok, err)
			}
			got, err := s.EntryByTicketJTI(ctx, e.TicketJTI)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		const rent, own = 2_039_280, 50_000_000
		split := claimEntry(p.ID, "jti-split")
		split.GrossRebate, split.DonationAmount, split.NetRebate = rent+own, rent/10, rent+own-5_000-rent/10
		split.Fees, split.Promised = 5_000, ledger.Figures{}
		split.Promised = split.Figures()
		r := int64(rent)
		split.RentRebate = &r
		landed := split.Promised
		landed.GrossRebate += 1_000 // lamports sent to the account after the build
		landed.NetRebate += 1_000
		e := confirm(split, landed)
		if gr, go_, ok := e.Split(); !ok || gr != rent || go_ != own+1_000 {
			t.Fatalf("split %d + %d (%v), want %d + %d", gr, go_, ok, rent, own+1_000)
		}

		old := claimEntry(p.ID, "jti-old") // a ticket issued before the split
		old.Signature = "sig-jti-old"
		if e := confirm(old, old.Figures()); e.RentRebate != nil {
			t.Fatalf("an entry without a rent got %d", *e.RentRebate)
		}

		capped := claimEntry(p.ID, "jti-capped")
		capped.Signature = "sig-jti-capped"
		big := int64(10_000_000) // more rent than came back: at most the gross
		capped.RentRebate = &big
		if gr, go_, ok := confirm(capped, capped.Figures()).Split(); !ok || gr != capped.GrossRebate || go_ != 0 {
			t.Fatalf("capped split %d + %d (%v)", gr, go_, ok)
		}

		check := func(stage string) {
			t.Helper()
			st, err := s.Stats(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantRent, wantOwn := int64(rent+2_039_280), int64(own+1_000)
			if st.TotalRentRebate != wantRent || st.TotalOwnBalanceRebate != wantOwn ||
				st.TotalGrossRebate != wantRent+wantOwn+old.GrossRebate || st.TotalTransactionCount != 3 {
				t.Fatalf("%s: stats %+v, want rent %d and own %d (the old entry in neither)", stage, st, wantRent, wantOwn)
			}
		}
		check("running totals")
		if err := s.RebuildPayerTotals(ctx); err != nil {
			t.Fatal(err)
		}
		check("rebuilt totals")
	})
}
