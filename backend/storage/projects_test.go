package storage_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

var t0 = time.Date(2026, 1, 10, 12, 0, 0, 123456789, time.UTC)

func TestProjects(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		created, err := s.CreateProject(ctx, project.Project{Name: "Wallet Co", DonationWallet: wsol})
		if err != nil {
			t.Fatal(err)
		}
		if len(created.ID) != len("prj_")+26 || created.ID[:4] != "prj_" {
			t.Errorf("new project ID = %q, want prj_ and 26 characters", created.ID)
		}
		if created.CreatedAt.IsZero() || created.CreatedAt.Location() != time.UTC {
			t.Errorf("new project CreatedAt = %v, want now in UTC", created.CreatedAt)
		}
		fixed, err := s.CreateProject(ctx, project.Project{ID: "prj_fixed", Name: "No donations", CreatedAt: t0.In(time.FixedZone("X", 3600))})
		if err != nil {
			t.Fatal(err)
		}

		tests := []struct {
			name    string
			id      string
			want    project.Project
			wantErr error
		}{
			{name: "generated id", id: created.ID, want: created},
			{
				name: "given id and time, stored in UTC to the microsecond",
				id:   "prj_fixed",
				want: project.Project{ID: "prj_fixed", Name: "No donations", CreatedAt: t0.Truncate(time.Microsecond)},
			},
			{name: "missing", id: "prj_nope", wantErr: project.ErrNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.GetProject(ctx, tt.id)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("GetProject(%q) error = %v, want %v", tt.id, err, tt.wantErr)
				}
				if got != tt.want {
					t.Errorf("GetProject(%q) = %+v, want %+v", tt.id, got, tt.want)
				}
			})
		}
		if fixed.CreatedAt != t0.Truncate(time.Microsecond) {
			t.Errorf("CreateProject returned CreatedAt %v, want %v", fixed.CreatedAt, t0.Truncate(time.Microsecond))
		}
		if _, err := s.CreateProject(ctx, project.Project{ID: "prj_fixed", Name: "again"}); !errors.Is(err, project.ErrConflict) {
			t.Errorf("CreateProject with a taken ID = %v, want ErrConflict", err)
		}
	})
}

