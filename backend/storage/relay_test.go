package storage_test

import (
	"bytes"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
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
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
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

// TestRawTransactionKeptWhileInFlight: the signed bytes of a claim come
// back with the entry and with its lease while it is in flight (so that a
// tracker on any instance, after any restart, sends the same bytes again),
// and are dropped once it is settled, whatever the outcome.
func TestRawTransactionKeptWhileInFlight(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 1232) // the largest transaction, every byte value
		for i := range raw {
			raw[i] = byte(i)
		}
		for _, jti := range []string{"confirmed", "expired", "old"} {
			e := claimEntry(p.ID, jti)
			if jti != "old" { // claimed before the bytes were kept
				e.Raw = raw
			}
			if err := s.ClaimTicket(ctx, e); err != nil {
				t.Fatal(err)
			}
			if _, err := s.MarkSubmitted(ctx, jti); err != nil {
				t.Fatal(err)
			}
		}
		e, err := s.EntryByTicketJTI(ctx, "confirmed")
		if err != nil || !bytes.Equal(e.Raw, raw) {
			t.Fatalf("entry %d bytes, %v", len(e.Raw), err)
		}
		now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
		leased, err := s.LeaseInFlight(ctx, "a", 10, now, now.Add(time.Minute))
		if err != nil || len(leased) != 3 {
			t.Fatalf("leased %d, %v", len(leased), err)
		}
		for _, l := range leased {
			if want := raw; l.TicketJTI == "old" && l.Raw != nil || l.TicketJTI != "old" && !bytes.Equal(l.Raw, want) {
				t.Fatalf("leased %s with %d bytes", l.TicketJTI, len(l.Raw))
			}
		}
		if _, err := s.ConfirmEntry(ctx, "confirmed", ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5000}, 0, now); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetEntryStatus(ctx, "expired", ledger.StatusExpired, "the blockhash expired", now); err != nil {
			t.Fatal(err)
		}
		for _, jti := range []string{"confirmed", "expired"} {
			if e, err := s.EntryByTicketJTI(ctx, jti); err != nil || e.Raw != nil {
				t.Fatalf("%s settled keeps %d bytes, %v", jti, len(e.Raw), err)
			}
		}
	})
}

// TestSubmissions: the status route's read gives a wallet's own entries
// among the signatures asked, with their items and, once confirmed, the
// landed figures and slot; another wallet's or another project's entry is
// not among them, and an entry claimed without items reads with none.
func TestSubmissions(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		q, err := s.CreateProject(ctx, project.Project{Name: "q"})
		if err != nil {
			t.Fatal(err)
		}
		items := []ticket.Item{{Type: "empty_account", Address: "Acc1", Action: "close"}, {Type: "token", Address: "Acc2", Action: "burn"}}
		mine, old, theirs, other := claimEntry(p.ID, "mine"), claimEntry(p.ID, "old"), claimEntry(p.ID, "theirs"), claimEntry(q.ID, "other")
		mine.Includes = items
		theirs.Payer = "Payer2222222222222222222222222222222222222"
		for _, e := range []ledger.Entry{mine, old, theirs, other} {
			if err := s.ClaimTicket(ctx, e); err != nil {
				t.Fatal(err)
			}
			if _, err := s.MarkSubmitted(ctx, e.TicketJTI); err != nil {
				t.Fatal(err)
			}
		}
		at := time.Date(2026, 11, 21, 12, 0, 7, 0, time.UTC)
		landed := ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_029_280, NetworkFee: 10_000}
		if ok, err := s.ConfirmEntry(ctx, "mine", landed, 4_242_424, at); err != nil || !ok {
			t.Fatalf("confirm: %v %v", ok, err)
		}
		got, err := s.Submissions(ctx, p.ID, mine.Payer, []string{"sig-mine", "sig-old", "sig-theirs", "sig-other", "sig-never"})
		if err != nil {
			t.Fatal(err)
		}
		bySig := map[string]ledger.Entry{}
		for _, e := range got {
			bySig[e.Signature] = e
		}
		if len(got) != 2 || len(bySig) != 2 {
			t.Fatalf("got %d entries, want sig-mine and sig-old: %+v", len(got), got)
		}
		m := bySig["sig-mine"]
		if m.Status != ledger.StatusConfirmed || m.Slot != 4_242_424 || m.Figures() != landed || m.ConfirmedAt == nil ||
			!m.ConfirmedAt.Equal(at) || !slices.Equal(m.Includes, items) {
			t.Fatalf("sig-mine: %+v", m)
		}
		if o := bySig["sig-old"]; o.Status != ledger.StatusSubmitted || o.Includes != nil || o.Slot != 0 {
			t.Fatalf("sig-old: %+v", o)
		}
		if got, err := s.Submissions(ctx, p.ID, mine.Payer, nil); err != nil || len(got) != 0 {
			t.Fatalf("no signatures: %v %v", got, err)
		}
	})
}

