package project_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// fakeStore keeps projects and keys in maps, as the storage package's
// contract says.
type fakeStore struct {
	project.QuotaStore // the quota tests run on real storage (storage/quotas_test.go)

	projects map[string]project.Project
	keys     map[string]project.APIKey
	origins  []project.Origin
}

func (f *fakeStore) CreateProject(_ context.Context, p project.Project) (project.Project, error) {
	p.ID = fmt.Sprintf("prj_%d", len(f.projects)+1)
	f.projects[p.ID] = p
	return p, nil
}

func (f *fakeStore) GetProject(_ context.Context, id string) (project.Project, error) {
	if p, ok := f.projects[id]; ok {
		return p, nil
	}
	return project.Project{}, project.ErrNotFound
}

func (f *fakeStore) UpdateProject(ctx context.Context, id, name, wallet string) (project.Project, error) {
	p, err := f.GetProject(ctx, id)
	if err != nil {
		return p, err
	}
	p.Name, p.DonationWallet = name, wallet
	f.projects[id] = p
	return p, nil
}

func (f *fakeStore) CreateAPIKey(ctx context.Context, k project.APIKey) (project.APIKey, error) {
	if _, err := f.GetProject(ctx, k.ProjectID); err != nil {
		return project.APIKey{}, err
	}
	k.ID = fmt.Sprintf("key_%d", len(f.keys)+1)
	f.keys[k.ID] = k
	return k, nil
}

func (f *fakeStore) APIKeyByID(_ context.Context, id string) (project.APIKey, error) {
	if k, ok := f.keys[id]; ok {
		return k, nil
	}
	return project.APIKey{}, project.ErrNotFound
}

func (f *fakeStore) ListAPIKeys(_ context.Context, projectID string) ([]project.APIKey, error) {
	var out []project.APIKey
	for _, k := range f.keys {
		if k.ProjectID == projectID {
			out = append(out, k)
		}
	}
	return out, nil
}

func (f *fakeStore) RevokeAPIKey(_ context.Context, hash []byte, at time.Time) (project.APIKey, error) {
	for id, k := range f.keys {
		if bytes.Equal(k.Hash, hash) {
			if k.RevokedAt == nil {
				k.RevokedAt = &at
				f.keys[id] = k
			}
			return k, nil
		}
	}
	return project.APIKey{}, project.ErrNotFound
}

// minter makes keys "ak_live_1", "ak_live_2" ... whose hash is "h:" + key.
type minter struct{ n int }

func (m *minter) Mint() (string, string, []byte, error) {
	m.n++
	key := fmt.Sprintf("ak_live_%d", m.n)
	return key, key[:9], m.Hash(key), nil
}

func (m *minter) Hash(key string) []byte { return []byte("h:" + key) }

var t0 = time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)

func newService() (*project.Service, *fakeStore) {
	store := &fakeStore{projects: map[string]project.Project{}, keys: map[string]project.APIKey{}}
	return project.NewService(store, &minter{}, func() time.Time { return t0 }), store
}

const wallet = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

func TestCreateAndUpdate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, project, wallet string
		want                  project.Project
		field                 string // of the invalid fault
	}{
		{name: "trimmed", project: "  Acme ", wallet: " " + wallet + " ", want: project.Project{Name: "Acme", DonationWallet: wallet, CreatedAt: t0}},
		{name: "no donations", project: "Acme", want: project.Project{Name: "Acme", CreatedAt: t0}},
		{name: "100 characters", project: strings.Repeat("é", 100), want: project.Project{Name: strings.Repeat("é", 100), CreatedAt: t0}},
		{name: "no name", project: "  ", field: "name"},
		{name: "101 characters", project: strings.Repeat("x", 101), field: "name"},
		{name: "not an address", project: "Acme", wallet: "not-an-address", field: "donation_wallet"},
		{name: "a short address", project: "Acme", wallet: wallet[:40], field: "donation_wallet"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, store := newService()
			p, err := s.Create(ctx, c.project, c.wallet)
			if c.field != "" {
				if !invalidOn(err, c.field) || len(store.projects) != 0 {
					t.Errorf("Create = %+v, %v; want an invalid fault on %s and nothing stored", p, err, c.field)
				}
				if _, err := s.Update(ctx, "prj_1", c.project, c.wallet); !invalidOn(err, c.field) {
					t.Errorf("Update: %v, want an invalid fault on %s", err, c.field)
				}
				return
			}
			c.want.ID = "prj_1"
			if err != nil || p != c.want || store.projects[p.ID] != c.want {
				t.Errorf("Create = %+v, %v; want %+v stored", p, err, c.want)
			}
			if up, err := s.Update(ctx, p.ID, " Renamed ", ""); err != nil || up.Name != "Renamed" || up.DonationWallet != "" {
				t.Errorf("Update = %+v, %v", up, err)
			}
		})
	}
}

