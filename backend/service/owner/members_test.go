package owner_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

func TestLastOwnerRule(t *testing.T) {
	t.Parallel()
	asOwner := owner.Membership{ProjectID: "prj_1", OwnerID: "own_a", Role: owner.RoleOwner}
	asViewer := owner.Membership{ProjectID: "prj_1", OwnerID: "own_b", Role: owner.RoleViewer}
	cases := []struct {
		name     string
		m        owner.Membership
		owners   int
		change   owner.MemberChange
		wantRole owner.Role
		wantErr  error
	}{
		{"demote the last owner", asOwner, 1, owner.ChangeRole(owner.RoleViewer), "", owner.ErrLastOwner},
		{"remove the last owner", asOwner, 1, owner.Removal, "", owner.ErrLastOwner},
		{"the last owner stays an owner", asOwner, 1, owner.ChangeRole(owner.RoleOwner), owner.RoleOwner, nil},
		{"demote one of two owners", asOwner, 2, owner.ChangeRole(owner.RoleViewer), owner.RoleViewer, nil},
		{"remove one of two owners", asOwner, 2, owner.Removal, "", nil},
		{"remove a viewer", asViewer, 1, owner.Removal, "", nil},
		{"promote a viewer", asViewer, 1, owner.ChangeRole(owner.RoleOwner), owner.RoleOwner, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			role, err := c.change(c.m, c.owners)
			if !errors.Is(err, c.wantErr) || (err == nil && role != c.wantRole) {
				t.Errorf("got %q, %v; want %q, %v", role, err, c.wantRole, c.wantErr)
			}
		})
	}
	if _, err := owner.ChangeRole("admin")(asViewer, 1); !invalidOn(err, "role") {
		t.Errorf("unknown role: %v, want an invalid fault on role", err)
	}
}

// Every member change goes to the audit log with the member in its own
// fields, by the owner who acted; a refused change writes nothing.
func TestMemberChanges(t *testing.T) {
	t.Parallel()
	const alice, bob, carol = "own_1", "own_2", "own_3"
	member := func(id, email string, role owner.Role) *owner.AuditEntry {
		return &owner.AuditEntry{Member: owner.AuditMember{ID: id, Email: email, Role: role}}
	}
	cases := []struct {
		name      string
		viewer    bool // alice acts as a viewer
		bobsRole  owner.Role
		do        func(ctx context.Context, s *owner.Service, a owner.Actor) error
		wantErr   error
		wantEntry *owner.AuditEntry // nil: nothing recorded
		action    owner.Action
	}{
		{name: "add", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			_, err := s.AddMember(ctx, a, " Carol@Example.com ", owner.RoleViewer)
			return err
		}, wantEntry: member(carol, "carol@example.com", owner.RoleViewer), action: owner.ActionMemberAdded},
		{name: "add an unknown email", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			_, err := s.AddMember(ctx, a, "nobody@example.com", owner.RoleViewer)
			return err
		}, wantErr: owner.ErrNoAccount},
		{name: "add a member again", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			_, err := s.AddMember(ctx, a, "bob@example.com", owner.RoleOwner)
			return err
		}, wantErr: owner.ErrConflict},
		{name: "promote", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.SetRole(ctx, a, bob, owner.RoleOwner)
		}, wantEntry: member(bob, "bob@example.com", owner.RoleOwner), action: owner.ActionMemberRoleChanged},
		{name: "the same role", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.SetRole(ctx, a, bob, owner.RoleViewer)
		}},
		{name: "demote the last owner", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.SetRole(ctx, a, alice, owner.RoleViewer)
		}, wantErr: owner.ErrLastOwner},
		{name: "demote oneself beside another owner", bobsRole: owner.RoleOwner, do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.SetRole(ctx, a, alice, owner.RoleViewer)
		}, wantEntry: member(alice, "alice@example.com", owner.RoleViewer), action: owner.ActionMemberRoleChanged},
		{name: "remove", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.RemoveMember(ctx, a, bob)
		}, wantEntry: member(bob, "bob@example.com", owner.RoleViewer), action: owner.ActionMemberRemoved},
		{name: "remove the last owner", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.RemoveMember(ctx, a, alice)
		}, wantErr: owner.ErrLastOwner},
		{name: "change a non-member", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.SetRole(ctx, a, carol, owner.RoleOwner)
		}, wantErr: owner.ErrNotFound},
		{name: "remove an unknown owner", do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.RemoveMember(ctx, a, "own_nope")
		}, wantErr: owner.ErrNotFound},
		{name: "a viewer adds", viewer: true, do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			_, err := s.AddMember(ctx, a, "carol@example.com", owner.RoleViewer)
			return err
		}, wantErr: owner.ErrForbidden},
		{name: "a viewer removes", viewer: true, do: func(ctx context.Context, s *owner.Service, a owner.Actor) error {
			return s.RemoveMember(ctx, a, bob)
		}, wantErr: owner.ErrForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, store, _, clk := newService()
			for _, email := range []string{"alice@example.com", "bob@example.com", "carol@example.com"} {
				if _, err := s.CreateOwner(ctx, email, "correct horse battery staple"); err != nil {
					t.Fatal(err)
				}
			}
			if c.bobsRole == "" {
				c.bobsRole = owner.RoleViewer
			}
			_ = store.AddMember(ctx, "prj_1", alice, owner.RoleOwner)
			_ = store.AddMember(ctx, "prj_1", bob, c.bobsRole)
			o, _ := store.OwnerByID(ctx, alice)
			a, err := s.Actor(ctx, o, "prj_1")
			if err != nil {
				t.Fatal(err)
			}
			if c.viewer {
				a.Role = owner.RoleViewer
			}
			if err := c.do(ctx, s, a); !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if c.wantEntry == nil {
				if len(store.audit) != 0 {
					t.Errorf("recorded %+v, want nothing", store.audit)
				}
				return
			}
			want := *c.wantEntry
			want.ProjectID, want.OwnerID, want.OwnerEmail, want.Action, want.CreatedAt = "prj_1", alice, "alice@example.com", c.action, clk.Now()
			if len(store.audit) != 1 || store.audit[0] != want {
				t.Errorf("recorded %+v, want %+v", store.audit, want)
			}
		})
	}
}

