package owner_test

import (
	"context"
	"errors"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// fakeWebhooks records the calls that reach the webhooks service.
type fakeWebhooks struct {
	calls []string
	err   error
}

var hookEndpoint = webhook.Endpoint{ID: "whe_1", ProjectID: "prj_1", URL: "https://hooks.example/x?token=s3cr3t"}

func (f *fakeWebhooks) Add(_ context.Context, projectID, url string, _ []string) (webhook.Endpoint, string, error) {
	f.calls = append(f.calls, "add "+projectID+" "+url)
	return hookEndpoint, "whsec_x", f.err
}

func (f *fakeWebhooks) Remove(_ context.Context, projectID, id string) (webhook.Endpoint, error) {
	f.calls = append(f.calls, "remove "+projectID+" "+id)
	return hookEndpoint, f.err
}

func (f *fakeWebhooks) RotateSecret(_ context.Context, projectID, id string) (webhook.Endpoint, string, error) {
	f.calls = append(f.calls, "rotate "+projectID+" "+id)
	return hookEndpoint, "whsec_y", f.err
}

func (f *fakeWebhooks) Enable(_ context.Context, projectID, id string) (bool, error) {
	f.calls = append(f.calls, "enable "+projectID+" "+id)
	return f.err == nil, f.err
}

func (f *fakeWebhooks) Endpoint(_ context.Context, _, _ string) (webhook.Endpoint, error) {
	return hookEndpoint, f.err
}

func (f *fakeWebhooks) SendTest(_ context.Context, projectID, id string) (webhook.Delivery, error) {
	f.calls = append(f.calls, "test "+projectID+" "+id)
	return webhook.Delivery{}, f.err
}

func (f *fakeWebhooks) Redeliver(_ context.Context, projectID, endpointID, deliveryID string) error {
	f.calls = append(f.calls, "redeliver "+projectID+" "+endpointID+" "+deliveryID)
	return f.err
}

// Webhook changes reach the webhooks service for the actor's project only,
// owners only; state changes are audited with the URL as the console shows
// it (no query); a refused change records nothing.
func TestWebhookChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, hooks := newFakeStore(), &fakeWebhooks{}
	s := owner.NewService(store, &fakeProjects{}, owner.Options{Passwords: cheap, Webhooks: hooks})
	o := owner.Owner{ID: "own_1", Email: "alice@example.com"}
	a := owner.Actor{Owner: o, Project: project.Project{ID: "prj_1"}, Role: owner.RoleOwner}
	changes := []struct {
		name string
		do   func(a owner.Actor) error
	}{
		{"add", func(a owner.Actor) error {
			_, _, err := s.AddWebhook(ctx, a, "https://hooks.example/x", nil)
			return err
		}},
		{"rotate", func(a owner.Actor) error { _, _, err := s.RotateWebhookSecret(ctx, a, "whe_1"); return err }},
		{"enable", func(a owner.Actor) error { return s.EnableWebhook(ctx, a, "whe_1") }},
		{"test", func(a owner.Actor) error { return s.SendTestWebhook(ctx, a, "whe_1") }},
		{"redeliver", func(a owner.Actor) error { return s.RedeliverWebhook(ctx, a, "whe_1", "msg_1.whe_1") }},
		{"remove", func(a owner.Actor) error { return s.RemoveWebhook(ctx, a, "whe_1") }},
	}
	viewer := a
	viewer.Role = owner.RoleViewer
	for _, c := range changes {
		if err := c.do(viewer); !errors.Is(err, owner.ErrForbidden) {
			t.Errorf("a viewer's %s: %v, want ErrForbidden", c.name, err)
		}
	}
	if len(hooks.calls) != 0 || len(store.audit) != 0 {
		t.Fatalf("a viewer reached %v, recorded %v", hooks.calls, store.audit)
	}
	for _, c := range changes {
		if err := c.do(a); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	want := []string{"add prj_1 https://hooks.example/x", "rotate prj_1 whe_1", "enable prj_1 whe_1", "test prj_1 whe_1",
		"redeliver prj_1 whe_1 msg_1.whe_1", "remove prj_1 whe_1"}
	if len(hooks.calls) != len(want) {
		t.Fatalf("calls %v", hooks.calls)
	}
	for i := range want {
		if hooks.calls[i] != want[i] {
			t.Errorf("call %d: %q, want %q", i, hooks.calls[i], want[i])
		}
	}
	actions := []owner.Action{owner.ActionWebhookAdded, owner.ActionWebhookRotated, owner.ActionWebhookEnabled, owner.ActionWebhookRemoved}
	if len(store.audit) != len(actions) {
		t.Fatalf("audited %+v", store.audit)
	}
	for i, e := range store.audit {
		if e.Action != actions[i] || e.Webhook != (owner.AuditWebhook{ID: "whe_1", URL: "https://hooks.example/x?…"}) || e.OwnerID != o.ID {
			t.Errorf("audit %d: %+v", i, e)
		}
	}
	hooks.err = webhook.ErrNotFound
	store.audit = nil
	if err := s.RemoveWebhook(ctx, a, "whe_9"); !errors.Is(err, webhook.ErrNotFound) || len(store.audit) != 0 {
		t.Errorf("a refused removal: %v, recorded %v", err, store.audit)
	}
}
