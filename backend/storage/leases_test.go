package storage_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// claimN claims n entries lease-0 ... lease-(n-1), each a second younger
// than the one before, and returns the project.
func claimN(t *testing.T, s *storagetest.Store, n int) project.Project {
	t.Helper()
	ctx := ctxT(t)
	p, err := s.CreateProject(ctx, project.Project{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		e := claimEntry(p.ID, fmt.Sprintf("lease-%d", i))
		e.CreatedAt = e.CreatedAt.Add(time.Duration(i) * time.Second)
		if err := s.ClaimTicket(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func jtis(es []ledger.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.TicketJTI
	}
	return out
}

// TestLeaseInFlight leases entries in flight to one tracker at a time: the
// oldest free first, none settled; a lease that runs out frees its entries,
// and the least recently leased go first.
func TestLeaseInFlight(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		ctx := ctxT(t)
		claimN(t, s, 5)
		for _, jti := range []string{"lease-1", "lease-2"} {
			if _, err := s.MarkSubmitted(ctx, jti); err != nil {
				t.Fatal(err)
			}
		}
		if ok, err := s.SetEntryStatus(ctx, "lease-2", ledger.StatusFailed, "x", time.Now()); err != nil || !ok {
			t.Fatal(ok, err)
		}
		now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
		lease := 30 * time.Second
		a, err := s.LeaseInFlight(ctx, "a", 2, now, now.Add(lease))
		if err != nil || fmt.Sprint(jtis(a)) != "[lease-0 lease-1]" || a[1].Status != ledger.StatusSubmitted {
			t.Fatalf("a leased %v %v", jtis(a), err)
		}
		b, err := s.LeaseInFlight(ctx, "b", 10, now, now.Add(lease))
		if err != nil || fmt.Sprint(jtis(b)) != "[lease-3 lease-4]" {
			t.Fatalf("b leased %v %v", jtis(b), err)
		}
		if c, err := s.LeaseInFlight(ctx, "c", 10, now.Add(lease-time.Millisecond), now.Add(2*lease)); err != nil || len(c) != 0 {
			t.Fatalf("c leased %v %v while every lease holds", jtis(c), err)
		}
		// b releases; a died: its lease runs out.
		if err := s.ReleaseLeases(ctx, "b", now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		later := now.Add(lease)
		c, err := s.LeaseInFlight(ctx, "c", 3, later, later.Add(lease))
		// Released at now+1s before run out at now+30s, then the oldest.
		if err != nil || fmt.Sprint(jtis(c)) != "[lease-0 lease-3 lease-4]" {
			t.Fatalf("c leased %v %v", jtis(c), err)
		}
		// a, back, releases nothing of c's.
		if err := s.ReleaseLeases(ctx, "a", later); err != nil {
			t.Fatal(err)
		}
		if d, err := s.LeaseInFlight(ctx, "d", 10, later, later.Add(lease)); err != nil || fmt.Sprint(jtis(d)) != "[lease-1]" {
			t.Fatalf("d leased %v %v", jtis(d), err)
		}
	})
}

// TestLeaseInFlightConcurrently has many trackers lease at once: each entry
// goes to exactly one.
func TestLeaseInFlightConcurrently(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		ctx := ctxT(t)
		const entries, trackers = 60, 12
		claimN(t, s, entries)
		now := time.Now()
		var wg sync.WaitGroup
		got := make([][]ledger.Entry, trackers)
		errs := make([]error, trackers)
		for i := range trackers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = s.LeaseInFlight(ctx, fmt.Sprintf("tracker-%d", i), 7, now, now.Add(time.Minute))
			}()
		}
		wg.Wait()
		seen := map[string]int{}
		for i := range trackers {
			if errs[i] != nil {
				t.Fatalf("tracker %d: %v", i, errs[i])
			}
			for _, e := range got[i] {
				seen[e.TicketJTI]++
			}
		}
		for jti, n := range seen {
			if n != 1 {
				t.Fatalf("%s leased %d times", jti, n)
			}
		}
		if len(seen) != entries {
			t.Fatalf("%d entries leased, want %d", len(seen), entries)
		}
	})
}

// TestClaimPass lets one claimant run each pass of a job, whoever asks.
func TestClaimPass(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		ctx := ctxT(t)
		const claimants = 10
		var wg sync.WaitGroup
		won := make([]bool, claimants)
		errs := make([]error, claimants)
		for i := range claimants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				won[i], errs[i] = s.ClaimPass(ctx, "job", fmt.Sprint(i), 100)
			}()
		}
		wg.Wait()
		n := 0
		for i := range claimants {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if won[i] {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d claimants won pass 100", n)
		}
		for _, c := range []struct {
			job  string
			slot int64
			want bool
		}{{"job", 100, false}, {"job", 99, false}, {"job", 101, true}, {"other", 5, true}, {"job", 101, false}} {
			if got, err := s.ClaimPass(ctx, c.job, "x", c.slot); err != nil || got != c.want {
				t.Fatalf("claim %s %d: %v %v, want %v", c.job, c.slot, got, err, c.want)
			}
		}
	})
}
