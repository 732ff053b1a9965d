package server_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/cnft"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/service/wallet"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
	"github.com/reclaim-sol/reclaim/backend/upstream/das"
	"github.com/reclaim-sol/reclaim/gen/openapi/openapitest"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// brokenCluster is a JSON-RPC endpoint that answers every call with an
// internal error: the wallet endpoints then stop at the cluster step (503).
func brokenCluster(t testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"node is unhealthy"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// env is one running server over real storage, with what tests need to
// reach it and to seed it.
type env struct {
	t       testing.TB
	srv     *httptest.Server
	store   *storage.Store
	hasher  *auth.Hasher
	keys    *signing.Keyring
	clock   *clocktest.Clock
	project project.Project
	apiKey  string
	keyID   string
	http    *http.Client
	life    *server.Lifecycle
}

// idle waits until the server has finished with every request, its access
// log line, metrics and spans included: a client has its answer a moment
// before.
func (e *env) idle(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.life.Wait(ctx); err != nil {
		t.Fatalf("requests still being served: %v", err)
	}
}

type option func(*options)

type options struct {
	limiter ratelimit.Limiter
	// quotas sizes the projects' and wallets' buckets (1000/s, burst 1000,
	// no wallet share unless set).
	quotas server.Quotas
	// ipLimiter holds the client addresses' buckets (generous unless set).
	ipLimiter ratelimit.Limiter
	rpcURL    string
	// rpcTimeout is the server's RPCTimeout (10 s unless set: a fake
	// cluster that answers must never be cut short by a busy machine; a
	// test of the timeout itself sets it short).
	rpcTimeout time.Duration
	keyTTL     time.Duration
	store      *storage.Store
	keys       *signing.Keyring
	hasher     *auth.Hasher
	// dasURL, when set, is the DAS endpoint the builder plans cNFT burns
	// with, as serve wires DAS_RPC_URL.
	dasURL string
	// relayStore, when set, wraps the store the relay writes through.
	relayStore func(relay.Store) relay.Store
	// cors, when set, turns on the CORS policy with these default origins
	// and the projects' own, read again on every request.
	cors []string
	// deps, when set, changes the server's dependencies (operations tests).
	deps func(*server.Deps)
	// poller, when set, runs a txbuild.Poller for the builds.
	poller bool
	// refs, when set, draws the builds' reference keys (golden answers:
	// a seeded reader).
	refs io.Reader
}

func withLimiter(l ratelimit.Limiter) option { return func(o *options) { o.limiter = l } }

// withQuota sizes every project's bucket (burst requests at once, rps a
// second) and gives each wallet walletShare percent of it (0: none).
func withQuota(rps float64, burst, walletShare int) option {
	return func(o *options) {
		o.quotas.Default, o.quotas.WalletShare = ratelimit.Limits{RPS: rps, Burst: burst}, walletShare
	}
}

// frozenQuota gives every project a bucket of burst requests that never
// refills (a frozen clock) and no wallet share: it empties after exactly
// burst requests of all the project's keys and sessions.
func frozenQuota(burst int) option {
	return func(o *options) {
		o.limiter = frozenLimiter(burst)
		o.quotas.Default, o.quotas.WalletShare = ratelimit.Limits{RPS: 1, Burst: burst}, 0
	}
}
func withIPLimiter(l ratelimit.Limiter) option {
	return func(o *options) { o.ipLimiter = l }
}
func withRPC(url string) option             { return func(o *options) { o.rpcURL = url } }
func withRPCTimeout(d time.Duration) option { return func(o *options) { o.rpcTimeout = d } }
func withDAS(url string) option             { return func(o *options) { o.dasURL = url } }
func withCORS(defaults ...string) option {
	return func(o *options) { o.cors = append([]string{}, defaults...) }
}
func withRelayStore(wrap func(relay.Store) relay.Store) option {
	return func(o *options) { o.relayStore = wrap }
}
func withDeps(f func(*server.Deps)) option { return func(o *options) { o.deps = f } }
func withShared(store *storage.Store, keys *signing.Keyring, hasher *auth.Hasher) option {
	return func(o *options) { o.store, o.keys, o.hasher = store, keys, hasher }
}

// withPoller keeps the builds' blockhash and fees fresh in the
// background, as `reclaim serve` does by default.
func withPoller() option { return func(o *options) { o.poller = true } }

// withReferences draws the builds' reference keys from r.
func withReferences(r io.Reader) option { return func(o *options) { o.refs = r } }

// startPoller polls rc once, then every second until the test ends; the
// cleanup waits for it to stop.
func startPoller(t testing.TB, rc *rpc.Client) *txbuild.Poller {
	t.Helper()
	p := txbuild.NewPoller(rc, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	p.Poll(ctx)
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

// withStore serves from store (with keys of its own).
func withStore(store *storage.Store) option { return func(o *options) { o.store = store } }

// newEnv starts a server on SQLite with one project ("Acme", with a donation
// wallet) and one API key.
func newEnv(t testing.TB, opts ...option) *env {
	t.Helper()
	o := options{
		limiter:    ratelimit.NewMemory(1000, 1000),
		quotas:     server.Quotas{Default: ratelimit.Limits{RPS: 1000, Burst: 1000}},
		ipLimiter:  ratelimit.NewMemory(10000, 10000),
		keyTTL:     2 * time.Second,
		rpcTimeout: 10 * time.Second,
	}
	for _, f := range opts {
		f(&o)
	}
	if o.store == nil {
		o.store = storagetest.SQLite(t)
	}
	if o.keys == nil {
		o.keys = newKeyring(t)
		o.hasher = auth.NewHasher(bytes.Repeat([]byte{7}, 32))
	}
	if o.rpcURL == "" {
		o.rpcURL = brokenCluster(t)
	}
	clk := clocktest.New(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	rc := rpc.New(o.rpcURL)
	tickets := ticket.NewIssuer(o.keys)
	var relayStore relay.Store = o.store
	if o.relayStore != nil {
		relayStore = o.relayStore(o.store)
	}
	var buildOpts []txbuild.Option
	if o.dasURL != "" {
		buildOpts = append(buildOpts, txbuild.WithCNFTPlanner(cnft.NewPlanner(das.New(o.dasURL, nil, das.Options{}), rc)))
	}
	if o.poller {
		buildOpts = append(buildOpts, txbuild.WithPoller(startPoller(t, rc)))
	}
	if o.refs != nil {
		buildOpts = append(buildOpts, txbuild.WithReferenceSource(o.refs))
	}
	d := server.Deps{
		Auth:      auth.NewAuthenticator(o.store, o.hasher, o.keys, o.keyTTL, clk.Now),
		Issuer:    auth.NewIssuer(o.keys, clk.Now),
		Limiter:   o.limiter,
		Quotas:    o.quotas,
		IPLimiter: o.ipLimiter,
		Ledger:    ledger.NewService(o.store),
		Wallet: wallet.New(wallet.Deps{
			Discoverer: assets.NewDiscoverer(rc, nil), Builder: txbuild.NewBuilder(rc, buildOpts...),
			Tickets: tickets, Relay: relay.New(rc, relayStore, tickets, clk.Now), Projects: o.store,
			TicketTTL: time.Minute, RPCTimeout: o.rpcTimeout, DBTimeout: 2 * time.Second, Now: clk.Now,
		}),
		Ping:        o.store.Ready,
		Idempotency: idempotency.NewService(o.store, slog.New(slog.DiscardHandler), time.Now),
		CORS:        corsOf(o),
		Log:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		DBTimeout:   2 * time.Second,
	}
	if o.deps != nil {
		o.deps(&d)
	}
	if d.Lifecycle == nil {
		d.Lifecycle = server.NewLifecycle()
	}
	h, err := server.New(d)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.BaseContext = d.Lifecycle.BaseContext
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &protocols
	srv.Start()
	t.Cleanup(srv.Close)

	e := &env{t: t, srv: srv, store: o.store, hasher: o.hasher, keys: o.keys, clock: clk, life: d.Lifecycle}
	// Every REST answer the tests read must be one the OpenAPI document
	// describes.
	e.http = &http.Client{Transport: openapitest.Transport(h2cTransport())}
	e.project = e.newProject("Acme", newWallet())
	e.apiKey, e.keyID = e.newAPIKey(e.project.ID)
	return e
}

func corsOf(o options) server.CORS {
	if o.cors == nil {
		return server.CORS{}
	}
	return server.CORS{Default: o.cors, Origins: o.store, Refresh: time.Nanosecond}
}

// h2cTransport speaks HTTP/1.1 and HTTP/2 without TLS, as the server does.
func h2cTransport() *http.Transport {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &http.Transport{Protocols: &p, DialContext: (&net.Dialer{}).DialContext, TLSClientConfig: &tls.Config{}}
}

// h2Only forces HTTP/2 (gRPC needs it).
func h2Only() *http.Transport {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Transport{Protocols: &p}
}

// from returns the env whose REST requests come from the loopback address
// addr (127.0.0.2...), another client address than 127.0.0.1.
func (e *env) from(addr string) *env {
	tr := h2cTransport()
	tr.DialContext = (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}}).DialContext
	c := *e
	c.http = &http.Client{Transport: openapitest.Transport(tr)}
	return &c
}

// newKeyring returns a keyring signing with a fresh key.
func newKeyring(t testing.TB) *signing.Keyring {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signing.NewKeyring(priv)
}

// with returns the env reporting to t (a subtest's).
func (e *env) with(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

func (e *env) newProject(name, donationWallet string) project.Project {
	e.t.Helper()
	p, err := e.store.CreateProject(context.Background(), project.Project{
		ID: storage.NewID("prj"), Name: name, DonationWallet: donationWallet, CreatedAt: e.clock.Now(),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) newAPIKey(projectID string) (key, id string) {
	e.t.Helper()
	key, prefix, err := auth.NewAPIKey()
	if err != nil {
		e.t.Fatal(err)
	}
	k, err := e.store.CreateAPIKey(context.Background(), project.APIKey{
		ID: storage.NewID("key"), ProjectID: projectID, Name: "test", Prefix: prefix,
		Hash: e.hasher.Hash(key), CreatedAt: e.clock.Now(),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return key, k.ID
}

func (e *env) revoke(key string) {
	e.t.Helper()
	if _, err := e.store.RevokeAPIKey(context.Background(), e.hasher.Hash(key), e.clock.Now()); err != nil {
		e.t.Fatal(err)
	}
}

// newWallet returns a fresh on-curve wallet address.
func newWallet() string {
	return solana.NewWallet().PublicKey().String()
}

// offCurve is a program-derived address: valid base58, not a wallet.
func offCurve(t *testing.T) string {
	t.Helper()
	pda, _, err := solana.FindProgramAddress([][]byte{[]byte("x")}, solana.TokenProgramID)
	if err != nil {
		t.Fatal(err)
	}
	return pda.String()
}

// session mints a session token over REST.
func (e *env) session(wallet string, scopes ...string) string {
	e.t.Helper()
	body := map[string]any{"walletAddress": wallet}
	if scopes != nil {
		body["scopes"] = scopes
	}
	r := e.rest("POST", "/v1/sessions", apiKey(e.apiKey), body)
	r.status(200)
	return r.json()["token"].(string)
}

// cred is a credential header.
type cred func(h http.Header)

func apiKey(k string) cred    { return func(h http.Header) { h.Set("X-Api-Key", k) } }
func bearer(t string) cred    { return func(h http.Header) { h.Set("Authorization", "Bearer "+t) } }
func noCred() cred            { return func(http.Header) {} }
func header(k, v string) cred { return func(h http.Header) { h.Set(k, v) } }

// response is a REST response, read whole.
type response struct {
	t      testing.TB
	code   int
	header http.Header
	body   []byte
}

// rest sends a REST request; body is marshalled as JSON unless it is a string.
func (e *env) rest(method, path string, c cred, body any) *response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c(req.Header)
	resp, err := e.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return &response{t: e.t, code: resp.StatusCode, header: resp.Header, body: b}
}

func (r *response) status(want int) *response {
	r.t.Helper()
	if r.code != want {
		r.t.Fatalf("status %d, want %d; body %s", r.code, want, r.body)
	}
	return r
}

func (r *response) json() map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		r.t.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

// restErr checks the REST error body shape and returns its message.
func (r *response) restErr(status int, code string) string {
	r.t.Helper()
	r.status(status)
	var body struct {
		StatusCode int    `json:"statusCode"`
		Error      string `json:"error"`
		Code       string `json:"code"`
		Message    string `json:"message"`
		Param      string `json:"param"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		r.t.Fatalf("error body %s: %v", r.body, err)
	}
	if body.StatusCode != status || body.Error != http.StatusText(status) || body.Code != code || body.Message == "" {
		r.t.Fatalf("error body %s, want statusCode %d, error %q, code %q and a message", r.body, status, http.StatusText(status), code)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		r.t.Fatalf("error Content-Type %q", ct)
	}
	return body.Message
}

// clients are the generated Connect clients over one protocol.
type clients struct {
	session reclaimv1connect.SessionServiceClient
	wallet  reclaimv1connect.WalletServiceClient
	project reclaimv1connect.ProjectServiceClient
}

func (e *env) connectClients(opts ...connect.ClientOption) clients {
	hc := &http.Client{Transport: h2cTransport()}
	if len(opts) > 0 {
		hc = &http.Client{Transport: h2Only()}
	}
	return clients{
		session: reclaimv1connect.NewSessionServiceClient(hc, e.srv.URL, opts...),
		wallet:  reclaimv1connect.NewWalletServiceClient(hc, e.srv.URL, opts...),
		project: reclaimv1connect.NewProjectServiceClient(hc, e.srv.URL, opts...),
	}
}

// withCred puts a credential on a Connect request.
func withCred[T any](msg *T, c cred) *connect.Request[T] {
	req := connect.NewRequest(msg)
	c(req.Header())
	return req
}

func connectCode(t *testing.T, err error) connect.Code {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("want a connect error, got %v", err)
	}
	return ce.Code()
}
