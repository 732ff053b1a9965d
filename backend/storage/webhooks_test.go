package storage_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

var whT0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func addEndpoint(t *testing.T, s *storagetest.Store, projectID, id string, events ...string) webhook.Endpoint {
	t.Helper()
	e := webhook.Endpoint{
		ID: id, ProjectID: projectID, URL: "https://hooks.example.com/" + id, Events: events,
		Secret: []byte("sealed-" + id), CreatedAt: whT0,
	}
	if err := s.CreateWebhookEndpoint(ctxT(t), e); err != nil {
		t.Fatal(err)
	}
	return e
}

// settleOne claims jti in p, submits it and settles it with status.
func settleOne(t *testing.T, s *storagetest.Store, projectID, jti string, status ledger.Status, at time.Time) {
	t.Helper()
	ctx := ctxT(t)
	if err := s.ClaimTicket(ctx, claimEntry(projectID, jti)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkSubmitted(ctx, jti); err != nil {
		t.Fatal(err)
	}
	var ok bool
	var err error
	if status == ledger.StatusConfirmed {
		ok, err = s.ConfirmEntry(ctx, jti, ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5000}, 0, at)
	} else {
		ok, err = s.SetEntryStatus(ctx, jti, status, "InstructionError", at)
	}
	if err != nil || !ok {
		t.Fatalf("settle %s: %v %v", jti, ok, err)
	}
}

func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		a, _ := s.CreateProject(ctx, project.Project{Name: "a"})
		b, _ := s.CreateProject(ctx, project.Project{Name: "b"})
		e1 := addEndpoint(t, s, a.ID, "whe_1", webhook.TypeSubmissionConfirmed, webhook.TypeSubmissionFailed)
		addEndpoint(t, s, a.ID, "whe_2")
		addEndpoint(t, s, b.ID, "whe_3")
		list, err := s.WebhookEndpoints(ctx, a.ID)
		if err != nil || len(list) != 2 || list[0].ID != "whe_1" || fmt.Sprint(list[0].Events) != fmt.Sprint(e1.Events) ||
			list[1].Events != nil || string(list[0].Secret) != "sealed-whe_1" || !list[0].CreatedAt.Equal(whT0) {
			t.Fatalf("endpoints of a: %+v, %v", list, err)
		}
		// Another project's endpoint is not found, whatever it is asked.
		if _, err := s.WebhookEndpoint(ctx, a.ID, "whe_3"); !errors.Is(err, webhook.ErrNotFound) {
			t.Errorf("another project's endpoint: %v", err)
		}
		if _, err := s.DeleteWebhookEndpoint(ctx, a.ID, "whe_3"); !errors.Is(err, webhook.ErrNotFound) {
			t.Errorf("delete another project's endpoint: %v", err)
		}
		if _, err := s.RotateWebhookSecret(ctx, a.ID, "whe_3", []byte("x"), whT0); !errors.Is(err, webhook.ErrNotFound) {
			t.Errorf("rotate another project's endpoint: %v", err)
		}
		if err := s.RedeliverWebhook(ctx, a.ID, "whe_3", "msg_x.whe_3", whT0); !errors.Is(err, webhook.ErrDeliveryNotFound) {
			t.Errorf("redeliver to another project's endpoint: %v", err)
		}
		if _, err := s.EnableWebhookEndpoint(ctx, a.ID, "whe_3", whT0); !errors.Is(err, webhook.ErrNotFound) {
			t.Errorf("enable another project's endpoint: %v", err)
		}
		// Rotation keeps the replaced secret beside the new one.
		until := whT0.Add(webhook.RotationOverlap)
		r, err := s.RotateWebhookSecret(ctx, a.ID, "whe_1", []byte("sealed-next"), until)
		if err != nil || string(r.Secret) != "sealed-next" || string(r.PreviousSecret) != "sealed-whe_1" || !r.PreviousUntil.Equal(until) {
			t.Fatalf("rotated: %+v, %v", r, err)
		}
		gone, err := s.DeleteWebhookEndpoint(ctx, a.ID, "whe_1")
		if err != nil || gone.ID != "whe_1" {
			t.Fatalf("delete: %+v %v", gone, err)
		}
		if _, err := s.WebhookEndpoint(ctx, a.ID, "whe_1"); !errors.Is(err, webhook.ErrNotFound) {
			t.Errorf("deleted endpoint: %v", err)
		}
		if err := s.CreateWebhookEndpoint(ctx, webhook.Endpoint{ID: "whe_x", ProjectID: "prj_nope", URL: "https://x", Secret: []byte("s"), CreatedAt: whT0}); !errors.Is(err, project.ErrNotFound) {
			t.Errorf("unknown project: %v", err)
		}
		for i := 1; i < webhook.MaxEndpoints; i++ {
			addEndpoint(t, s, b.ID, fmt.Sprintf("whe_b%d", i))
		}
		err = s.CreateWebhookEndpoint(ctx, webhook.Endpoint{ID: "whe_over", ProjectID: b.ID, URL: "https://x", Secret: []byte("s"), CreatedAt: whT0})
		if !errors.Is(err, webhook.ErrTooMany) {
			t.Errorf("endpoint %d: %v", webhook.MaxEndpoints+1, err)
		}
	})
}

