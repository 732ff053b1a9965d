package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit/redistest"
	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// frozenLimiter is a real in-process limiter whose clock never moves, so a
// bucket empties after exactly burst requests.
func frozenLimiter(burst int) ratelimit.Limiter {
	c := clocktest.New(time.Time{})
	return ratelimit.NewMemory(1, burst, ratelimit.WithClock(c.Now))
}

func TestRateLimitPerProject(t *testing.T) {
	e := newEnv(t, frozenQuota(3))
	for i := 2; i >= 0; i-- {
		r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
		if r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(i) {
			t.Fatalf("headers %v", r.header)
		}
	}
	r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil)
	msg := r.restErr(429, "resource_exhausted")
	if !strings.Contains(msg, "rate limit exceeded for this project") || r.header.Get("Retry-After") != "1" || r.header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("429: %q, headers %v", msg, r.header)
	}
	// Every endpoint answers 429 on the spent bucket.
	e.rest("POST", "/v1/sessions", apiKey(e.apiKey), map[string]any{"walletAddress": newWallet()}).restErr(429, "resource_exhausted")
	e.rest("GET", "/v1/leaderboard", apiKey(e.apiKey), nil).restErr(429, "resource_exhausted")
	e.rest("GET", "/v1/wallet/"+newWallet()+"/assets", apiKey(e.apiKey), nil).restErr(429, "resource_exhausted")
	e.rest("GET", "/v1/wallet/"+newWallet()+"/summary", apiKey(e.apiKey), nil).restErr(429, "resource_exhausted")

	// Another key of the same project spends the same quota; another
	// tenant has its own.
	other, _ := e.newAPIKey(e.project.ID)
	e.rest("GET", "/v1/stats", apiKey(other), nil).restErr(429, "resource_exhausted")
	tenant := e.newProject("Other tenant", "")
	tenantKey, _ := e.newAPIKey(tenant.ID)
	e.rest("GET", "/v1/stats", apiKey(tenantKey), nil).status(200)

	// Connect and gRPC clients get their protocol's resource_exhausted.
	for name, opts := range map[string][]connect.ClientOption{"connect": nil, "grpc": {connect.WithGRPC()}} {
		_, err := e.connectClients(opts...).project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, apiKey(e.apiKey)))
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
			t.Fatalf("%s: %v", name, err)
		}
		if ce.Meta().Get("Retry-After") != "1" || ce.Meta().Get("RateLimit") != `"address";r=9999, "project";r=0;t=1` {
			t.Fatalf("%s 429 without Retry-After or RateLimit: %v", name, ce.Meta())
		}
	}
}

// The audit's row 5: a key holder minted sessions to multiply its budget
// (6 sessions got 629 requests where the key got 55). Every session of a
// project spends the project's one bucket, however many there are.
func TestRateLimitSessionsShareTheirProjectsQuota(t *testing.T) {
	const burst, sessions = 10, 4
	e := newEnv(t, frozenQuota(burst))
	tokens := make([]string, sessions)
	for i := range tokens {
		tokens[i] = e.session(newWallet()) // each spends one of the project's tokens
	}
	allowed := 0
	for round := range burst {
		for i, tok := range tokens {
			r := e.rest("GET", "/v1/stats", bearer(tok), nil)
			if r.code == 429 {
				continue
			}
			r.status(200)
			allowed++
			if want := strconv.Itoa(burst - sessions - allowed); r.header.Get("X-RateLimit-Limit") != "10" || r.header.Get("X-RateLimit-Remaining") != want {
				t.Fatalf("round %d, session %d: headers %v, want the project's bucket: limit 10, remaining %s", round, i, r.header, want)
			}
		}
	}
	if allowed != burst-sessions {
		t.Fatalf("%d sessions of one project got %d requests; want the %d the project had left after minting them", sessions, allowed, burst-sessions)
	}
	msg := e.rest("GET", "/v1/stats", bearer(tokens[0]), nil).restErr(429, "resource_exhausted")
	if !strings.Contains(msg, "for this project") {
		t.Fatalf("429 message %q does not say whose budget ran out", msg)
	}
	// The key itself has nothing left, and cannot mint its way out.
	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).restErr(429, "resource_exhausted")
	e.rest("POST", "/v1/sessions", apiKey(e.apiKey), map[string]any{"walletAddress": newWallet()}).restErr(429, "resource_exhausted")
}