func TestActor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store, _, _ := newService()
	o, _ := s.CreateOwner(ctx, "alice@example.com", "correct horse battery staple")
	_ = store.AddMember(ctx, "prj_1", o.ID, owner.RoleViewer)
	_ = store.AddMember(ctx, "prj_gone", o.ID, owner.RoleOwner)
	a, err := s.Actor(ctx, o, "prj_1")
	if err != nil || a.Project.Name != "Acme" || a.Role != owner.RoleViewer || a.Owner.ID != o.ID {
		t.Errorf("Actor = %+v, %v", a, err)
	}
	for _, id := range []string{"prj_other", "prj_gone"} {
		if _, err := s.Actor(ctx, o, id); !errors.Is(err, owner.ErrNotFound) {
			t.Errorf("Actor in %s: %v, want ErrNotFound", id, err)
		}
	}
}

// Key changes go through the project domain and to the audit log with the
// key in its own fields; only owners make them.
func TestKeyChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store, _, clk := newService()
	o := owner.Owner{ID: "own_1", Email: "alice@example.com"}
	a := owner.Actor{Owner: o, Project: project.Project{ID: "prj_1"}, Role: owner.RoleOwner}
	key, k, err := s.CreateKey(ctx, a, "backend")
	if err != nil || key != "ak_live_secret" || k.ID != "key_1" {
		t.Fatalf("CreateKey = %q, %+v, %v", key, k, err)
	}
	clk.Advance(time.Minute)
	for range 2 { // the second revocation changes nothing and records nothing
		if _, err := s.RevokeKey(ctx, a, "key_1"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RevokeKey(ctx, a, "key_other"); !errors.Is(err, project.ErrNotFound) {
		t.Errorf("revoke another project's key: %v, want project.ErrNotFound", err)
	}
	t0 := clk.Now().Add(-time.Minute)
	want := []owner.AuditEntry{
		{ProjectID: "prj_1", OwnerID: o.ID, OwnerEmail: o.Email, Action: owner.ActionKeyCreated, CreatedAt: t0,
			Key: owner.AuditKey{ID: "key_1", Prefix: "ak_live_secr", Name: "backend"}},
		{ProjectID: "prj_1", OwnerID: o.ID, OwnerEmail: o.Email, Action: owner.ActionKeyRevoked, CreatedAt: clk.Now(),
			Key: owner.AuditKey{ID: "key_1", Prefix: "ak_live_secr", Name: "backend"}},
	}
	if len(store.audit) != len(want) {
		t.Fatalf("recorded %+v, want %+v", store.audit, want)
	}
	for i := range want {
		if store.audit[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, store.audit[i], want[i])
		}
	}
	a.Role = owner.RoleViewer
	if _, _, err := s.CreateKey(ctx, a, "x"); !errors.Is(err, owner.ErrForbidden) {
		t.Errorf("a viewer creates a key: %v, want ErrForbidden", err)
	}
	if _, err := s.RevokeKey(ctx, a, "key_1"); !errors.Is(err, owner.ErrForbidden) {
		t.Errorf("a viewer revokes a key: %v, want ErrForbidden", err)
	}
}