// Keys are issued, found and revoked through one service, by the command
// line (by value) and the console (by id, within the project) alike.
func TestKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store := newService()
	p, _ := s.Create(ctx, "Acme", "")
	other, _ := s.Create(ctx, "Other", "")

	key, k, err := s.CreateKey(ctx, p.ID, "  backend ")
	if err != nil || key != "ak_live_1" || k.Name != "backend" || k.Prefix != "ak_live_1" || !bytes.Equal(k.Hash, []byte("h:ak_live_1")) || !k.CreatedAt.Equal(t0) {
		t.Fatalf("CreateKey = %q, %+v, %v", key, k, err)
	}
	for _, name := range []string{"", " ", strings.Repeat("x", 101)} {
		if _, _, err := s.CreateKey(ctx, p.ID, name); !invalidOn(err, "name") {
			t.Errorf("CreateKey named %q: %v, want an invalid fault on name", name, err)
		}
	}
	if _, _, err := s.CreateKey(ctx, "prj_nope", "x"); !errors.Is(err, project.ErrNotFound) {
		t.Errorf("CreateKey of an unknown project: %v, want ErrNotFound", err)
	}
	if len(store.keys) != 1 {
		t.Errorf("%d keys stored, want 1", len(store.keys))
	}

	cases := []struct {
		name, project, key string
		wantErr            error
	}{
		{"its project", p.ID, k.ID, nil},
		{"another project", other.ID, k.ID, project.ErrNotFound},
		{"unknown", p.ID, "key_nope", project.ErrNotFound},
	}
	for _, c := range cases {
		if got, err := s.Key(ctx, c.project, c.key); !errors.Is(err, c.wantErr) || (err == nil && got.ID != k.ID) {
			t.Errorf("Key, %s: %+v, %v; want %v", c.name, got, err, c.wantErr)
		}
		if _, revoked, err := s.Revoke(ctx, c.project, c.key); !errors.Is(err, c.wantErr) || revoked != (c.wantErr == nil) {
			t.Errorf("Revoke, %s: %v, %v; want %v", c.name, revoked, err, c.wantErr)
		}
	}
	// The loop revoked the key in its project; again changes nothing.
	got, revoked, err := s.Revoke(ctx, p.ID, k.ID)
	if err != nil || revoked || !got.Revoked() {
		t.Errorf("Revoke again = %+v, %v, %v; want revoked before", got, revoked, err)
	}
	if got, err := s.RevokeKey(ctx, " "+key+" "); err != nil || got.ID != k.ID {
		t.Errorf("RevokeKey by value = %+v, %v", got, err)
	}
	if _, err := s.RevokeKey(ctx, "ak_live_nope"); !errors.Is(err, project.ErrNotFound) {
		t.Errorf("RevokeKey of an unknown key: %v, want ErrNotFound", err)
	}
}

// invalidOn reports whether err is an invalid fault naming field, any
// field when field is "".
func invalidOn(err error, field string) bool {
	f, ok := fault.As(err, fault.KindInvalid)
	return ok && (field == "" || f.Param() == field)
}
