package project_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

func (f *fakeStore) AddOrigin(ctx context.Context, o project.Origin) error {
	if _, err := f.GetProject(ctx, o.ProjectID); err != nil {
		return err
	}
	if slices.ContainsFunc(f.origins, func(x project.Origin) bool { return x.ProjectID == o.ProjectID && x.Origin == o.Origin }) {
		return project.ErrConflict
	}
	f.origins = append(f.origins, o)
	return nil
}

func (f *fakeStore) RemoveOrigin(_ context.Context, projectID, origin string) error {
	n := len(f.origins)
	f.origins = slices.DeleteFunc(f.origins, func(x project.Origin) bool { return x.ProjectID == projectID && x.Origin == origin })
	if len(f.origins) == n {
		return project.ErrNotFound
	}
	return nil
}

func (f *fakeStore) ListOrigins(_ context.Context, projectID string) ([]project.Origin, error) {
	var out []project.Origin
	for _, o := range f.origins {
		if o.ProjectID == projectID {
			out = append(out, o)
		}
	}
	return out, nil
}

func (f *fakeStore) AllOrigins(context.Context) ([]project.Origin, error) {
	return slices.Clone(f.origins), nil
}

func TestValidateOrigin(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"https://app.example", "https://app.example"},
		{"  HTTPS://App.Example/ ", "https://app.example"},
		{"http://localhost:5173", "http://localhost:5173"},
		{"http://127.0.0.1:8081", "http://127.0.0.1:8081"},
		{"https://app.example:443", "https://app.example"},
		{"http://app.example:80", "http://app.example"},
		{"http://app.example:443", "http://app.example:443"},
		{"http://[::1]:3000", "http://[::1]:3000"},
		{"http://[::1]", "http://[::1]"},
		{"http://localhost:08080", "http://localhost:8080"},
		{"", ""},
		{"*", ""},
		{"https://*.example.com", ""},
		{"app.example", ""},
		{"ftp://app.example", ""},
		{"https://app.example/path", ""},
		{"https://app.example//", ""},
		{"https://app.example?x=1", ""},
		{"https://app.example#top", ""},
		{"https://user@app.example", ""},
		{"https://app.example:0", ""},
		{"https://app.example:65536", ""},
		{"https://app.example:x", ""},
		{"null", ""},
		{"https://", ""},
		{"mailto:a@b", ""},
	}
	for _, c := range cases {
		got, err := project.ValidateOrigin(c.in)
		switch {
		case c.want == "" && !invalidOn(err, "origin"):
			t.Errorf("ValidateOrigin(%q) = %q, %v; want an invalid fault on origin", c.in, got, err)
		case c.want != "" && (err != nil || got != c.want):
			t.Errorf("ValidateOrigin(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestOrigins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService()
	p, _ := s.Create(ctx, "Acme", "")
	other, _ := s.Create(ctx, "Other", "")

	o, err := s.AddOrigin(ctx, p.ID, " HTTPS://App.Example/ ")
	if err != nil || o != (project.Origin{ProjectID: p.ID, Origin: "https://app.example", CreatedAt: t0}) {
		t.Fatalf("AddOrigin = %+v, %v", o, err)
	}
	if _, err := s.AddOrigin(ctx, p.ID, "https://app.example:443"); !errors.Is(err, project.ErrConflict) {
		t.Errorf("AddOrigin of a listed origin: %v, want ErrConflict", err)
	}
	if _, err := s.AddOrigin(ctx, p.ID, "https://app.example/x"); !invalidOn(err, "") {
		t.Errorf("AddOrigin with a path: %v, want an invalid fault", err)
	}
	if _, err := s.AddOrigin(ctx, "prj_nope", "https://x.example"); !errors.Is(err, project.ErrNotFound) {
		t.Errorf("AddOrigin of an unknown project: %v, want ErrNotFound", err)
	}
	if _, err := s.AddOrigin(ctx, other.ID, "https://app.example"); err != nil {
		t.Errorf("the same origin in another project: %v", err)
	}
	for i := 1; i < project.MaxOrigins; i++ {
		if _, err := s.AddOrigin(ctx, p.ID, fmt.Sprintf("https://app.example:%d", 1000+i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddOrigin(ctx, p.ID, "https://one-too-many.example"); !invalidOn(err, "") {
		t.Errorf("origin %d: %v, want an invalid fault", project.MaxOrigins+1, err)
	}
	if got, err := s.RemoveOrigin(ctx, p.ID, "HTTPS://APP.EXAMPLE"); err != nil || got != "https://app.example" {
		t.Errorf("RemoveOrigin = %q, %v", got, err)
	}
	if _, err := s.RemoveOrigin(ctx, p.ID, "https://app.example"); !errors.Is(err, project.ErrNotFound) {
		t.Errorf("RemoveOrigin again: %v, want ErrNotFound", err)
	}
	list, _ := s.Origins(ctx, p.ID)
	all, _ := s.AllOrigins(ctx)
	if len(list) != project.MaxOrigins-1 || len(all) != project.MaxOrigins {
		t.Errorf("%d origins listed, %d in all; want %d and %d", len(list), len(all), project.MaxOrigins-1, project.MaxOrigins)
	}
}
