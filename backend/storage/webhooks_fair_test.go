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
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// queue adds n test events to endpoint id of projectID, the first at at,
// a millisecond apart.
func queue(t *testing.T, s *storagetest.Store, projectID, id string, n int, at time.Time) {
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
func hanging(t *testing.T, s *storagetest.Store) (attacker, victim project.Project) {
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

// runs counts the runs of a lease (one per endpoint) by endpoint and by
// project, and the deliveries by endpoint.
type runs struct{ byEndpoint, byProject, deliveries map[string]int }

func newRuns() runs { return runs{map[string]int{}, map[string]int{}, map[string]int{}} }

func (r runs) add(ds []webhook.Delivery) {
	seen := map[string]bool{}
	for _, d := range ds {
		r.deliveries[d.EndpointID]++
		if !seen[d.EndpointID] {
			seen[d.EndpointID] = true
			r.byEndpoint[d.EndpointID]++
			r.byProject[d.ProjectID]++
		}
	}
}

// A lease starts a run of the victim's delivery although 480 of another
// project's are older, and holds the attacker to its shares: eight runs,
// one to each of eight endpoints, each its endpoint's oldest sixteen.
func TestWebhookLeaseIsFair(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		attacker, victim := hanging(t, s)
		now := whT0.Add(2 * time.Minute)
		share := webhook.Share{Limit: 64, PerEndpoint: 2, PerProject: 8, Run: 16}
		got, err := s.LeaseWebhookDeliveries(ctx, "o1", share, now, now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		r := newRuns()
		r.add(got)
		if r.byProject[victim.ID] != 1 || r.byProject[attacker.ID] != 8 || len(got) != 1+8*16 {
			t.Fatalf("leased %d: victim %d runs, attacker %d; want 1 and 8 of 16", len(got), r.byProject[victim.ID], r.byProject[attacker.ID])
		}
		for id, n := range r.deliveries {
			if first := fmt.Sprintf("msg_%s_000.%s", id, id); n != 16 && id != "whe_victim" || !slices.ContainsFunc(got, func(d webhook.Delivery) bool { return d.ID == first }) {
				t.Errorf("endpoint %s: %d leased, want its oldest 16", id, n)
			}
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
		if err != nil || len(again) != len(got) || !slices.ContainsFunc(again, func(d webhook.Delivery) bool { return d.ProjectID == victim.ID }) {
			t.Fatalf("after the dead lease: %d, %v; want the victim's and the attacker's %d", len(again), err, len(got)-1)
		}
	})
}

// Six instances leasing at once never exceed an endpoint's or a project's
// share of runs between them, and never lease a delivery twice.
func TestWebhookLeaseSharesAcrossInstances(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		attacker, _ := hanging(t, s)
		now := whT0.Add(2 * time.Minute)
		share := webhook.Share{Limit: 3, PerEndpoint: 2, PerProject: 20, Run: 4}
		var mu sync.Mutex
		r := newRuns()
		seen := map[string]bool{}
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				for k := range 4 {
					got, err := s.LeaseWebhookDeliveries(ctx, fmt.Sprintf("w%d.%d", w, k), share, now, now.Add(time.Minute))
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					r.add(got)
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
		for id, n := range r.byEndpoint {
			if n > 2 {
				t.Errorf("endpoint %s: %d runs, want at most 2", id, n)
			}
		}
		if r.byProject[attacker.ID] != 20 || len(r.byEndpoint) != 13 {
			t.Errorf("runs: attacker %d over %d endpoints; want its share, 20, and the victim's 1", r.byProject[attacker.ID], len(r.byEndpoint))
		}
	})
}

// BenchmarkFairLease is one lease of up to 64 runs of 16 (then released)
// among n due deliveries of 10 projects of 10 endpoints each (their
// shares allow 80 runs): what a lease costs with a backlog.
// BENCH_POSTGRES=1 for Postgres. Not run in CI:
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
			share := webhook.Share{Limit: 64, PerEndpoint: 2, PerProject: 8, Run: 16}
			for b.Loop() {
				got, err := s.LeaseWebhookDeliveries(ctx, "o", share, now, now.Add(time.Minute))
				if err != nil || len(got) != 64*min(16, n/100) {
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
