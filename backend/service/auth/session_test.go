package auth_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// pda is a program-derived address (seed "reclaim", the system program):
// off the curve, it cannot sign, so it is no wallet, though it is an
// address.
const pda = "GpBqpwPaBELPfcNnsxeoyKxfZ9LiKGcTHa3GEqDRKrfi"

// POST /v1/sessions' fields: what the caller must fix is a 400 naming the
// field by its JSON name, with a message that says what is wanted.
func TestNewSessionRequest(t *testing.T) {
	t.Parallel()
	ttl := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		name   string
		wallet string
		scopes []string
		ttl    *int64
		field  string // "" when valid
		msg    string // the message starts so
		want   auth.SessionRequest
	}{
		{name: "defaults", wallet: wallet,
			want: auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: 300 * time.Second}},
		{name: "one second", wallet: wallet, ttl: ttl(1), scopes: []string{"wallet:read"},
			want: auth.SessionRequest{Wallet: wallet, Scopes: []string{"wallet:read"}, TTL: time.Second}},
		{name: "an hour", wallet: wallet, ttl: ttl(3600),
			want: auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: time.Hour}},
		{name: "no wallet", field: "walletAddress", msg: "walletAddress: is required"},
		{name: "not base58", wallet: "0xdeadbeef", field: "walletAddress", msg: `walletAddress: "0xdeadbeef" is not a Solana address`},
		{name: "31 bytes", wallet: wallet[:len(wallet)-1], field: "walletAddress", msg: "walletAddress: "},
		{name: "a program-derived address", wallet: pda, field: "walletAddress", msg: "walletAddress: " + `"` + pda + `" is not an Ed25519 public key`},
		{name: "unknown scope", wallet: wallet, scopes: []string{"wallet:read", "admin"}, field: "scopes", msg: `scopes: unknown scope "admin": valid scopes are wallet:read, wallet:stream, transactions:build, transactions:submit`},
		{name: "ttl zero", wallet: wallet, ttl: ttl(0), field: "ttlSeconds", msg: "ttlSeconds: must be from 1 to 3600, got 0"},
		{name: "ttl negative", wallet: wallet, ttl: ttl(-5), field: "ttlSeconds", msg: "ttlSeconds: must be from 1 to 3600, got -5"},
		{name: "ttl over an hour", wallet: wallet, ttl: ttl(3601), field: "ttlSeconds", msg: "ttlSeconds: must be from 1 to 3600, got 3601"},
		{name: "ttl overflowing a duration", wallet: wallet, ttl: ttl(1 << 62), field: "ttlSeconds", msg: "ttlSeconds: must be from 1 to 3600"},
	} {
		got, err := auth.NewSessionRequest(c.wallet, c.scopes, c.ttl)
		if c.field == "" {
			if err != nil || got.Wallet != c.want.Wallet || got.TTL != c.want.TTL || !slices.Equal(got.Scopes, c.want.Scopes) {
				t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
			}
			continue
		}
		f, ok := fault.As(err, fault.KindInvalid)
		if !ok || f.Param() != c.field || !strings.HasPrefix(f.Error(), c.msg) {
			t.Errorf("%s: %v, want a 400 on %s starting %q", c.name, err, c.field, c.msg)
		}
	}
}