// Issue 30, "the quota fits neither": an owner made 13 keys, each with its
// own bucket, so a project's limit was whatever it wanted. Five keys of one
// project, and their sessions, now get the project's quota in all.
func TestRateLimitManyKeysShareOneProjectQuota(t *testing.T) {
	const burst, nKeys = 12, 5
	refused := &refusalTally{}
	e := newEnv(t, frozenQuota(burst), withDeps(func(d *server.Deps) { d.Quotas.Refusals = refused }))
	keys := []string{e.apiKey}
	for len(keys) < nKeys {
		k, _ := e.newAPIKey(e.project.ID)
		keys = append(keys, k)
	}
	allowed := 0
	for range burst {
		for _, k := range keys {
			if r := e.rest("GET", "/v1/stats", apiKey(k), nil); r.code == 200 {
				allowed++
			} else {
				r.restErr(429, "resource_exhausted")
			}
		}
	}
	if allowed != burst {
		t.Fatalf("%d keys of one project got %d requests in all, want the project's quota of %d", nKeys, allowed, burst)
	}
	// Each refusal is counted for the project (the console's 24 hours).
	if got := refused.count(e.project.ID); got != burst*nKeys-burst {
		t.Fatalf("%d refusals counted for the project, want %d", got, burst*nKeys-burst)
	}
}

// refusalTally counts the refusals the server reports, by project.
type refusalTally struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *refusalTally) Refused(projectID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[projectID]++
}

func (r *refusalTally) count(projectID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[projectID]
}

// Issue 30: one looping wallet spent everybody's share. A wallet looping
// at ten times its share beside a second wallet of the same project: the
// second sees no refusal, the first is refused for its wallet, and its
// refusals spend nothing of the project's bucket.
func TestRateLimitOneWalletCannotStarveAnother(t *testing.T) {
	const (
		rps, burst = 100, 100 // the project's quota
		share      = 20       // percent: a wallet gets 20/s, burst 20
		step       = 100 * time.Millisecond
		steps      = 30 // three seconds of the clock
		loopPer    = 20 // the looper's requests a step: 200/s, ten times its share
	)
	clock := clocktest.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e := newEnv(t, withLimiter(ratelimit.NewMemory(rps, burst, ratelimit.WithClock(clock.Now))), withQuota(rps, burst, share))
	looper, quiet := e.session(newWallet()), e.session(newWallet())
	var loopOK, loopRefused, quietOK, quietRefused int
	var lastRefusal string
	for i := range steps {
		for range loopPer {
			r := e.rest("GET", "/v1/stats", bearer(looper), nil)
			if r.code == 200 {
				loopOK++
				continue
			}
			lastRefusal = r.restErr(429, "resource_exhausted")
			loopRefused++
		}
		// The quiet wallet: a quarter of its share, a request every 200 ms.
		if i%2 == 0 {
			if r := e.rest("GET", "/v1/stats", bearer(quiet), nil); r.code == 200 {
				quietOK++
			} else {
				quietRefused++
			}
		}
		clock.Advance(step)
	}
	t.Logf("looper: %d allowed, %d refused; quiet wallet: %d allowed, %d refused", loopOK, loopRefused, quietOK, quietRefused)
	if quietRefused != 0 {
		t.Fatalf("the quiet wallet was refused %d times of %d beside a looping wallet of its project", quietRefused, quietOK+quietRefused)
	}
	if loopRefused == 0 || !strings.Contains(lastRefusal, "for this wallet") {
		t.Fatalf("the looping wallet was refused %d times (last %q); want refusals for this wallet", loopRefused, lastRefusal)
	}
	// The looper got its share (burst 20, then 20/s), no more.
	if most := burst*share/100 + steps*rps*share/100/10; loopOK > most {
		t.Fatalf("the looping wallet got %d requests, more than its share's %d", loopOK, most)
	}
}

// A request the wallet's share refuses spends nothing of the project's
// bucket: the project's other wallets and its API key keep all of it.
func TestRateLimitWalletRefusalLeavesTheProjectUntouched(t *testing.T) {
	const burst, share = 40, 10 // a wallet's burst is 4
	e := newEnv(t, frozenQuota(burst), withQuota(1, burst, share))
	tok := e.session(newWallet()) // the project has 39 left
	for range 4 {
		e.rest("GET", "/v1/stats", bearer(tok), nil).status(200) // 35 left
	}
	for range 20 {
		r := e.rest("GET", "/v1/stats", bearer(tok), nil)
		if msg := r.restErr(429, "resource_exhausted"); !strings.Contains(msg, "rate limit exceeded for this wallet") {
			t.Fatalf("refusal %q", msg)
		}
		if got := r.header.Get("RateLimit"); got != `"address";r=9999, "wallet";r=0;t=10, "project";r=35;t=1` {
			t.Fatalf("RateLimit %q: want the wallet empty, the project untouched at 35", got)
		}
	}
	r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	if r.header.Get("X-RateLimit-Remaining") != "34" {
		t.Fatalf("after 20 refused wallet requests the project has %s left, want 34: headers %v", r.header.Get("X-RateLimit-Remaining"), r.header)
	}
}