// TestSettleWritesTheOutbox: a status change writes its event, in its
// transaction, to every enabled endpoint of its project that wants the
// type, once; the payload carries the entry's fields.
func TestSettleWritesTheOutbox(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		notes := 0
		s = storagetest.Notified(s, func() { notes++ })
		a, _ := s.CreateProject(ctx, project.Project{Name: "a"})
		b, _ := s.CreateProject(ctx, project.Project{Name: "b"})
		addEndpoint(t, s, a.ID, "whe_all")
		addEndpoint(t, s, a.ID, "whe_failed", webhook.TypeSubmissionFailed)
		addEndpoint(t, s, b.ID, "whe_other")
		settleOne(t, s, a.ID, "c1", ledger.StatusConfirmed, whT0)
		settleOne(t, s, a.ID, "f1", ledger.StatusFailed, whT0.Add(time.Second))
		settleOne(t, s, a.ID, "e1", ledger.StatusExpired, whT0.Add(2*time.Second))
		// Settling again changes nothing and writes nothing.
		if ok, err := s.ConfirmEntry(ctx, "c1", ledger.Figures{}, 0, whT0); ok || err != nil {
			t.Fatalf("confirm again: %v %v", ok, err)
		}
		all, err := s.WebhookDeliveries(ctx, a.ID, "whe_all", 10)
		if err != nil || len(all) != 3 {
			t.Fatalf("whe_all: %d deliveries, %v", len(all), err)
		}
		failed, _ := s.WebhookDeliveries(ctx, a.ID, "whe_failed", 10)
		other, _ := s.WebhookDeliveries(ctx, b.ID, "whe_other", 10)
		if len(failed) != 1 || failed[0].Type != webhook.TypeSubmissionFailed || len(other) != 0 {
			t.Fatalf("whe_failed %+v, other project %+v", failed, other)
		}
		if notes != 3 {
			t.Errorf("notified %d times, want 3", notes)
		}
		c := all[2] // newest first
		if c.Type != webhook.TypeSubmissionConfirmed || c.State != webhook.StatePending || c.Attempts != 0 ||
			c.Wallet != "Payer1111111111111111111111111111111111111" || c.Signature != "sig-c1" || !c.NextAttemptAt.Equal(whT0) {
			t.Fatalf("confirmed delivery %+v", c)
		}
		if failed[0].EventID != all[1].EventID {
			t.Errorf("one event, two endpoints: ids %s and %s", failed[0].EventID, all[1].EventID)
		}
		var ev struct {
			Type, Timestamp string
			Data            map[string]any
		}
		if err := json.Unmarshal(c.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		landed, _ := ev.Data["landed"].(map[string]any)
		if ev.Type != "submission.confirmed" || ev.Timestamp != "2026-11-21T12:00:00.000Z" || ev.Data["signature"] != "sig-c1" ||
			ev.Data["projectId"] != a.ID || landed["netRebate"] != float64(2_034_280) {
			t.Errorf("payload %s", c.Payload)
		}
	})
}

