package storage_test

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

func TestOwnersAndMemberships(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		alice, err := s.CreateOwner(ctx, owner.Owner{Email: " Alice@Example.com ", PasswordHash: "h"})
		if err != nil {
			t.Fatal(err)
		}
		if alice.Email != "alice@example.com" {
			t.Errorf("email = %q, want it lowercased and trimmed", alice.Email)
		}
		if _, err := s.CreateOwner(ctx, owner.Owner{Email: "ALICE@example.com", PasswordHash: "h"}); !errors.Is(err, owner.ErrConflict) {
			t.Errorf("second owner with the same email: err = %v, want ErrConflict", err)
		}
		got, err := s.OwnerByEmail(ctx, "alice@EXAMPLE.com")
		if err != nil || got.ID != alice.ID {
			t.Fatalf("OwnerByEmail = %+v, %v", got, err)
		}
		if _, err := s.OwnerByEmail(ctx, "nobody@example.com"); !errors.Is(err, owner.ErrNotFound) {
			t.Errorf("unknown email: err = %v, want ErrNotFound", err)
		}
		bob, err := s.CreateOwner(ctx, owner.Owner{Email: "bob@example.com", PasswordHash: "h"})
		if err != nil {
			t.Fatal(err)
		}

		p, err := s.CreateOwnedProject(ctx, project.Project{Name: "Zeta"}, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		q, err := s.CreateOwnedProject(ctx, project.Project{Name: "Alpha"}, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateOwnedProject(ctx, project.Project{Name: "Bob's"}, bob.ID); err != nil {
			t.Fatal(err)
		}
		m, err := s.Membership(ctx, p.ID, alice.ID)
		if err != nil || m.Role != owner.RoleOwner {
			t.Fatalf("Membership = %+v, %v; want role owner", m, err)
		}
		if _, err := s.Membership(ctx, p.ID, bob.ID); !errors.Is(err, owner.ErrNotFound) {
			t.Errorf("bob in alice's project: err = %v, want ErrNotFound", err)
		}
		if err := s.AddMember(ctx, p.ID, bob.ID, owner.RoleViewer); err != nil {
			t.Fatal(err)
		}
		if err := s.AddMember(ctx, p.ID, bob.ID, owner.RoleOwner); !errors.Is(err, owner.ErrConflict) {
			t.Errorf("second membership: err = %v, want ErrConflict", err)
		}
		if err := s.AddMember(ctx, "prj_missing", bob.ID, owner.RoleOwner); !errors.Is(err, owner.ErrNotFound) {
			t.Errorf("membership of a missing project: err = %v, want ErrNotFound", err)
		}

		list, err := s.ProjectsOf(ctx, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Project.ID != q.ID || list[1].Project.ID != p.ID {
			t.Errorf("ProjectsOf(alice) = %+v, want Alpha then Zeta", list)
		}
		list, err = s.ProjectsOf(ctx, bob.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[1].Project.ID != p.ID || list[1].Role != owner.RoleViewer {
			t.Errorf("ProjectsOf(bob) = %+v, want his own and Zeta as viewer", list)
		}

		up, err := s.UpdateProject(ctx, p.ID, "Zeta 2", wsol)
		if err != nil || up.Name != "Zeta 2" || up.DonationWallet != wsol {
			t.Errorf("UpdateProject = %+v, %v", up, err)
		}
		if _, err := s.UpdateProject(ctx, "prj_missing", "x", ""); !errors.Is(err, project.ErrNotFound) {
			t.Errorf("UpdateProject of a missing project: err = %v, want ErrNotFound", err)
		}
	})
}

func TestBrowserSessionsAndThrottling(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		o, err := s.CreateOwner(ctx, owner.Owner{Email: "a@example.com", PasswordHash: "h"})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		bs := owner.Session{IDHash: []byte{1, 2, 3}, OwnerID: o.ID, CSRFToken: "csrf", CreatedAt: t0, LastSeenAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, bs); err != nil {
			t.Fatal(err)
		}
		if err := s.TouchSession(ctx, bs.IDHash, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, err := s.SessionByHash(ctx, []byte{1, 2, 3})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.IDHash, bs.IDHash) || got.OwnerID != o.ID || got.CSRFToken != "csrf" ||
			!got.LastSeenAt.Equal(t0.Add(time.Minute)) || !got.ExpiresAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("SessionByHash = %+v", got)
		}
		if err := s.DeleteSessionsBefore(ctx, t0, t0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionByHash(ctx, bs.IDHash); err != nil {
			t.Errorf("a live session was swept: %v", err)
		}
		if err := s.DeleteSession(ctx, bs.IDHash); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionByHash(ctx, bs.IDHash); !errors.Is(err, owner.ErrNotFound) {
			t.Errorf("deleted session: err = %v, want ErrNotFound", err)
		}

		f, err := s.SignInFailures(ctx, "k")
		if err != nil || f.Failures != 0 {
			t.Fatalf("no failures yet: %+v, %v", f, err)
		}
		for i := 1; i <= 3; i++ {
			f, err = s.RecordSignInFailure(ctx, "k", t0.Add(time.Duration(i)*time.Second))
			if err != nil {
				t.Fatal(err)
			}
		}
		if f.Failures != 3 || !f.LastAt.Equal(t0.Add(3*time.Second)) {
			t.Errorf("after 3 failures: %+v", f)
		}
		if err := s.ClearSignInFailures(ctx, "k"); err != nil {
			t.Fatal(err)
		}
		if f, _ := s.SignInFailures(ctx, "k"); f.Failures != 0 {
			t.Errorf("after clearing: %+v", f)
		}
		for key, at := range map[string]time.Time{"old": t0, "new": t0.Add(time.Minute)} {
			if _, err := s.RecordSignInFailure(ctx, key, at); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteSignInFailuresBefore(ctx, t0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if f, _ := s.SignInFailures(ctx, "old"); f.Failures != 0 {
			t.Errorf("a forgotten key kept: %+v", f)
		}
		if f, _ := s.SignInFailures(ctx, "new"); f.Failures != 1 {
			t.Errorf("a live key swept: %+v", f)
		}
	})
}

// A token is spent once, even by requests racing for it; expired ones are
// forgotten.
func TestSpentTokens(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		var fresh atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.SpendToken(ctx, []byte("token-1"), t0.Add(time.Hour))
				if err != nil {
					t.Error(err)
				}
				if ok {
					fresh.Add(1)
				}
			}()
		}
		wg.Wait()
		if fresh.Load() != 1 {
			t.Fatalf("one token spent by 8 requests at once: %d were told it was fresh, want 1", fresh.Load())
		}
		if ok, err := s.SpendToken(ctx, []byte("token-2"), t0.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("another token: %v, %v", ok, err)
		}
		if err := s.DeleteSpentTokensBefore(ctx, t0.Add(30*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.SpendToken(ctx, []byte("token-2"), t0.Add(time.Minute)); !ok {
			t.Error("an expired token was not forgotten")
		}
		if ok, _ := s.SpendToken(ctx, []byte("token-1"), t0.Add(time.Hour)); ok {
			t.Error("a live spent token was forgotten")
		}
	})
}