func TestAPIKeys(t *testing.T) {
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
		hash1, hash2, hash3 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{0, 0xff}, 16)
		k1, err := s.CreateAPIKey(ctx, project.APIKey{ProjectID: p.ID, Name: "prod", Prefix: "ak_live_AbCd", Hash: hash1, CreatedAt: t0})
		if err != nil {
			t.Fatal(err)
		}
		k2, err := s.CreateAPIKey(ctx, project.APIKey{ProjectID: p.ID, Name: "ci", Prefix: "ak_live_EfGh", Hash: hash2, CreatedAt: t0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateAPIKey(ctx, project.APIKey{ProjectID: other.ID, Name: "x", Prefix: "ak_live_zzzz", Hash: hash3}); err != nil {
			t.Fatal(err)
		}
		want1 := project.APIKey{ID: k1.ID, ProjectID: p.ID, Name: "prod", Prefix: "ak_live_AbCd", Hash: hash1, CreatedAt: t0.Truncate(time.Microsecond)}

		t.Run("create rejects", func(t *testing.T) {
			tests := []struct {
				name    string
				key     project.APIKey
				wantErr error
			}{
				{name: "same hash", key: project.APIKey{ProjectID: p.ID, Hash: hash1}, wantErr: project.ErrConflict},
				{name: "same hash in another project", key: project.APIKey{ProjectID: other.ID, Hash: hash1}, wantErr: project.ErrConflict},
				{name: "same id", key: project.APIKey{ID: k1.ID, ProjectID: p.ID, Hash: []byte{9}}, wantErr: project.ErrConflict},
				{name: "unknown project", key: project.APIKey{ProjectID: "prj_nope", Hash: []byte{8}}, wantErr: project.ErrNotFound},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if _, err := s.CreateAPIKey(ctx, tt.key); !errors.Is(err, tt.wantErr) {
						t.Errorf("CreateAPIKey = %v, want %v", err, tt.wantErr)
					}
				})
			}
			if _, err := s.CreateAPIKey(ctx, project.APIKey{ProjectID: p.ID}); err == nil {
				t.Error("CreateAPIKey without a hash succeeded")
			}
		})

		t.Run("lookups", func(t *testing.T) {
			tests := []struct {
				name    string
				get     func() (project.APIKey, error)
				want    project.APIKey
				wantErr error
			}{
				{name: "by hash", get: func() (project.APIKey, error) { return s.APIKeyByHash(ctx, hash1) }, want: want1},
				{name: "by id", get: func() (project.APIKey, error) { return s.APIKeyByID(ctx, k1.ID) }, want: want1},
				{name: "unknown hash", get: func() (project.APIKey, error) { return s.APIKeyByHash(ctx, []byte("nope")) }, wantErr: project.ErrNotFound},
				{name: "hash prefix is not a match", get: func() (project.APIKey, error) { return s.APIKeyByHash(ctx, hash1[:31]) }, wantErr: project.ErrNotFound},
				{name: "unknown id", get: func() (project.APIKey, error) { return s.APIKeyByID(ctx, "key_nope") }, wantErr: project.ErrNotFound},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := tt.get()
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("error = %v, want %v", err, tt.wantErr)
					}
					assertKey(t, got, tt.want)
				})
			}
		})

		t.Run("list", func(t *testing.T) {
			keys, err := s.ListAPIKeys(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) != 2 || keys[0].ID != k1.ID || keys[1].ID != k2.ID {
				t.Fatalf("ListAPIKeys = %+v, want [%s %s] oldest first", keys, k1.ID, k2.ID)
			}
			none, err := s.ListAPIKeys(ctx, "prj_nope")
			if err != nil || len(none) != 0 {
				t.Errorf("ListAPIKeys(unknown) = %v, %v; want empty", none, err)
			}
		})

		t.Run("touch", func(t *testing.T) {
			steps := []struct {
				name string
				at   time.Time
				want time.Time
			}{
				{name: "first use is recorded", at: t0.Add(2 * time.Hour), want: t0.Add(2 * time.Hour)},
				{name: "within a minute is skipped", at: t0.Add(2*time.Hour + 59*time.Second), want: t0.Add(2 * time.Hour)},
				{name: "after a minute is recorded", at: t0.Add(2*time.Hour + 61*time.Second), want: t0.Add(2*time.Hour + 61*time.Second)},
			}
			for _, st := range steps {
				if err := s.TouchAPIKeyUsed(ctx, k2.ID, st.at); err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				got, err := s.APIKeyByID(ctx, k2.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.LastUsedAt == nil || !got.LastUsedAt.Equal(st.want.Truncate(time.Microsecond)) {
					t.Errorf("%s: LastUsedAt = %v, want %v", st.name, got.LastUsedAt, st.want)
				}
			}
			if err := s.TouchAPIKeyUsed(ctx, "key_nope", t0); err != nil {
				t.Errorf("TouchAPIKeyUsed(unknown) = %v, want nil", err)
			}
			if got, _ := s.APIKeyByID(ctx, k1.ID); got.LastUsedAt != nil {
				t.Errorf("touching one key changed another: %v", got.LastUsedAt)
			}
		})

		t.Run("revoke", func(t *testing.T) {
			first := t0.Add(3 * time.Hour)
			revoked, err := s.RevokeAPIKey(ctx, hash1, first)
			if err != nil {
				t.Fatal(err)
			}
			if !revoked.Revoked() || !revoked.RevokedAt.Equal(first.Truncate(time.Microsecond)) {
				t.Fatalf("RevokeAPIKey = %+v, want revoked at %v", revoked, first)
			}
			again, err := s.RevokeAPIKey(ctx, hash1, first.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if !again.RevokedAt.Equal(first.Truncate(time.Microsecond)) {
				t.Errorf("second revoke moved RevokedAt to %v, want the first %v", again.RevokedAt, first)
			}
			if got, _ := s.APIKeyByHash(ctx, hash1); !got.Revoked() {
				t.Errorf("APIKeyByHash after revoke: %+v, want revoked", got)
			}
			if got, _ := s.APIKeyByID(ctx, k2.ID); got.Revoked() {
				t.Errorf("revoking one key revoked another: %+v", got)
			}
			if _, err := s.RevokeAPIKey(ctx, []byte("nope"), first); !errors.Is(err, project.ErrNotFound) {
				t.Errorf("RevokeAPIKey(unknown) = %v, want ErrNotFound", err)
			}
		})
	})
}

func assertKey(t *testing.T, got, want project.APIKey) {
	t.Helper()
	same := got.ID == want.ID && got.ProjectID == want.ProjectID && got.Name == want.Name &&
		got.Prefix == want.Prefix && bytes.Equal(got.Hash, want.Hash) && got.CreatedAt.Equal(want.CreatedAt) &&
		equalTimePtr(got.LastUsedAt, want.LastUsedAt) && equalTimePtr(got.RevokedAt, want.RevokedAt)
	if !same {
		t.Errorf("key = %+v, want %+v", got, want)
	}
}

func equalTimePtr(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