// The answers carry RateLimit-Policy and RateLimit (draft-ietf-httpapi-
// ratelimit-headers-11) beside X-RateLimit-*, on REST, Connect and gRPC
// (as metadata) alike, and a browser may read them.
func TestRateLimitHeaders(t *testing.T) {
	e := newEnv(t, withIPLimiter(frozenLimiter(500)), withDeps(func(d *server.Deps) { d.IPLimits = ratelimit.Limits{RPS: 250, Burst: 500} }),
		frozenQuota(400), withQuota(200, 400, 5), withCORS("https://app.example"))
	tok := e.session(newWallet())
	r := e.rest("GET", "/v1/stats", func(h http.Header) { bearer(tok)(h); h.Set("Origin", "https://app.example") }, nil).status(200)
	want := map[string]string{
		"RateLimit-Policy":      `"address";q=500;w=2, "wallet";q=20;w=2, "project";q=400;w=2`,
		"RateLimit":             `"address";r=498, "wallet";r=19;t=1, "project";r=398;t=1`,
		"X-RateLimit-Limit":     "20",
		"X-RateLimit-Remaining": "19",
	}
	for k, v := range want {
		if got := r.header.Get(k); got != v {
			t.Errorf("REST %s: %q, want %q", k, got, v)
		}
	}
	if exp := r.header.Get("Access-Control-Expose-Headers"); !strings.Contains(exp, "Ratelimit-Policy") || !strings.Contains(exp, "Ratelimit,") && !strings.HasSuffix(exp, "Ratelimit") {
		t.Errorf("Access-Control-Expose-Headers %q does not expose RateLimit-Policy and RateLimit", exp)
	}
	for name, opts := range map[string][]connect.ClientOption{"connect": nil, "grpc": {connect.WithGRPC()}} {
		res, err := e.connectClients(opts...).project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, bearer(tok)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := res.Header().Get("RateLimit-Policy"); got != want["RateLimit-Policy"] {
			t.Errorf("%s RateLimit-Policy %q", name, got)
		}
		if got := res.Header().Get("RateLimit"); !strings.HasPrefix(got, `"address";r=`) || !strings.Contains(got, `"wallet";r=`) {
			t.Errorf("%s RateLimit %q", name, got)
		}
	}
}

// Every request first spends its client address's bucket, valid
// credentials or not; another address has its own.
func TestRateLimitPerClientIP(t *testing.T) {
	e := newEnv(t, withIPLimiter(frozenLimiter(3)))
	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	e.rest("GET", "/v1/stats", apiKey("ak_live_guess"), nil).restErr(401, "unauthenticated")
	e.rest("GET", "/v1/stats", noCred(), nil).restErr(401, "unauthenticated")
	for _, c := range []cred{noCred(), apiKey(e.apiKey)} {
		r := e.rest("GET", "/v1/stats", c, nil)
		msg := r.restErr(429, "resource_exhausted")
		if !strings.Contains(msg, "from this address") || r.header.Get("Retry-After") == "" || r.header.Get("X-RateLimit-Limit") != "3" {
			t.Fatalf("429: %q, headers %v", msg, r.header)
		}
	}
	e.from("127.0.0.2").rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
}

// keyReads counts the reads of API keys that requests make.
type keyReads struct {
	auth.Store
	n atomic.Int64
}

func (k *keyReads) APIKeyByHash(ctx context.Context, hash []byte) (project.APIKey, error) {
	k.n.Add(1)
	return k.Store.APIKeyByHash(ctx, hash)
}

func (k *keyReads) APIKeyByID(ctx context.Context, id string) (project.APIKey, error) {
	k.n.Add(1)
	return k.Store.APIKeyByID(ctx, id)
}