func TestAuditDailyTotalsAndLatest(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.CreateProject(ctx, project.Project{Name: "other"})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		for i, a := range []owner.Action{owner.ActionKeyCreated, owner.ActionKeyRevoked} {
			if err := s.AddAudit(ctx, owner.AuditEntry{ProjectID: p.ID, OwnerEmail: "a@example.com", Action: a, Key: owner.AuditKey{ID: "key_1"}, CreatedAt: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		log, err := s.AuditLog(ctx, p.ID, 10)
		if err != nil || len(log) != 2 || log[0].Action != owner.ActionKeyRevoked {
			t.Errorf("AuditLog = %+v, %v; want revoked first", log, err)
		}

		entries := []struct {
			proj, jti string
			status    ledger.Status
			gross     int64
			confirmed *time.Time
		}{
			{p.ID, "a", ledger.StatusConfirmed, 100, at("2026-04-30T23:59:59Z")},
			{p.ID, "b", ledger.StatusConfirmed, 200, at("2026-05-01T00:00:00Z")},
			{p.ID, "c", ledger.StatusConfirmed, 300, at("2026-05-01T23:00:00Z")},
			{p.ID, "d", ledger.StatusFailed, 1000, nil},
			{p.ID, "e", ledger.StatusConfirmed, 400, at("2026-05-03T10:00:00Z")},
			{p.ID, "f", ledger.StatusConfirmed, 500, at("2026-05-04T00:00:00Z")}, // outside [from, to)
			{other.ID, "g", ledger.StatusConfirmed, 9000, at("2026-05-01T10:00:00Z")},
		}
		for i, e := range entries {
			en := entry(e.jti, wsol, ledger.TypeTokenBurn, e.gross, 0, 0, e.status, e.confirmed)
			en.ProjectID = e.proj
			en.CreatedAt = t0.Add(time.Duration(i) * time.Second)
			if err := s.InsertEntry(ctx, en); err != nil {
				t.Fatal(err)
			}
		}
		days, err := s.DailyTotals(ctx, p.ID, *at("2026-04-30T00:00:00Z"), *at("2026-05-04T00:00:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		want := []ledger.DailyTotal{
			{Day: *at("2026-04-30T00:00:00Z"), GrossRebate: 100, TransactionCount: 1},
			{Day: *at("2026-05-01T00:00:00Z"), GrossRebate: 500, TransactionCount: 2},
			{Day: *at("2026-05-03T00:00:00Z"), GrossRebate: 400, TransactionCount: 1},
		}
		if len(days) != len(want) {
			t.Fatalf("DailyTotals = %+v, want %+v", days, want)
		}
		for i := range want {
			if !days[i].Day.Equal(want[i].Day) || days[i].GrossRebate != want[i].GrossRebate || days[i].TransactionCount != want[i].TransactionCount {
				t.Errorf("day %d = %+v, want %+v", i, days[i], want[i])
			}
		}
		latest, err := s.LatestEntries(ctx, p.ID, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(latest) != 3 || latest[0].TicketJTI != "f" || latest[2].TicketJTI != "d" || latest[2].Status != ledger.StatusFailed {
			t.Errorf("LatestEntries = %+v, want f, e, d", latest)
		}
	})
}