// TestWebhookLeases: due deliveries are leased to one instance at a time,
// concurrently too; an attempt is recorded only under its lease.
func TestWebhookLeases(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, _ := s.CreateProject(ctx, project.Project{Name: "p"})
		addEndpoint(t, s, p.ID, "whe_1")
		const n = 30
		for i := range n {
			settleOne(t, s, p.ID, fmt.Sprintf("t%02d", i), ledger.StatusConfirmed, whT0.Add(time.Duration(i)*time.Millisecond))
		}
		now := whT0.Add(time.Minute)
		if due, err := s.WebhooksDue(ctx, whT0.Add(-time.Second)); err != nil || due {
			t.Fatalf("due before their time: %v %v", due, err)
		}
		if due, err := s.WebhooksDue(ctx, now); err != nil || !due {
			t.Fatalf("not due: %v %v", due, err)
		}
		var mu sync.Mutex
		seen := map[string]string{}
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				owner := fmt.Sprintf("w%d", w)
				got, err := s.LeaseWebhookDeliveries(ctx, owner, wide(8), now, now.Add(time.Minute))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, d := range got {
					if prev, ok := seen[d.ID]; ok {
						t.Errorf("%s leased to %s and %s", d.ID, prev, owner)
					}
					seen[d.ID] = owner
				}
			})
		}
		wg.Wait()
		if len(seen) != n {
			t.Fatalf("leased %d of %d", len(seen), n)
		}
		if due, _ := s.WebhooksDue(ctx, now); due {
			t.Fatal("leased deliveries are due")
		}
		// An attempt by another owner is not recorded.
		list, _ := s.WebhookDeliveries(ctx, p.ID, "whe_1", 1)
		d := list[0]
		d.State, d.Attempts, d.Last = webhook.StateDelivered, 1, webhook.Attempt{At: now, Status: 200}
		if _, err := s.RecordWebhookAttempt(ctx, "intruder", d, time.Hour); !errors.Is(err, storage.ErrLeaseLost) {
			t.Fatalf("recorded under another's lease: %v", err)
		}
		delivered := now
		d.DeliveredAt = &delivered
		if _, err := s.RecordWebhookAttempt(ctx, seen[d.ID], d, time.Hour); err != nil {
			t.Fatal(err)
		}
		// The others are released, due again.
		for id, owner := range seen {
			if id != d.ID {
				if err := s.ReleaseWebhookLeases(ctx, owner, []string{id}, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		again, err := s.LeaseWebhookDeliveries(ctx, "w9", wide(100), now, now.Add(time.Minute))
		if err != nil || len(again) != n-1 {
			t.Fatalf("after release: %d, %v", len(again), err)
		}
		for i := 1; i < len(again); i++ {
			if again[i].CreatedAt.Before(again[i-1].CreatedAt) {
				t.Fatal("not oldest first")
			}
		}
		got, _ := s.WebhookDeliveries(ctx, p.ID, "whe_1", 100)
		for _, x := range got {
			if x.ID == d.ID && (x.State != webhook.StateDelivered || x.DeliveredAt == nil || x.Last.Status != 200) {
				t.Errorf("recorded: %+v", x)
			}
		}
	})
}

// TestWebhookFailuresDisable: failures in a row, once many and long enough,
// disable the endpoint and park its pending deliveries; a success clears
// the run; enabling unparks them.
func TestWebhookFailuresDisable(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, _ := s.CreateProject(ctx, project.Project{Name: "p"})
		addEndpoint(t, s, p.ID, "whe_1")
		settleOne(t, s, p.ID, "a", ledger.StatusConfirmed, whT0)
		settleOne(t, s, p.ID, "b", ledger.StatusConfirmed, whT0)
		after := 5 * 24 * time.Hour
		fail := func(at time.Time, status int) bool {
			t.Helper()
			ds, err := s.LeaseWebhookDeliveries(ctx, "o", wide(1), at, at.Add(time.Minute))
			if err != nil || len(ds) != 1 {
				t.Fatalf("lease at %s: %d, %v", at, len(ds), err)
			}
			d := ds[0]
			d.Attempts++
			d.Last = webhook.Attempt{At: at, Status: status, Error: fmt.Sprintf("HTTP %d", status)}
			d.State, d.NextAttemptAt = webhook.StatePending, at
			if status == 200 {
				d.Last.Error, d.State = "", webhook.StateDelivered
			}
			disabled, err := s.RecordWebhookAttempt(ctx, "o", d, after)
			if err != nil {
				t.Fatal(err)
			}
			return disabled
		}
		at := whT0
		for i := range webhook.DisableFailures - 1 {
			if fail(at, 500) {
				t.Fatalf("disabled after %d failures", i+1)
			}
			at = at.Add(time.Hour)
		}
		e, _ := s.WebhookEndpoint(ctx, p.ID, "whe_1")
		if e.Failures != webhook.DisableFailures-1 || e.FailingSince == nil || !e.FailingSince.Equal(whT0) {
			t.Fatalf("endpoint %+v", e)
		}
		at = whT0.Add(after)
		if !fail(at, 503) {
			t.Fatal("not disabled")
		}
		e, _ = s.WebhookEndpoint(ctx, p.ID, "whe_1")
		if e.DisabledAt == nil || e.DisabledReason == "" {
			t.Fatalf("endpoint %+v", e)
		}
		if due, _ := s.WebhooksDue(ctx, at.Add(365*24*time.Hour)); due {
			t.Fatal("a disabled endpoint's deliveries are due")
		}
		// A status change while disabled writes nothing for it.
		settleOne(t, s, p.ID, "c", ledger.StatusConfirmed, at)
		if ds, _ := s.WebhookDeliveries(ctx, p.ID, "whe_1", 10); len(ds) != 2 {
			t.Fatalf("%d deliveries for a disabled endpoint", len(ds))
		}
		ok, err := s.EnableWebhookEndpoint(ctx, p.ID, "whe_1", at)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if ok, _ := s.EnableWebhookEndpoint(ctx, p.ID, "whe_1", at); ok {
			t.Error("enabled twice")
		}
		if due, _ := s.WebhooksDue(ctx, at); !due {
			t.Fatal("enabled: nothing due")
		}
		if fail(at, 200) {
			t.Fatal("a success disables")
		}
		e, _ = s.WebhookEndpoint(ctx, p.ID, "whe_1")
		if e.DisabledAt != nil || e.Failures != 0 || e.FailingSince != nil {
			t.Fatalf("endpoint after a success %+v", e)
		}
	})
}

