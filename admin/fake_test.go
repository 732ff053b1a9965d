package admin_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// fakeConsole is every service the console asks of (the interfaces of
// admin.Deps), hand-written: each method records its call and calls its
// func field. newFakeConsole gives the answers of a healthy console where
// alice is signed in (session cookie fakeSession) and owns project prj_1,
// with one key and herself as its one member.
type fakeConsole struct {
	mu    sync.Mutex
	calls []string
	log   bytes.Buffer

	spendToken    func(id []byte, expires time.Time) error
	createOwner   func(email, password string) (owner.Owner, error)
	signIn        func(email, password, client string) (owner.Owner, error)
	passwordsBusy func() error
	startSession  func(ownerID string) (string, owner.Session, error)
	session       func(id string) (owner.Session, owner.Owner, error)
	endSession    func(s owner.Session) error
	projectsOf    func(ownerID string) ([]owner.ProjectRole, error)
	createProject func(o owner.Owner, name, donationWallet string) (project.Project, error)
	actor         func(o owner.Owner, projectID string) (owner.Actor, error)
	updateProject func(a owner.Actor, name, donationWallet string) (project.Project, error)
	keys          func(projectID string) ([]project.APIKey, error)
	key           func(projectID, keyID string) (project.APIKey, error)
	createKey     func(a owner.Actor, name string) (string, project.APIKey, error)
	revokeKey     func(a owner.Actor, keyID string) (project.APIKey, error)
	members       func(projectID string) ([]owner.Member, error)
	addMember     func(a owner.Actor, email string, role owner.Role) (owner.Owner, error)
	setRole       func(a owner.Actor, memberID string, role owner.Role) error
	removeMember  func(a owner.Actor, memberID string) error
	origins       func(projectID string) ([]project.Origin, error)
	addOrigin     func(a owner.Actor, origin string) (project.Origin, error)
	removeOrigin  func(a owner.Actor, origin string) error
	auditLog      func(projectID string, actions []owner.Action, limit int) ([]owner.AuditEntry, error)
	stats         func(projectID string) (ledger.Stats, error)
	leaderboard   func(projectID string, p ledger.FilterParams) ([]ledger.LeaderboardEntry, error)
	dailyTotals   func(projectID string, from, to time.Time) ([]ledger.DailyTotal, error)
	latest        func(projectID string, limit int) ([]ledger.Entry, error)
}

// The fake console's people and things.
const (
	fakeSession = "session-of-alice"
	fakeCSRF    = "csrf-of-alice"
)

var (
	alice     = owner.Owner{ID: "own_alice", Email: "alice@example.com"}
	acme      = project.Project{ID: "prj_1", Name: "Acme", CreatedAt: fakeNow}
	acmeKey   = project.APIKey{ID: "key_1", ProjectID: "prj_1", Name: "backend", Prefix: "ak_live_AbCd", CreatedAt: fakeNow}
	fakeNow   = time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	noEntries = []owner.AuditEntry{}
)