// TestReportedClaimsHoldNoSignature: entries reported by their signature
// (a wallet-sent transaction) do not hold it until one is confirmed, so a
// report with another project's ticket never blocks the ticket's own; a
// relayed entry and a confirmed one hold it; a second entry confirmed with
// a held signature is refused (ledger.ErrDuplicate), never counted twice.
func TestReportedClaimsHoldNoSignature(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		ctx := ctxT(t)
		victim, err := s.CreateProject(ctx, project.Project{Name: "victim"})
		if err != nil {
			t.Fatal(err)
		}
		attacker, err := s.CreateProject(ctx, project.Project{Name: "attacker"})
		if err != nil {
			t.Fatal(err)
		}
		reported := func(projectID, jti string) ledger.Entry {
			e := claimEntry(projectID, jti)
			e.Signature, e.Reported = "sig-shared", &ticket.Claims{ID: jti, Project: projectID}
			return e
		}
		for _, e := range []ledger.Entry{reported(attacker.ID, "jti-attacker"), reported(victim.ID, "jti-victim")} {
			if err := s.ClaimTicket(ctx, e); err != nil {
				t.Fatalf("claim %s: %v", e.TicketJTI, err)
			}
			if _, err := s.MarkSubmitted(ctx, e.TicketJTI); err != nil {
				t.Fatal(err)
			}
		}
		at := time.Date(2026, 11, 21, 12, 0, 5, 0, time.UTC)
		if _, err := s.SetEntryStatus(ctx, "jti-attacker", ledger.StatusFailed, "HASH_MISMATCH: not its ticket", at); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.ConfirmEntry(ctx, "jti-victim", claimEntry(victim.ID, "x").Figures(), 7, at); err != nil || !ok {
			t.Fatalf("confirm the victim's: %v %v", ok, err)
		}
		if e, err := s.EntryBySignature(ctx, "sig-shared"); err != nil || e.TicketJTI != "jti-victim" {
			t.Fatalf("entry by signature: %+v %v", e, err)
		}
		// The signature is held now: neither a relayed claim nor another
		// confirmation takes it.
		relayed := claimEntry(attacker.ID, "jti-relayed")
		relayed.Signature = "sig-shared"
		if err := s.ClaimTicket(ctx, relayed); !errors.Is(err, ledger.ErrDuplicate) {
			t.Fatalf("relayed claim of a held signature: %v", err)
		}
		late := reported(attacker.ID, "jti-late")
		if err := s.ClaimTicket(ctx, late); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MarkSubmitted(ctx, "jti-late"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ConfirmEntry(ctx, "jti-late", late.Figures(), 7, at); !errors.Is(err, ledger.ErrDuplicate) {
			t.Fatalf("a second confirmation of the signature: %v", err)
		}
		for _, p := range []struct {
			id   string
			want int64
		}{{victim.ID, 1}, {attacker.ID, 0}} {
			if st, err := s.Stats(ctx, p.id); err != nil || st.TotalTransactionCount != p.want {
				t.Fatalf("stats of %s: %+v %v", p.id, st, err)
			}
		}
	})
}