func TestRedeliverAndPruneWebhooks(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, _ := s.CreateProject(ctx, project.Project{Name: "p"})
		addEndpoint(t, s, p.ID, "whe_1")
		test := webhook.Delivery{EventID: "msg_test", EndpointID: "whe_1", ProjectID: p.ID, Type: webhook.TypeTest,
			Payload: webhook.TestEvent(p.ID, "whe_1", whT0), CreatedAt: whT0}
		if err := s.EnqueueWebhook(ctx, test); err != nil {
			t.Fatal(err)
		}
		ds, _ := s.LeaseWebhookDeliveries(ctx, "o", wide(10), whT0, whT0.Add(time.Minute))
		if len(ds) != 1 || ds[0].Type != webhook.TypeTest {
			t.Fatalf("leased %+v", ds)
		}
		id := ds[0].ID
		if err := s.RedeliverWebhook(ctx, p.ID, "whe_1", id, whT0.Add(time.Second)); err == nil {
			t.Fatal("redelivered while an attempt is under way")
		} else if _, ok := fault.As(err, fault.KindConflict); !ok {
			t.Fatalf("redeliver while leased: %v, want a conflict", err)
		}
		d := ds[0]
		d.State, d.Attempts, d.Last = webhook.StateFailed, 1, webhook.Attempt{At: whT0, Status: 500, Error: "HTTP 500"}
		if _, err := s.RecordWebhookAttempt(ctx, "o", d, time.Hour); err != nil {
			t.Fatal(err)
		}
		later := whT0.Add(time.Hour)
		if err := s.RedeliverWebhook(ctx, p.ID, "whe_1", id, later); err != nil {
			t.Fatal(err)
		}
		ds, _ = s.LeaseWebhookDeliveries(ctx, "o", wide(10), later, later.Add(time.Minute))
		if len(ds) != 1 || ds[0].State != webhook.StatePending || ds[0].Attempts != 1 {
			t.Fatalf("redelivered: %+v", ds)
		}
		d = ds[0]
		d.State, d.Attempts, d.Last = webhook.StateDelivered, 2, webhook.Attempt{At: later, Status: 204}
		if _, err := s.RecordWebhookAttempt(ctx, "o", d, time.Hour); err != nil {
			t.Fatal(err)
		}
		// A pending delivery is never pruned; a done one once old enough.
		settleOne(t, s, p.ID, "x", ledger.StatusExpired, whT0)
		n, err := s.PruneWebhookDeliveries(ctx, whT0, 10)
		if err != nil || n != 0 {
			t.Fatalf("pruned %d, %v", n, err)
		}
		n, err = s.PruneWebhookDeliveries(ctx, later, 10)
		if err != nil || n != 1 {
			t.Fatalf("pruned %d, %v", n, err)
		}
		left, _ := s.WebhookDeliveries(ctx, p.ID, "whe_1", 10)
		if len(left) != 1 || left[0].Type != webhook.TypeSubmissionExpired {
			t.Fatalf("left %+v", left)
		}
		// Removing the endpoint removes its deliveries.
		if _, err := s.DeleteWebhookEndpoint(ctx, p.ID, "whe_1"); err != nil {
			t.Fatal(err)
		}
		if due, _ := s.WebhooksDue(ctx, later.Add(time.Hour)); due {
			t.Error("a removed endpoint's delivery is due")
		}
	})
}

// wide is a lease of up to n deliveries of each endpoint that no share
// bounds.
func wide(n int) webhook.Share {
	return webhook.Share{Limit: 1 << 20, PerEndpoint: 1 << 20, PerProject: 1 << 20, Run: n}
}