// Scopes keep the contract's order whatever the request's, once each; none
// asked is all four; the slice returned is the caller's, not AllScopes.
func TestParseScopes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   []string
		want []string
		err  string
	}{
		{in: nil, want: auth.AllScopes},
		{in: []string{}, want: auth.AllScopes},
		{in: []string{"transactions:submit", "wallet:read"}, want: []string{"wallet:read", "transactions:submit"}},
		{in: []string{"wallet:stream", "wallet:stream"}, want: []string{"wallet:stream"}},
		{in: []string{"WALLET:READ"}, err: `unknown scope "WALLET:READ"`},
		{in: []string{""}, err: `unknown scope ""`},
		{in: []string{"wallet:read", "wallet:*"}, err: `unknown scope "wallet:*"`},
	} {
		got, err := auth.ParseScopes(c.in)
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("%q: %v, %v; want %s", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	all, _ := auth.ParseScopes(nil)
	all[0] = "changed"
	if auth.AllScopes[0] != auth.ScopeWalletRead {
		t.Fatal("ParseScopes handed out AllScopes itself")
	}
}

// Addresses and wallets: an address is base58 of 32 bytes; a wallet is an
// address on the curve.
func TestAddressAndWallet(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s               string
		address, wallet bool
	}{
		{wallet, true, true},
		{pda, true, false},
		{solana.SystemProgramID.String(), true, true},
		{"", false, false},
		{"11111111111111111111111111111111111", false, false},
		{wallet + "1", false, false},
		{"O" + wallet[1:], false, false},
	} {
		if err := auth.ValidateAddress(c.s); (err == nil) != c.address {
			t.Errorf("ValidateAddress(%q): %v, want an address %v", c.s, err, c.address)
		}
		if err := auth.ValidateWallet(c.s); (err == nil) != c.wallet {
			t.Errorf("ValidateWallet(%q): %v, want a wallet %v", c.s, err, c.wallet)
		}
		if k, err := auth.ParseWallet(c.s); c.wallet && (err != nil || k.String() != c.s) {
			t.Errorf("ParseWallet(%q): %v, %v", c.s, k, err)
		}
	}
}

