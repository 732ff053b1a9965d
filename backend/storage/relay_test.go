package storage_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

func claimEntry(projectID, jti string) ledger.Entry {
	return ledger.Entry{
		ProjectID: projectID, Payer: "Payer1111111111111111111111111111111111111", Type: ledger.TypeTokenAccountClosure,
		GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5000, Fees: 5000, ItemCount: 1,
		Signature: "sig-" + jti, TicketJTI: jti, CreatedAt: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		LastValidBlockHeight: 4242,
	}
}

func TestClaimTicketExactlyOnce(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storage.Store) {
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		const n = 20
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.ClaimTicket(ctx, claimEntry(p.ID, "jti-1"))
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ledger.ErrDuplicate):
				t.Fatalf("claim: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d claims won, want exactly 1", won)
		}
		e, err := s.EntryByTicketJTI(ctx, "jti-1")
		if err != nil || e.Status != ledger.StatusSending || e.LastValidBlockHeight != 4242 || e.Signature != "sig-jti-1" {
			t.Fatalf("entry %+v %v", e, err)
		}
		// A sending claim does not count.
		if st, err := s.Stats(ctx, p.ID); err != nil || st.TotalTransactionCount != 0 {
			t.Fatalf("stats %+v %v", st, err)
		}
		if got, err := s.InFlight(ctx, 10); err != nil || len(got) != 1 {
			t.Fatalf("in flight %v %v", got, err)
		}
		// Released: the ticket may be claimed again.
		if err := s.ReleaseClaim(ctx, "jti-1"); err != nil {
			t.Fatal(err)
		}
		if err := s.ClaimTicket(ctx, claimEntry(p.ID, "jti-1")); err != nil {
			t.Fatalf("claim after release: %v", err)
		}
		ok, err := s.MarkSubmitted(ctx, "jti-1")
		if err != nil || !ok {
			t.Fatalf("mark submitted %v %v", ok, err)
		}
		if ok, _ := s.MarkSubmitted(ctx, "jti-1"); ok {
			t.Fatal("marked submitted twice")
		}
		// A submitted entry is no longer releasable.
		if err := s.ReleaseClaim(ctx, "jti-1"); err != nil {
			t.Fatal(err)
		}
		if e, err := s.EntryByTicketJTI(ctx, "jti-1"); err != nil || e.Status != ledger.StatusSubmitted {
			t.Fatalf("after release of a submitted entry: %+v %v", e, err)
		}
		changed, err := s.SetEntryStatus(ctx, "jti-1", ledger.StatusConfirmed, "", time.Date(2026, 11, 21, 12, 0, 5, 0, time.UTC))
		if err != nil || !changed {
			t.Fatalf("confirm %v %v", changed, err)
		}
		if st, err := s.Stats(ctx, p.ID); err != nil || st.TotalNetRebate != 2_034_280 || st.TotalTransactionCount != 1 {
			t.Fatalf("stats after confirmation %+v %v", st, err)
		}
		if got, err := s.InFlight(ctx, 10); err != nil || len(got) != 0 {
			t.Fatalf("in flight after confirmation %v %v", got, err)
		}
		if err := s.LogAttempt(ctx, ledger.Attempt{ProjectID: p.ID, Payer: "P", TicketJTI: "jti-1", Status: "failed", Code: "HASH_MISMATCH", Message: "m"}); err != nil {
			t.Fatal(err)
		}
	})
}