func newFakeConsole() *fakeConsole {
	f := &fakeConsole{}
	aliceSession := owner.Session{OwnerID: alice.ID, CSRFToken: fakeCSRF, CreatedAt: fakeNow, ExpiresAt: fakeNow.Add(time.Hour)}
	f.spendToken = func([]byte, time.Time) error { return nil }
	f.createOwner = func(email, _ string) (owner.Owner, error) { return owner.Owner{ID: "own_new", Email: email}, nil }
	f.signIn = func(string, string, string) (owner.Owner, error) { return alice, nil }
	f.passwordsBusy = func() error { return nil }
	f.startSession = func(ownerID string) (string, owner.Session, error) {
		return "session-new", owner.Session{OwnerID: ownerID, CSRFToken: "csrf-new"}, nil
	}
	f.session = func(id string) (owner.Session, owner.Owner, error) {
		if id != fakeSession {
			return owner.Session{}, owner.Owner{}, owner.ErrNotFound
		}
		return aliceSession, alice, nil
	}
	f.endSession = func(owner.Session) error { return nil }
	f.projectsOf = func(string) ([]owner.ProjectRole, error) {
		return []owner.ProjectRole{{Project: acme, Role: owner.RoleOwner}}, nil
	}
	f.createProject = func(_ owner.Owner, name, wallet string) (project.Project, error) {
		return project.Project{ID: "prj_2", Name: name, DonationWallet: wallet}, nil
	}
	f.actor = func(o owner.Owner, projectID string) (owner.Actor, error) {
		if projectID != acme.ID {
			return owner.Actor{}, owner.ErrNotFound
		}
		return owner.Actor{Owner: o, Project: acme, Role: owner.RoleOwner}, nil
	}
	f.updateProject = func(a owner.Actor, name, wallet string) (project.Project, error) {
		return project.Project{ID: a.Project.ID, Name: name, DonationWallet: wallet}, nil
	}
	f.keys = func(string) ([]project.APIKey, error) { return []project.APIKey{acmeKey}, nil }
	f.key = func(_, keyID string) (project.APIKey, error) {
		if keyID != acmeKey.ID {
			return project.APIKey{}, project.ErrNotFound
		}
		return acmeKey, nil
	}
	f.createKey = func(_ owner.Actor, name string) (string, project.APIKey, error) {
		return "ak_live_AbCdNewSecret", project.APIKey{ID: "key_2", Name: name, Prefix: "ak_live_AbCd"}, nil
	}
	f.revokeKey = func(owner.Actor, string) (project.APIKey, error) { return acmeKey, nil }
	f.members = func(string) ([]owner.Member, error) {
		return []owner.Member{{OwnerID: alice.ID, Email: alice.Email, Role: owner.RoleOwner, Since: fakeNow}}, nil
	}
	f.addMember = func(_ owner.Actor, email string, _ owner.Role) (owner.Owner, error) {
		return owner.Owner{ID: "own_bob", Email: email}, nil
	}
	f.setRole = func(owner.Actor, string, owner.Role) error { return nil }
	f.removeMember = func(owner.Actor, string) error { return nil }
	f.origins = func(string) ([]project.Origin, error) { return nil, nil }
	f.addOrigin = func(a owner.Actor, origin string) (project.Origin, error) {
		return project.Origin{ProjectID: a.Project.ID, Origin: origin}, nil
	}
	f.removeOrigin = func(owner.Actor, string) error { return nil }
	f.auditLog = func(string, []owner.Action, int) ([]owner.AuditEntry, error) { return noEntries, nil }
	f.stats = func(string) (ledger.Stats, error) { return ledger.Stats{}, nil }
	f.leaderboard = func(string, ledger.FilterParams) ([]ledger.LeaderboardEntry, error) { return nil, nil }
	f.dailyTotals = func(string, time.Time, time.Time) ([]ledger.DailyTotal, error) { return nil, nil }
	f.latest = func(string, int) ([]ledger.Entry, error) { return nil, nil }
	return f
}

// deps wires the console over f, every page's part being f, its log f.log.
func (f *fakeConsole) deps() admin.Deps {
	return admin.Deps{
		Accounts: f, FormTokens: f, Sessions: f, Projects: f, Settings: f, Keys: f, KeyChanges: f, Members: f,
		MemberChanges: f, Origins: f, OriginChanges: f, Audit: f, Ledger: f, History: f,
		AllowSignup: true, FormKey: bytes.Repeat([]byte{7}, 32), Now: func() time.Time { return fakeNow },
		Log: slog.New(slog.NewTextHandler(lockedWriter{f}, nil)),
	}
}

// lockedWriter writes the console's log to f.log.
type lockedWriter struct{ f *fakeConsole }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	return w.f.log.Write(p)
}

// record notes a call and locks f until the returned func runs.
func (f *fakeConsole) record(name string) func() {
	f.mu.Lock()
	f.calls = append(f.calls, name)
	return f.mu.Unlock
}

// called reports whether a method of that name ran.
func (f *fakeConsole) called(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c == name {
			return true
		}
	}
	return false
}

// logged is what the console logged.
func (f *fakeConsole) logged() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.String()
}

func (f *fakeConsole) SpendToken(_ context.Context, id []byte, expires time.Time) error {
	defer f.record("SpendToken")()
	return f.spendToken(id, expires)
}

func (f *fakeConsole) CreateOwner(_ context.Context, email, password string) (owner.Owner, error) {
	defer f.record("CreateOwner")()
	return f.createOwner(email, password)
}

func (f *fakeConsole) SignIn(_ context.Context, email, password, client string, _ owner.Device) (owner.Owner, error) {
	defer f.record("SignIn")()
	return f.signIn(email, password, client)
}

func (f *fakeConsole) PasswordsBusy(owner.Device) error {
	defer f.record("PasswordsBusy")()
	return f.passwordsBusy()
}

func (f *fakeConsole) StartSession(_ context.Context, ownerID string) (string, owner.Session, error) {
	defer f.record("StartSession")()
	return f.startSession(ownerID)
}