// Check is the credential table: which credential an operation takes, the
// scope a session needs, and the wallet a session is bound to.
func TestCheck(t *testing.T) {
	t.Parallel()
	const other = "So11111111111111111111111111111111111111112"
	key := auth.Principal{Kind: auth.KindAPIKey, ProjectID: "prj_1", APIKeyID: "key_1"}
	session := func(scopes ...string) auth.Principal {
		return auth.Principal{Kind: auth.KindSession, ProjectID: "prj_1", APIKeyID: "key_1", Wallet: wallet, Scopes: scopes}
	}
	read := auth.Requirement{APIKey: true, Session: true, Scope: auth.ScopeWalletRead, BindsWallet: true}
	stream := auth.Requirement{Session: true, Scope: auth.ScopeWalletStream, BindsWallet: true}
	build := auth.Requirement{APIKey: true, Session: true, Scope: auth.ScopeTransactionsBuild, OrScope: auth.ScopeTransactionsSubmit, BindsWallet: true}
	keyOnly := auth.Requirement{APIKey: true}
	anySession := auth.Requirement{Session: true}
	for _, c := range []struct {
		name   string
		p      auth.Principal
		req    auth.Requirement
		wallet string
		err    string // "" when allowed
	}{
		{"a key reads any wallet", key, read, other, ""},
		{"a key cannot stream", key, stream, wallet, "this operation takes a session token (Authorization: Bearer SESSION_TOKEN), not an API key"},
		{"a key makes sessions", key, keyOnly, "", ""},
		{"a session cannot make sessions", session(auth.AllScopes...), keyOnly, "", "this operation takes an API key in the X-Api-Key header, not a session token"},
		{"a session reads its wallet", session(auth.ScopeWalletRead), read, wallet, ""},
		{"a session reads no other wallet", session(auth.AllScopes...), read, other, "wallet mismatch: this session is bound to another wallet"},
		{"a session reads no wallet unnamed", session(auth.AllScopes...), read, "", "wallet mismatch: this session is bound to another wallet"},
		{"a session without the scope", session(auth.ScopeWalletStream), read, wallet, "session lacks scope wallet:read: create a session that grants it"},
		{"a session without scopes", session(), read, wallet, "session lacks scope wallet:read: create a session that grants it"},
		{"the scope is checked before the wallet", session(auth.ScopeWalletStream), read, other, "session lacks scope wallet:read: create a session that grants it"},
		{"build by its scope", session(auth.ScopeTransactionsBuild), build, wallet, ""},
		{"build by submit's scope", session(auth.ScopeTransactionsSubmit), build, wallet, ""},
		{"build with neither", session(auth.ScopeWalletRead, auth.ScopeWalletStream), build, wallet, "session lacks scope transactions:build or transactions:submit: create a session that grants one"},
		{"build on another wallet", session(auth.ScopeTransactionsBuild), build, other, "wallet mismatch: this session is bound to another wallet"},
		{"any session, any wallet", session(), anySession, other, ""},
		{"no credential", auth.Principal{}, read, wallet, "missing credentials: send X-Api-Key or Authorization: Bearer SESSION_TOKEN"},
		{"an unknown kind", auth.Principal{Kind: 9, ProjectID: "prj_1"}, read, wallet, "missing credentials: send X-Api-Key or Authorization: Bearer SESSION_TOKEN"},
	} {
		err := auth.Check(c.p, c.req, c.wallet)
		if c.err == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if f, ok := fault.As(err, fault.KindUnauthenticated); !ok || f.Error() != c.err {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

// sessionFixture is an authenticator over a store of key_1, and an issuer
// of the same keyring, on one clock.
type sessionFixture struct {
	a      *auth.Authenticator
	issuer *auth.Issuer
	store  *keyStore
	clock  *clocktest.Clock
	caller auth.Principal
}

func newSessions(t *testing.T) sessionFixture {
	t.Helper()
	clock := clocktest.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	keys := signing.NewKeyring(newKey(t))
	store := newKeyStore(project.APIKey{ID: "key_1", ProjectID: "prj_1"})
	return sessionFixture{
		a:      auth.NewAuthenticator(store, auth.NewHasher(pepper), keys, time.Minute, clock.Now),
		issuer: auth.NewIssuer(keys, clock.Now),
		store:  store, clock: clock,
		caller: auth.Principal{Kind: auth.KindAPIKey, ProjectID: "prj_1", APIKeyID: "key_1"},
	}
}

func (f sessionFixture) issue(t *testing.T, req auth.SessionRequest) (string, time.Time) {
	t.Helper()
	token, exp, err := f.issuer.Issue(f.caller, req)
	if err != nil {
		t.Fatal(err)
	}
	return token, exp
}

// A session minted by an API key carries the key's project and id, its
// wallet and scopes, and lives its ttl to the second: valid the second
// before its expiry, refused from it on.
func TestSessionMintedAndExpires(t *testing.T) {
	t.Parallel()
	f := newSessions(t)
	f.clock.Advance(400 * time.Millisecond) // expiries are whole seconds
	req := auth.SessionRequest{Wallet: wallet, Scopes: []string{auth.ScopeWalletRead}, TTL: 90 * time.Second}
	token, exp := f.issue(t, req)
	if want := f.clock.Now().Add(90 * time.Second).Truncate(time.Second); !exp.Equal(want) || exp.Location() != time.UTC {
		t.Fatalf("expires %v, want %v UTC", exp, want)
	}
	other, _ := f.issue(t, req)
	if other == token {
		t.Fatal("two sessions of the same request are one token")
	}
	ctx := context.Background()
	p, err := f.a.Authenticate(ctx, "", "Bearer "+token)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != auth.KindSession || p.ProjectID != "prj_1" || p.APIKeyID != "key_1" || p.Wallet != wallet ||
		!slices.Equal(p.Scopes, req.Scopes) || !p.ExpiresAt.Equal(exp) || len(p.SessionID) != 32 {
		t.Fatalf("principal %+v", p)
	}
	if q, _ := f.a.Session(ctx, other); q.SessionID == p.SessionID {
		t.Fatal("two sessions share a jti")
	}
	f.clock.Advance(exp.Sub(f.clock.Now()) - time.Nanosecond)
	if _, err := f.a.Session(ctx, token); err != nil {
		t.Fatalf("just before expiry: %v", err)
	}
	f.clock.Advance(time.Nanosecond)
	_, err = f.a.Session(ctx, token)
	if e, ok := fault.As(err, fault.KindUnauthenticated); !ok || e.Error() != "session expired: request a new session token from your backend" {
		t.Fatalf("at expiry: %v", err)
	}
}

// Only an API key mints sessions: a session cannot mint a longer-lived or
// wider one for itself.
func TestSessionMintsNoSession(t *testing.T) {
	t.Parallel()
	f := newSessions(t)
	token, _ := f.issue(t, auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: time.Minute})
	p, err := f.a.Session(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	for _, caller := range []auth.Principal{p, {}} {
		tok, _, err := f.issuer.Issue(caller, auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: time.Hour})
		if e, ok := fault.As(err, fault.KindUnauthenticated); !ok || e.Error() != "sessions are created with an API key" || tok != "" {
			t.Fatalf("kind %d minted %q, %v", caller.Kind, tok, err)
		}
	}
}

// The headers as a client sends them: one credential, a Bearer token
// (any case of the scheme, spaces around the token); anything else is a
// 401 that says what to send.
func TestAuthenticateHeaders(t *testing.T) {
	t.Parallel()
	f := newSessions(t)
	token, _ := f.issue(t, auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: time.Minute})
	const malformed = "malformed Authorization header: want Bearer SESSION_TOKEN"
	for _, c := range []struct {
		name, apiKey, authorization, err string
	}{
		{"bearer", "", "Bearer " + token, ""},
		{"lower case", "", "bearer " + token, ""},
		{"spaces around", "", "Bearer   " + token + " ", ""},
		{"nothing", "", "", "missing credentials: send X-Api-Key or Authorization: Bearer SESSION_TOKEN"},
		{"both", "ak_live_x", "Bearer " + token, "send either X-Api-Key or Authorization, not both"},
		{"no scheme", "", token, malformed},
		{"basic", "", "Basic " + token, malformed},
		{"bearer alone", "", "Bearer", malformed},
		{"bearer and spaces", "", "Bearer    ", malformed},
		{"not a token", "", "Bearer abc.def.ghi", "invalid session token"},
		{"a token cut short", "", "Bearer " + token[:len(token)-10], "invalid session token"},
		{"an API key as a bearer", "", "Bearer ak_live_" + strings.Repeat("1", 44), "invalid session token"},
	} {
		_, err := f.a.Authenticate(context.Background(), c.apiKey, c.authorization)
		if c.err == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if e, ok := fault.As(err, fault.KindUnauthenticated); !ok || e.Error() != c.err {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

// A session whose API key is gone or revoked stops within the check
// interval; a store that cannot answer is a 503, not a 401.
func TestSessionOfRevokedOrDeletedKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(*keyStore)
		kind   fault.Kind
		msg    string
	}{
		{"revoked", func(s *keyStore) {
			s.set(project.APIKey{ID: "key_1", ProjectID: "prj_1", RevokedAt: new(time.Unix(0, 0))})
		}, fault.KindUnauthenticated, "session revoked: the API key that created it was revoked"},
		{"deleted", func(s *keyStore) {
			s.mu.Lock()
			delete(s.keys, "key_1")
			s.mu.Unlock()
		}, fault.KindUnauthenticated, "invalid session token"},
		{"store down", func(s *keyStore) { s.fail(errors.New("timeout")) },
			fault.KindUnavailable, "a backing service did not answer in time; retry shortly"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newSessions(t)
			token, _ := f.issue(t, auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: time.Hour})
			if _, err := f.a.Session(context.Background(), token); err != nil {
				t.Fatal(err)
			}
			c.change(f.store)
			f.clock.Advance(time.Minute) // the check interval: the key is read again
			_, err := f.a.Session(context.Background(), token)
			if e, ok := fault.As(err, c.kind); !ok || e.Error() != c.msg {
				t.Fatalf("%v, want %s %q", err, c.kind, c.msg)
			}
		})
	}
}

// A session of a key this process never saw (minted on another instance)
// reads the key before it is let in; one of a key unknown is refused.
func TestSessionOfUnknownKey(t *testing.T) {
	t.Parallel()
	f := newSessions(t)
	f.caller.APIKeyID = "key_2"
	token, _ := f.issue(t, auth.SessionRequest{Wallet: wallet, Scopes: auth.AllScopes, TTL: time.Hour})
	_, err := f.a.Session(context.Background(), token)
	if e, ok := fault.As(err, fault.KindUnauthenticated); !ok || e.Error() != "invalid session token" {
		t.Fatalf("%v, want invalid session token", err)
	}
	if p, ok := f.a.SessionProject(token); !ok || p != "prj_1" {
		t.Fatalf("SessionProject: %q %v", p, ok)
	}
	if p, ok := f.a.SessionProject("garbage"); ok {
		t.Fatalf("SessionProject of garbage: %q", p)
	}
}
