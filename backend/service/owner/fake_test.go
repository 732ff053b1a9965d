package owner_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// fakeStore keeps the service's state in maps, as the storage package's
// contract says; a method no test calls panics through the nil Store.
type fakeStore struct {
	owner.Store

	mu       sync.Mutex
	owners   map[string]owner.Owner      // by ID
	members  map[string]owner.Membership // by project|owner
	failures map[string]owner.SignInFailures
	sessions map[string]owner.Session // by string(IDHash)
	spent    map[string]time.Time     // by string(id): until when
	audit    []owner.AuditEntry
}

func newFakeStore() *fakeStore {
	return &fakeStore{
		owners: map[string]owner.Owner{}, members: map[string]owner.Membership{},
		failures: map[string]owner.SignInFailures{}, sessions: map[string]owner.Session{},
		spent: map[string]time.Time{},
	}
}

func (f *fakeStore) CreateOwner(_ context.Context, o owner.Owner) (owner.Owner, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, other := range f.owners {
		if other.Email == o.Email {
			return owner.Owner{}, owner.ErrConflict
		}
	}
	o.ID = fmt.Sprintf("own_%d", len(f.owners)+1)
	f.owners[o.ID] = o
	return o, nil
}

func (f *fakeStore) OwnerByEmail(_ context.Context, email string) (owner.Owner, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range f.owners {
		if o.Email == owner.NormalizeEmail(email) {
			return o, nil
		}
	}
	return owner.Owner{}, owner.ErrNotFound
}

func (f *fakeStore) OwnerByID(_ context.Context, id string) (owner.Owner, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if o, ok := f.owners[id]; ok {
		return o, nil
	}
	return owner.Owner{}, owner.ErrNotFound
}

func (f *fakeStore) AddMember(_ context.Context, projectID, ownerID string, role owner.Role) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.members[projectID+"|"+ownerID]; ok {
		return owner.ErrConflict
	}
	f.members[projectID+"|"+ownerID] = owner.Membership{ProjectID: projectID, OwnerID: ownerID, Role: role}
	return nil
}

func (f *fakeStore) Membership(_ context.Context, projectID, ownerID string) (owner.Membership, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m, ok := f.members[projectID+"|"+ownerID]; ok {
		return m, nil
	}
	return owner.Membership{}, owner.ErrNotFound
}

// ChangeMembership applies change under the fake's lock, as the real store
// does under the project's.
func (f *fakeStore) ChangeMembership(_ context.Context, projectID, ownerID string, change owner.MemberChange) (owner.Membership, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.members[projectID+"|"+ownerID]
	if !ok {
		return owner.Membership{}, owner.ErrNotFound
	}
	owners := 0
	for _, o := range f.members {
		if o.ProjectID == projectID && o.Role == owner.RoleOwner {
			owners++
		}
	}
	role, err := change(m, owners)
	if err != nil {
		return owner.Membership{}, err
	}
	if role == "" {
		delete(f.members, projectID+"|"+ownerID)
	} else {
		f.members[projectID+"|"+ownerID] = owner.Membership{ProjectID: projectID, OwnerID: ownerID, Role: role}
	}
	return m, nil
}

func (f *fakeStore) AddAudit(_ context.Context, e owner.AuditEntry) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.audit = append(f.audit, e)
	return nil
}

func (f *fakeStore) SignInFailures(_ context.Context, key string) (owner.SignInFailures, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failures[key], nil
}

func (f *fakeStore) RecordSignInFailure(_ context.Context, key string, at time.Time) (owner.SignInFailures, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.failures[key]
	s.Key, s.Failures, s.LastAt = key, s.Failures+1, at
	f.failures[key] = s
	return s, nil
}

func (f *fakeStore) ClearSignInFailures(_ context.Context, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.failures, key)
	return nil
}

func (f *fakeStore) CreateSession(_ context.Context, s owner.Session) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions[string(s.IDHash)] = s
	return nil
}

func (f *fakeStore) SessionByHash(_ context.Context, idHash []byte) (owner.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.sessions[string(idHash)]; ok {
		return s, nil
	}
	return owner.Session{}, owner.ErrNotFound
}

func (f *fakeStore) TouchSession(_ context.Context, idHash []byte, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[string(idHash)]
	s.LastSeenAt = at
	f.sessions[string(idHash)] = s
	return nil
}

func (f *fakeStore) DeleteSession(_ context.Context, idHash []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sessions, string(idHash))
	return nil
}

func (f *fakeStore) DeleteSessionsBefore(context.Context, time.Time, time.Time) error { return nil }

func (f *fakeStore) DeleteSignInFailuresBefore(_ context.Context, t time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range f.failures {
		if v.LastAt.Before(t) {
			delete(f.failures, k)
		}
	}
	return nil
}

func (f *fakeStore) SpendToken(_ context.Context, id []byte, expires time.Time) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.spent[string(id)]; ok {
		return false, nil
	}
	f.spent[string(id)] = expires
	return true, nil
}

func (f *fakeStore) DeleteSpentTokensBefore(_ context.Context, t time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range f.spent {
		if v.Before(t) {
			delete(f.spent, k)
		}
	}
	return nil
}

// fakeProjects is the project domain with one project, prj_1, whose keys
// are made on demand.
type fakeProjects struct {
	owner.Projects
	revoked bool // whether the key was revoked already
}

func (p *fakeProjects) Get(_ context.Context, id string) (project.Project, error) {
	if id != "prj_1" {
		return project.Project{}, project.ErrNotFound
	}
	return project.Project{ID: id, Name: "Acme"}, nil
}

func (p *fakeProjects) CreateKey(_ context.Context, projectID, name string) (string, project.APIKey, error) {
	return "ak_live_secret", project.APIKey{ID: "key_1", ProjectID: projectID, Name: name, Prefix: "ak_live_secr"}, nil
}

func (p *fakeProjects) Revoke(_ context.Context, projectID, keyID string) (project.APIKey, bool, error) {
	if keyID != "key_1" {
		return project.APIKey{}, false, project.ErrNotFound
	}
	already := p.revoked
	p.revoked = true
	return project.APIKey{ID: keyID, ProjectID: projectID, Name: "backend", Prefix: "ak_live_secr"}, !already, nil
}

// cheap keeps argon2id fast in tests; the parameters travel in the hash.
var cheap = owner.Passwords{Time: 1, MemoryKiB: 64, Threads: 1}

// newService returns a service over a fresh fake store and projects, at a
// fixed time.
func newService() (*owner.Service, *fakeStore, *fakeProjects, *clocktest.Clock) {
	store, projects := newFakeStore(), &fakeProjects{}
	clk := clocktest.New(time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC))
	return owner.NewService(store, projects, owner.Options{Passwords: cheap, Now: clk.Now}), store, projects, clk
}

// invalidOn reports whether err is an invalid fault naming field, any
// field when field is "".
func invalidOn(err error, field string) bool {
	f, ok := fault.As(err, fault.KindInvalid)
	return ok && (field == "" || f.Param() == field)
}