func (f *fakeConsole) Session(_ context.Context, id string) (owner.Session, owner.Owner, error) {
	defer f.record("Session")()
	return f.session(id)
}

func (f *fakeConsole) EndSession(_ context.Context, s owner.Session) error {
	defer f.record("EndSession")()
	return f.endSession(s)
}

func (f *fakeConsole) ProjectsOf(_ context.Context, ownerID string) ([]owner.ProjectRole, error) {
	defer f.record("ProjectsOf")()
	return f.projectsOf(ownerID)
}

func (f *fakeConsole) CreateProject(_ context.Context, o owner.Owner, name, donationWallet string) (project.Project, error) {
	defer f.record("CreateProject")()
	return f.createProject(o, name, donationWallet)
}

func (f *fakeConsole) Actor(_ context.Context, o owner.Owner, projectID string) (owner.Actor, error) {
	defer f.record("Actor")()
	return f.actor(o, projectID)
}

func (f *fakeConsole) UpdateProject(_ context.Context, a owner.Actor, name, donationWallet string) (project.Project, error) {
	defer f.record("UpdateProject")()
	return f.updateProject(a, name, donationWallet)
}

func (f *fakeConsole) Keys(_ context.Context, projectID string) ([]project.APIKey, error) {
	defer f.record("Keys")()
	return f.keys(projectID)
}

func (f *fakeConsole) Key(_ context.Context, projectID, keyID string) (project.APIKey, error) {
	defer f.record("Key")()
	return f.key(projectID, keyID)
}

func (f *fakeConsole) CreateKey(_ context.Context, a owner.Actor, name string) (string, project.APIKey, error) {
	defer f.record("CreateKey")()
	return f.createKey(a, name)
}

func (f *fakeConsole) RevokeKey(_ context.Context, a owner.Actor, keyID string) (project.APIKey, error) {
	defer f.record("RevokeKey")()
	return f.revokeKey(a, keyID)
}

func (f *fakeConsole) Members(_ context.Context, projectID string) ([]owner.Member, error) {
	defer f.record("Members")()
	return f.members(projectID)
}

func (f *fakeConsole) AddMember(_ context.Context, a owner.Actor, email string, role owner.Role) (owner.Owner, error) {
	defer f.record("AddMember")()
	return f.addMember(a, email, role)
}

func (f *fakeConsole) SetRole(_ context.Context, a owner.Actor, memberID string, role owner.Role) error {
	defer f.record("SetRole")()
	return f.setRole(a, memberID, role)
}

func (f *fakeConsole) RemoveMember(_ context.Context, a owner.Actor, memberID string) error {
	defer f.record("RemoveMember")()
	return f.removeMember(a, memberID)
}

func (f *fakeConsole) Origins(_ context.Context, projectID string) ([]project.Origin, error) {
	defer f.record("Origins")()
	return f.origins(projectID)
}

func (f *fakeConsole) AddOrigin(_ context.Context, a owner.Actor, origin string) (project.Origin, error) {
	defer f.record("AddOrigin")()
	return f.addOrigin(a, origin)
}

func (f *fakeConsole) RemoveOrigin(_ context.Context, a owner.Actor, origin string) error {
	defer f.record("RemoveOrigin")()
	return f.removeOrigin(a, origin)
}

func (f *fakeConsole) AuditLog(_ context.Context, projectID string, actions []owner.Action, limit int) ([]owner.AuditEntry, error) {
	defer f.record("AuditLog")()
	return f.auditLog(projectID, actions, limit)
}

func (f *fakeConsole) Stats(_ context.Context, projectID string) (ledger.Stats, error) {
	defer f.record("Stats")()
	return f.stats(projectID)
}

func (f *fakeConsole) Leaderboard(_ context.Context, projectID string, p ledger.FilterParams) ([]ledger.LeaderboardEntry, error) {
	defer f.record("Leaderboard")()
	return f.leaderboard(projectID, p)
}

func (f *fakeConsole) DailyTotals(_ context.Context, projectID string, from, to time.Time) ([]ledger.DailyTotal, error) {
	defer f.record("DailyTotals")()
	return f.dailyTotals(projectID, from, to)
}

func (f *fakeConsole) LatestEntries(_ context.Context, projectID string, limit int) ([]ledger.Entry, error) {
	defer f.record("LatestEntries")()
	return f.latest(projectID, limit)
}

// hasAction reports whether actions holds a.
func hasAction(actions []owner.Action, a owner.Action) bool {
	for _, x := range actions {
		if x == a {
			return true
		}
	}
	return false
}

// firstLine is s up to its first newline, for messages.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