// The audit's row 10: a made-up API key cost an HMAC and a database read
// before the per-address limiter answered. A flood of random keys from one
// address is now refused with 429 once the address's bucket is spent, and
// reads nothing more.
func TestRateLimitKeyFloodStopsBeforeTheDatabase(t *testing.T) {
	const bound, flood = 5, 200
	store, keys, hasher := storagetest.SQLite(t), newKeyring(t), auth.NewHasher(bytes.Repeat([]byte{7}, 32))
	reads := &keyReads{Store: store}
	e := newEnv(t, withShared(store, keys, hasher), withIPLimiter(frozenLimiter(bound)), withDeps(func(d *server.Deps) {
		d.Auth = auth.NewAuthenticator(reads, hasher, keys, 2*time.Second, time.Now)
	}))
	codes := map[int]int{}
	for range flood {
		key, _, err := auth.NewAPIKey()
		if err != nil {
			t.Fatal(err)
		}
		codes[e.rest("GET", "/v1/stats", apiKey(key), nil).code]++
	}
	if codes[401] != bound || codes[429] != flood-bound || reads.n.Load() != bound {
		t.Fatalf("%d random keys: statuses %v, %d key reads; want %d 401s, the rest 429, %d reads", flood, codes, reads.n.Load(), bound, bound)
	}
	// The tenants of other addresses are not affected.
	e.from("127.0.0.2").rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
}

// The rate-limit headers report the bucket that will refuse first: the
// one with fewer requests left.
func TestRateLimitHeadersReportTheTighterBucket(t *testing.T) {
	tests := []struct {
		name                     string
		ipBurst, keyBurst        int
		wantLimit, wantRemaining string
	}{
		{"project tighter", 100, 5, "5", "4"},
		{"address tighter", 3, 50, "3", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withIPLimiter(frozenLimiter(tt.ipBurst)), frozenQuota(tt.keyBurst))
			r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
			if r.header.Get("X-RateLimit-Limit") != tt.wantLimit || r.header.Get("X-RateLimit-Remaining") != tt.wantRemaining {
				t.Fatalf("headers %v, want limit %s, remaining %s", r.header, tt.wantLimit, tt.wantRemaining)
			}
		})
	}
}

// failingLimiter stands for a Redis that does not answer.
type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string) (ratelimit.Result, error) {
	return ratelimit.Result{}, errors.New("redis: connection refused")
}

func (failingLimiter) Take(context.Context, []ratelimit.Bucket) ([]ratelimit.Result, error) {
	return nil, errors.New("redis: connection refused")
}

func TestRateLimiterOutageFailsOpen(t *testing.T) {
	e := newEnv(t, withLimiter(failingLimiter{}), withIPLimiter(failingLimiter{}))
	r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	if r.header.Get("X-RateLimit-Limit") != "" {
		t.Fatalf("no decision, yet headers %v", r.header)
	}
	e.rest("GET", "/v1/stats", noCred(), nil).restErr(401, "unauthenticated")
}

// With REDIS_URL the buckets live in Redis and every instance shares them:
// two instances, two keys of one project, one project bucket.
func TestRateLimitSharedThroughRedis(t *testing.T) {
	url := os.Getenv("RECLAIM_TEST_REDIS_URL")
	if url == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("RECLAIM_TEST_REDIS_URL is not set (CI=true: the Redis test must run; make test starts Redis)")
		}
		t.Skip("RECLAIM_TEST_REDIS_URL is not set: run through make test")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opt)
	t.Cleanup(func() { rc.Close() })
	prefix := "reclaim:test:" + storage.NewID("rl") + ":"
	a := newEnv(t, withLimiter(ratelimit.NewRedis(rc, 0.001, 3, ratelimit.WithPrefix(prefix))), withQuota(0.001, 3, 0))
	b := newEnv(t, withShared(a.store, a.keys, a.hasher), withLimiter(ratelimit.NewRedis(rc, 0.001, 3, ratelimit.WithPrefix(prefix))), withQuota(0.001, 3, 0))
	// Two keys of one project, on two instances: one quota.
	other, _ := a.newAPIKey(a.project.ID)
	a.rest("GET", "/v1/stats", apiKey(a.apiKey), nil).status(200)
	b.rest("GET", "/v1/stats", apiKey(other), nil).status(200)
	a.rest("GET", "/v1/stats", apiKey(a.apiKey), nil).status(200)
	r := b.rest("GET", "/v1/stats", apiKey(other), nil)
	r.restErr(429, "resource_exhausted")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

