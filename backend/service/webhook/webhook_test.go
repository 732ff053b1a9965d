package webhook_test

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/seal"
	service "github.com/reclaim-sol/reclaim/backend/service/webhook"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// resolver answers names from a table, as DNS would.
type resolver map[string][]string

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := r[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	out := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		out[i] = netip.MustParseAddr(a)
	}
	return out, nil
}

var names = resolver{
	"hooks.example.com":    {"93.184.216.34"},
	"internal.example.com": {"93.184.216.34", "10.0.0.7"},
	"localhost":            {"127.0.0.1", "::1"},
	"rebind.example.com":   {"169.254.169.254"},
}

func newBox(t testing.TB) *seal.Box {
	b, err := seal.New([]byte(strings.Repeat("k", seal.KeySize)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newService(t testing.TB, s *storagetest.Store, now func() time.Time) *service.Service {
	return service.NewService(s, s, service.Options{Box: newBox(t), Resolver: names, Now: now})
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestAddChecksTheURLAndItsAddresses(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, _ := s.CreateProject(ctx, project.Project{Name: "p"})
		svc := newService(t, s, time.Now)
		for _, c := range []struct{ url, why string }{
			{"https://localhost/hook", "private or reserved address (127.0.0.1)"},
			{"https://internal.example.com/hook", "private or reserved address (10.0.0.7)"},
			{"https://rebind.example.com/hook", "169.254.169.254"},
			{"https://127.0.0.1/hook", "private or reserved"},
			{"https://[::1]/hook", "private or reserved"},
			{"https://169.254.169.254/latest/meta-data", "private or reserved"},
			{"https://nowhere.example.com/hook", "does not resolve"},
			{"http://hooks.example.com/hook", "must use https"},
		} {
			_, _, err := svc.Add(ctx, p.ID, c.url, nil)
			if f, ok := fault.As(err, fault.KindInvalid); !ok || f.Param() != "url" || !strings.Contains(err.Error(), c.why) {
				t.Errorf("%s: %v, want %q", c.url, err, c.why)
			}
		}
		if _, _, err := svc.Add(ctx, p.ID, "https://hooks.example.com/x", []string{"submission.confirmed", "charge.succeeded"}); err == nil || !strings.Contains(err.Error(), `"charge.succeeded"`) {
			t.Errorf("unknown type: %v", err)
		}
		e, secret, err := svc.Add(ctx, p.ID, "https://hooks.example.com/x", []string{"submission.failed", " submission.confirmed", "submission.failed"})
		if err != nil || !strings.HasPrefix(secret, webhook.SecretPrefix) || strings.Join(e.Events, ",") != "submission.confirmed,submission.failed" {
			t.Fatalf("add: %+v %q %v", e, secret, err)
		}
		if strings.Contains(string(e.Secret), secret[6:]) {
			t.Fatal("the secret is stored as it is")
		}
		all, _, err := svc.Add(ctx, p.ID, "https://hooks.example.com/y", webhook.Defaults)
		if err != nil || all.Events != nil {
			t.Fatalf("every default type: %+v, %v", all.Events, err)
		}
		// submission.landed is opt-in: an endpoint that names it keeps its
		// list, and one that names none does not get it.
		landed, _, err := svc.Add(ctx, p.ID, "https://hooks.example.com/z", webhook.Types)
		if err != nil || !slices.Equal(landed.Events, webhook.Types) || !landed.Wants(webhook.TypeSubmissionLanded) || all.Wants(webhook.TypeSubmissionLanded) {
			t.Fatalf("every type with submission.landed: %+v, %v", landed.Events, err)
		}
		got, err := svc.Secrets(e, time.Now())
		if err != nil || len(got) != 1 || got[0] != secret {
			t.Fatalf("secrets %v %v", got, err)
		}
		// Insecure: http and private addresses, for local development.
		dev := service.NewService(s, s, service.Options{Box: newBox(t), Resolver: names, Insecure: true})
		if _, _, err := dev.Add(ctx, p.ID, "http://localhost:9000/hook", nil); err != nil {
			t.Fatalf("insecure: %v", err)
		}
	})
}

func TestRotateSecretSignsWithBoth(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, _ := s.CreateProject(ctx, project.Project{Name: "p"})
		now := time.Date(2026, 5, 21, 10, 0, 0, 0, time.UTC)
		svc := newService(t, s, func() time.Time { return now })
		e, old, err := svc.Add(ctx, p.ID, "https://hooks.example.com/x", nil)
		if err != nil {
			t.Fatal(err)
		}
		r, next, err := svc.RotateSecret(ctx, p.ID, e.ID)
		if err != nil || next == old {
			t.Fatal(err)
		}
		got, _ := svc.Secrets(r, now.Add(webhook.RotationOverlap-time.Second))
		if len(got) != 2 || got[0] != next || got[1] != old {
			t.Fatalf("within the overlap: %d secrets", len(got))
		}
		if got, _ := svc.Secrets(r, now.Add(webhook.RotationOverlap)); len(got) != 1 || got[0] != next {
			t.Fatalf("after the overlap: %d secrets", len(got))
		}
		// A secret sealed for one endpoint does not open for another.
		moved := r
		moved.ID = "whe_other"
		if _, err := svc.Secrets(moved, now); err == nil {
			t.Fatal("a secret moved to another endpoint opens")
		}
	})
}

