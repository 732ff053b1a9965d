package storage_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// queue adds n test events to endpoint id of projectID, the first at at,
// a millisecond apart.
func queue(t *testing.T, s *storage.Store, projectID, id string, n int, at time.Time) {
	t.Helper()
	for i := range n {
		d := webhook.Delivery{
			EventID: fmt.Sprintf("msg_%s_%03d", id, i), EndpointID: id, ProjectID: projectID, Type: webhook.TypeTest,
			Payload: []byte(`{}`), State: webhook.StatePending, CreatedAt: at.Add(time.Duration(i) * time.Millisecond),
		}
		if err := s.EnqueueWebhook(ctxT(t), d); err != nil {
			t.Fatal(err)
		}
	}
}

// hanging is an attacker's project with 12 endpoints and 40 deliveries
// queued to each (480), all older than the victim's one delivery.
func hanging(t *testing.T, s *storage.Store) (attacker, victim project.Project) {
	t.Helper()
	ctx := ctxT(t)
	attacker, _ = s.CreateProject(ctx, project.Project{Name: "attacker"})
	victim, _ = s.CreateProject(ctx, project.Project{Name: "victim"})
	for e := range 12 {
		id := fmt.Sprintf("whe_a%02d", e)
		addEndpoint(t, s, attacker.ID, id)
		queue(t, s, attacker.ID, id, 40, whT0)
	}
	addEndpoint(t, s, victim.ID, "whe_victim")
	queue(t, s, victim.ID, "whe_victim", 1, whT0.Add(time.Minute))
	return attacker, victim
}

// inFlight counts leases by endpoint and by project.
func inFlight(ds []webhook.Delivery, byEndpoint, byProject map[string]int) {
	for _, d := range ds {
		byEndpoint[d.EndpointID]++
		byProject[d.ProjectID]++
	}
}

// A lease takes the victim's delivery first although 480 of another
// project's are older, and holds the attacker to its shares: two per
// endpoint, eight per project, spread over its endpoints.
func TestWebhookLeaseIsFair(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storage.Store) {
		t.Parallel()
		ctx := ctxT(t)
		attacker, victim := hanging(t, s)
		now := whT0.Add(2 * time.Minute)
		share := webhook.Share{Limit: 64, PerEndpoint: 2, PerProject: 8}
		got, err := s.LeaseWebhookDeliveries(ctx, "o1", share, now, now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		byEndpoint, byProject := map[string]int{}, map[string]int{}
		inFlight(got, byEndpoint, byProject)
		if byProject[victim.ID] != 1 || byProject[attacker.ID] != 8 || len(got) != 9 {
			t.Fatalf("leased %d: victim %d, attacker %d; want 1 and 8", len(got), byProject[victim.ID], byProject[attacker.ID])
		}
		if len(byEndpoint) != 9 {
			t.Errorf("the attacker's 8 went to %d endpoints, want one each to 8", len(byEndpoint)-1)
		}
		// While those leases live, a second lease takes nothing: every
		// share is full.
		if more, err := s.LeaseWebhookDeliveries(ctx, "o2", share, now.Add(time.Second), now.Add(time.Minute)); err != nil || len(more) != 0 {
			t.Fatalf("second lease: %d, %v; want none", len(more), err)
		}
		// An instance that died: once its leases end, another takes the
		// same shares, the victim's delivery among them.
		after := now.Add(time.Minute)
		again, err := s.LeaseWebhookDeliveries(ctx, "o3", share, after, after.Add(time.Minute))
		if err != nil || len(again) != 9 || !slices.ContainsFunc(again, func(d webhook.Delivery) bool { return d.ProjectID == victim.ID }) {
			t.Fatalf("after the dead lease: %d, %v; want the victim's and the attacker's 8", len(again), err)
		}
	})
}

// Six instances leasing at once never exceed an endpoint's or a project's
// share between them, and never lease a delivery twice.
func TestWebhookLeaseSharesAcrossInstances(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storage.Store) {
		t.Parallel()
		ctx := ctxT(t)
		attacker, _ := hanging(t, s)
		now := whT0.Add(2 * time.Minute)
		share := webhook.Share{Limit: 3, PerEndpoint: 2, PerProject: 20}
		var mu sync.Mutex
		byEndpoint, byProject := map[string]int{}, map[string]int{}
		seen := map[string]bool{}
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				for range 4 {
					got, err := s.LeaseWebhookDeliveries(ctx, fmt.Sprint("w", w), share, now, now.Add(time.Minute))
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					inFlight(got, byEndpoint, byProject)
					for _, d := range got {
						if seen[d.ID] {
							t.Errorf("%s leased twice", d.ID)
						}
						seen[d.ID] = true
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		for id, n := range byEndpoint {
			if n > 2 {
				t.Errorf("endpoint %s: %d in flight, want at most 2", id, n)
			}
		}
		if byProject[attacker.ID] != 20 || byProject[attacker.ID]+1 != len(seen) {
			t.Errorf("in flight: attacker %d of %d leased; want the attacker's share, 20, and the victim's 1", byProject[attacker.ID], len(seen))
		}
	})
}

// BenchmarkFairLease is one lease of 64 (then released) among n due
// deliveries of 10 projects of 10 endpoints each: what a worker's lease
// costs with a backlog. BENCH_POSTGRES=1 for Postgres. Not run in CI:
//
//	go test ./backend/storage -run '^$' -bench FairLease -benchtime 200x
func BenchmarkFairLease(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := storagetest.SQLite(b)
			if os.Getenv("BENCH_POSTGRES") == "1" {
				s = storagetest.Postgres(b)
			}
			ctx := context.Background()
			var endpoints [][2]string
			for p := range 10 {
				proj, err := s.CreateProject(ctx, project.Project{Name: fmt.Sprint("p", p)})
				if err != nil {
					b.Fatal(err)
				}
				for e := range 10 {
					id := fmt.Sprintf("whe_%d_%d", p, e)
					if err := s.CreateWebhookEndpoint(ctx, webhook.Endpoint{ID: id, ProjectID: proj.ID, URL: "https://h.example/" + id, Secret: []byte("x"), CreatedAt: whT0}); err != nil {
						b.Fatal(err)
					}
					endpoints = append(endpoints, [2]string{proj.ID, id})
				}
			}
			for i := range n {
				ep := endpoints[i%len(endpoints)]
				d := webhook.Delivery{EventID: fmt.Sprint("msg_", i), EndpointID: ep[1], ProjectID: ep[0], Type: webhook.TypeTest,
					Payload: []byte(`{}`), State: webhook.StatePending, CreatedAt: whT0.Add(time.Duration(i) * time.Millisecond)}
				if err := s.EnqueueWebhook(ctx, d); err != nil {
					b.Fatal(err)
				}
			}
			now := whT0.Add(time.Hour)
			share := webhook.Share{Limit: 64, PerEndpoint: 2, PerProject: 8}
			for b.Loop() {
				got, err := s.LeaseWebhookDeliveries(ctx, "o", share, now, now.Add(time.Minute))
				if err != nil || len(got) != 64 {
					b.Fatal(len(got), err)
				}
				b.StopTimer()
				ids := make([]string, len(got))
				for i, d := range got {
					ids[i] = d.ID
				}
				if err := s.ReleaseWebhookLeases(ctx, "o", ids, now); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
