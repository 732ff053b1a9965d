package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"github.com/redis/go-redis/v9"

	"github.com/reclaim-sol/reclaim/backend/clientip"
	"github.com/reclaim-sol/reclaim/backend/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/storage"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// frozenLimiter is a real in-process limiter whose clock never moves, so a
// bucket empties after exactly burst requests.
func frozenLimiter(burst int) ratelimit.Limiter {
	c := &clock{}
	return ratelimit.NewMemory(1, burst, ratelimit.WithClock(c.Now))
}

func TestRateLimitPerCredential(t *testing.T) {
	e := newEnv(t, withLimiter(frozenLimiter(3)))
	for i := 2; i >= 0; i-- {
		r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
		if r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(i) {
			t.Fatalf("headers %v", r.header)
		}
	}
	r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil)
	msg := r.restErr(429, "resource_exhausted")
	if !strings.Contains(msg, "rate limit exceeded") || r.header.Get("Retry-After") != "1" || r.header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("429: %q, headers %v", msg, r.header)
	}
	// Every endpoint answers 429 on the spent bucket.
	e.rest("POST", "/v1/sessions", apiKey(e.apiKey), map[string]any{"walletAddress": newWallet()}).restErr(429, "resource_exhausted")
	e.rest("GET", "/v1/leaderboard", apiKey(e.apiKey), nil).restErr(429, "resource_exhausted")
	e.rest("GET", "/v1/wallet/"+newWallet()+"/assets", apiKey(e.apiKey), nil).restErr(429, "resource_exhausted")

	// Another key of the same project, or another tenant, is not throttled.
	other, _ := e.newAPIKey(e.project.ID)
	e.rest("GET", "/v1/stats", apiKey(other), nil).status(200)

	// Connect and gRPC clients get their protocol's resource_exhausted.
	for name, opts := range map[string][]connect.ClientOption{"connect": nil, "grpc": {connect.WithGRPC()}} {
		_, err := e.connectClients(opts...).project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, apiKey(e.apiKey)))
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "connect" && ce.Meta().Get("Retry-After") != "1" {
			t.Fatalf("connect 429 without Retry-After: %v", ce.Meta())
		}
	}
}

func TestRateLimitSessionsHaveTheirOwnBuckets(t *testing.T) {
	e := newEnv(t, withLimiter(frozenLimiter(2)))
	wallet := newWallet()
	s1 := e.session(wallet) // spends one of the key's two tokens
	e.rest("GET", "/v1/stats", bearer(s1), nil).status(200)
	e.rest("GET", "/v1/stats", bearer(s1), nil).status(200)
	e.rest("GET", "/v1/stats", bearer(s1), nil).restErr(429, "resource_exhausted")
	// The key still has one token: a session's flood did not spend it.
	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
}

// Requests without valid credentials are limited per client address, so key
// guessing is throttled while valid tenants behind the same address are not.
func TestRateLimitPerClientIPWithoutCredentials(t *testing.T) {
	e := newEnv(t, withLimiter(frozenLimiter(3)))
	for range 3 {
		e.rest("GET", "/v1/stats", apiKey("ak_live_guess"), nil).restErr(401, "unauthenticated")
	}
	r := e.rest("GET", "/v1/stats", noCred(), nil)
	r.restErr(429, "resource_exhausted")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
}

// failingLimiter stands for a Redis that does not answer.
type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string) (ratelimit.Result, error) {
	return ratelimit.Result{}, errors.New("redis: connection refused")
}

func TestRateLimiterOutageFailsOpen(t *testing.T) {
	e := newEnv(t, withLimiter(failingLimiter{}))
	r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	if r.header.Get("X-RateLimit-Limit") != "" {
		t.Fatalf("no decision, yet headers %v", r.header)
	}
	e.rest("GET", "/v1/stats", noCred(), nil).restErr(401, "unauthenticated")
}

// With REDIS_URL the buckets live in Redis and every instance shares them.
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
	a := newEnv(t, withLimiter(ratelimit.NewRedis(rc, 0.001, 3, ratelimit.WithPrefix(prefix))))
	b := newEnv(t, withShared(a.store, a.keys, a.hasher), withLimiter(ratelimit.NewRedis(rc, 0.001, 3, ratelimit.WithPrefix(prefix))))
	a.rest("GET", "/v1/stats", apiKey(a.apiKey), nil).status(200)
	b.rest("GET", "/v1/stats", apiKey(a.apiKey), nil).status(200)
	a.rest("GET", "/v1/stats", apiKey(a.apiKey), nil).status(200)
	r := b.rest("GET", "/v1/stats", apiKey(a.apiKey), nil)
	r.restErr(429, "resource_exhausted")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
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
	trusted := newEnv(t, withLimiter(frozenLimiter(2)), withDeps(func(d *server.Deps) {
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

	untrusted := newEnv(t, withLimiter(frozenLimiter(2)))
	for i := range 2 {
		untrusted.rest("GET", "/v1/stats", guess(fmt.Sprintf("192.0.2.%d", i)), nil).restErr(401, "unauthenticated")
	}
	untrusted.rest("GET", "/v1/stats", guess("192.0.2.99"), nil).restErr(429, "resource_exhausted")
}