func TestSendTestAndRedeliverStayInTheProject(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		a, _ := s.CreateProject(ctx, project.Project{Name: "a"})
		b, _ := s.CreateProject(ctx, project.Project{Name: "b"})
		svc := newService(t, s, time.Now)
		eb, _, err := svc.Add(ctx, b.ID, "https://hooks.example.com/b", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SendTest(ctx, a.ID, eb.ID); !errors.Is(err, webhook.ErrNotFound) {
			t.Errorf("test to another project's endpoint: %v", err)
		}
		if _, err := svc.Deliveries(ctx, a.ID, eb.ID, 10); !errors.Is(err, webhook.ErrNotFound) {
			t.Errorf("another project's deliveries: %v", err)
		}
		d, err := svc.SendTest(ctx, b.ID, eb.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Redeliver(ctx, a.ID, eb.ID, d.EventID+"."+eb.ID); !errors.Is(err, webhook.ErrDeliveryNotFound) {
			t.Errorf("redeliver from another project: %v", err)
		}
		list, err := svc.Deliveries(ctx, b.ID, eb.ID, 10)
		if err != nil || len(list) != 1 || list[0].Type != webhook.TypeTest {
			t.Fatalf("deliveries %+v %v", list, err)
		}
		if err := svc.Redeliver(ctx, b.ID, eb.ID, list[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Remove(ctx, a.ID, eb.ID); !errors.Is(err, webhook.ErrNotFound) {
			t.Errorf("remove another project's endpoint: %v", err)
		}
	})
}

// Test events and redeliveries share one bucket per endpoint: five at
// once, then one every 12 s; a refusal says when to retry and is a
// conflict for faces that map faults. Another project naming the endpoint
// spends nothing of it.
func TestManualSendsThrottledPerEndpoint(t *testing.T) {
	t.Parallel()
	s := storagetest.SQLite(t)
	ctx := ctxT(t)
	a, _ := s.CreateProject(ctx, project.Project{Name: "a"})
	b, _ := s.CreateProject(ctx, project.Project{Name: "b"})
	clk := clocktest.New(time.Date(2026, 5, 21, 10, 0, 0, 0, time.UTC))
	svc := newService(t, s, clk.Now)
	ep, _, err := svc.Add(ctx, a.ID, "https://hooks.example.com/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := svc.Redeliver(ctx, b.ID, ep.ID, "nope"); !errors.Is(err, webhook.ErrDeliveryNotFound) {
			t.Fatalf("another project's redelivery: %v", err)
		}
	}
	var first webhook.Delivery
	for i := range webhook.ManualBurst {
		d, err := svc.SendTest(ctx, a.ID, ep.ID)
		if err != nil {
			t.Fatalf("test event %d: %v", i+1, err)
		}
		if i == 0 {
			first = d
		}
	}
	_, err = svc.SendTest(ctx, a.ID, ep.ID)
	var throttled *webhook.ThrottledError
	if !errors.As(err, &throttled) || throttled.RetryAfter != webhook.ManualEvery {
		t.Fatalf("test event %d: %v, want throttled for %s", webhook.ManualBurst+1, err, webhook.ManualEvery)
	}
	if f, ok := fault.As(err, fault.KindConflict); !ok || !strings.Contains(f.Error(), "try again in 12 s") {
		t.Fatalf("as a fault: %v", f)
	}
	id := first.EventID + "." + ep.ID
	if err := svc.Redeliver(ctx, a.ID, ep.ID, id); !errors.As(err, &throttled) {
		t.Fatalf("redelivery over the throttle: %v", err)
	}
	clk.Set(clk.Now().Add(webhook.ManualEvery))
	if err := svc.Redeliver(ctx, a.ID, ep.ID, id); err != nil {
		t.Fatalf("redelivery 12 s later: %v", err)
	}
}