// The fault-injection run's finding: with Redis down, rate limiting failed
// open with no limit at all, and logged a warning per request. Now the
// limits hold per instance, in memory, and the outage is logged once.
func TestRateLimitRedisOutage(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "redis.sock")
	srv := redistest.Start(t, socket)
	rc := redis.NewClient(&redis.Options{Network: "unix", Addr: socket, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { rc.Close() })
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	const burst = 5
	limiter := ratelimit.NewFallback(ratelimit.NewRedis(rc, 0.001, burst, ratelimit.WithPrefix("reclaim:test:"+storage.NewID("rl")+":")),
		frozenLimiter(burst), ratelimit.NewBreaker(log))
	e := newEnv(t, withLimiter(limiter), withQuota(0.001, burst, 0), withDeps(func(d *server.Deps) { d.Log = log }))
	if r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200); r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(burst-1) {
		t.Fatalf("with Redis: headers %v", r.header)
	}

	srv.Stop(t)
	codes := map[int]int{}
	for range 40 {
		codes[e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).code]++
	}
	e.idle(t)
	if codes[200] != burst || codes[429] != 40-burst {
		t.Fatalf("40 requests with Redis down: %v; want %d allowed by this instance's memory bucket, the rest 429", codes, burst)
	}
	if n := logs.Count("rate limiter"); n != 1 {
		t.Fatalf("%d log lines about the limiter for one outage, want 1:\n%s", n, logs.String())
	}
}

// Behind a trusted balancer (RECLAIM_TRUSTED_PROXIES), each client without
// valid credentials has its own bucket, named by the balancer's
// X-Forwarded-For, over REST, Connect and the WebSocket stream alike; from
// a peer nobody trusts the header is ignored, so a client cannot make
// itself new buckets by writing one.
func TestRateLimitPerClientBehindTrustedProxy(t *testing.T) {
	guess := func(from string) cred {
		return func(h http.Header) { h.Set("X-Api-Key", "ak_live_guess"); h.Set("X-Forwarded-For", from) }
	}
	trusted := newEnv(t, withIPLimiter(frozenLimiter(2)), withDeps(func(d *server.Deps) {
		d.ClientIP = clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
	}))
	for range 2 {
		trusted.rest("GET", "/v1/stats", guess("203.0.113.9"), nil).restErr(401, "unauthenticated")
	}
	trusted.rest("GET", "/v1/stats", guess("203.0.113.9"), nil).restErr(429, "resource_exhausted")
	// What a client wrote left of the balancer's entry is not read.
	trusted.rest("GET", "/v1/stats", guess("6.6.6.6, 203.0.113.9"), nil).restErr(429, "resource_exhausted")
	_, err := trusted.connectClients().project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, guess("203.0.113.9")))
	if ce := new(connect.Error); !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
		t.Errorf("Connect from the limited client: %v, want resource_exhausted", err)
	}
	c := trusted.dialStream(t, newWallet(), "", &websocket.DialOptions{HTTPHeader: http.Header{"X-Forwarded-For": {"203.0.113.9"}}})
	if res := readAll(t, c); res.close.Code != 4429 {
		t.Errorf("the stream from the limited client: close %d %q, want 4429", res.close.Code, res.close.Reason)
	}
	trusted.rest("GET", "/v1/stats", guess("198.51.100.7"), nil).restErr(401, "unauthenticated")

	untrusted := newEnv(t, withIPLimiter(frozenLimiter(2)))
	for i := range 2 {
		untrusted.rest("GET", "/v1/stats", guess(fmt.Sprintf("192.0.2.%d", i)), nil).restErr(401, "unauthenticated")
	}
	untrusted.rest("GET", "/v1/stats", guess("192.0.2.99"), nil).restErr(429, "resource_exhausted")
}

// A quota set for a project (`reclaim project limits` calls SetQuota) is
// its alone: its keys get it, another project keeps the default.
func TestRateLimitProjectsOwnQuota(t *testing.T) {
	store := storagetest.SQLite(t)
	projects := project.NewService(store, nil, nil)
	e := newEnv(t, withStore(store), frozenQuota(2), withDeps(func(d *server.Deps) { d.Quotas.Source = projects }))
	if _, err := projects.SetQuota(context.Background(), e.project.ID, 1, 5); err != nil {
		t.Fatal(err)
	}
	other := e.newProject("Default tenant", "")
	otherKey, _ := e.newAPIKey(other.ID)
	for i := range 5 {
		r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
		if r.header.Get("X-RateLimit-Limit") != "5" || !strings.Contains(r.header.Get("RateLimit-Policy"), `"project";q=5;w=5`) {
			t.Fatalf("request %d: headers %v, want the project's own quota of 5", i+1, r.header)
		}
	}
	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).restErr(429, "resource_exhausted")
	for range 2 {
		e.rest("GET", "/v1/stats", apiKey(otherKey), nil).status(200)
	}
	if r := e.rest("GET", "/v1/stats", apiKey(otherKey), nil); r.code != 429 || r.header.Get("X-RateLimit-Limit") != "2" {
		t.Fatalf("the other project past the default of 2: %d %v", r.code, r.header)
	}
}
