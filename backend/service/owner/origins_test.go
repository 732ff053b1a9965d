package owner_test

import (
	"context"
	"errors"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

func (p *fakeProjects) AddOrigin(_ context.Context, projectID, origin string) (project.Origin, error) {
	norm, err := project.ValidateOrigin(origin)
	if err != nil {
		return project.Origin{}, err
	}
	return project.Origin{ProjectID: projectID, Origin: norm}, nil
}

func (p *fakeProjects) RemoveOrigin(_ context.Context, _, origin string) (string, error) {
	if origin != "https://app.example/" {
		return "", project.ErrNotFound
	}
	return "https://app.example", nil
}

// Origin changes go through the project domain and to the audit log with
// the origin as stored; only owners make them, and a refused change records
// nothing.
func TestOriginChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store, _, clk := newService()
	o := owner.Owner{ID: "own_1", Email: "alice@example.com"}
	a := owner.Actor{Owner: o, Project: project.Project{ID: "prj_1"}, Role: owner.RoleOwner}
	if got, err := s.AddOrigin(ctx, a, "HTTPS://App.Example"); err != nil || got.Origin != "https://app.example" {
		t.Fatalf("AddOrigin = %+v, %v", got, err)
	}
	if _, err := s.AddOrigin(ctx, a, "app.example"); !invalidOn(err, "") {
		t.Errorf("AddOrigin without a scheme: %v, want an invalid fault", err)
	}
	if err := s.RemoveOrigin(ctx, a, "https://app.example/"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveOrigin(ctx, a, "https://other.example"); !errors.Is(err, project.ErrNotFound) {
		t.Errorf("RemoveOrigin of an unlisted origin: %v, want project.ErrNotFound", err)
	}
	want := []owner.AuditEntry{
		{ProjectID: "prj_1", OwnerID: o.ID, OwnerEmail: o.Email, Action: owner.ActionOriginAdded, Origin: "https://app.example", CreatedAt: clk.Now()},
		{ProjectID: "prj_1", OwnerID: o.ID, OwnerEmail: o.Email, Action: owner.ActionOriginRemoved, Origin: "https://app.example", CreatedAt: clk.Now()},
	}
	if len(store.audit) != len(want) || store.audit[0] != want[0] || store.audit[1] != want[1] {
		t.Errorf("recorded %+v, want %+v", store.audit, want)
	}
	a.Role = owner.RoleViewer
	if _, err := s.AddOrigin(ctx, a, "https://x.example"); !errors.Is(err, owner.ErrForbidden) {
		t.Errorf("a viewer adds an origin: %v, want ErrForbidden", err)
	}
	if err := s.RemoveOrigin(ctx, a, "https://app.example/"); !errors.Is(err, owner.ErrForbidden) {
		t.Errorf("a viewer removes an origin: %v, want ErrForbidden", err)
	}
}
