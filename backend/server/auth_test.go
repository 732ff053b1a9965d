package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// wallet endpoint routes with a valid body, by the scope they need.
func walletCalls(wallet string) []struct {
	name, method, path, scope string
	body                      any
} {
	item := map[string]any{"type": "empty_account", "address": newWallet(), "action": "close"}
	return []struct {
		name, method, path, scope string
		body                      any
	}{
		{"assets", "GET", "/v1/wallet/" + wallet + "/assets", "wallet:read", nil},
		{"build", "POST", "/v1/wallet/" + wallet + "/transactions", "transactions:build", map[string]any{"items": []any{item}}},
		{"select all", "POST", "/v1/wallet/" + wallet + "/transactions", "transactions:build", map[string]any{"selectAll": true}},
		{"summary", "GET", "/v1/wallet/" + wallet + "/summary?donationPercentage=0.1", "transactions:build", nil},
		{"submit", "POST", "/v1/wallet/" + wallet + "/transactions/submit", "transactions:submit",
			map[string]any{"signed": []any{map[string]any{"transactionBase64": "AQID", "submissionTicket": "t"}}}},
	}
}

func TestWalletEndpointsAuthorisation(t *testing.T) {
	e := newEnv(t)
	wallet := newWallet()
	other := newWallet()
	revokedKey, _ := e.newAPIKey(e.project.ID)
	sessionOfRevoked := func() string {
		r := e.rest("POST", "/v1/sessions", apiKey(revokedKey), map[string]any{"walletAddress": wallet}).status(200)
		return r.json()["token"].(string)
	}()
	e.revoke(revokedKey)
	e.clock.Advance(3 * time.Second) // past the key cache: revocation is seen

	for _, call := range walletCalls(wallet) {
		t.Run(call.name, func(t *testing.T) {
			e := e.with(t)
			// With the right credentials the request passes authorisation and
			// validation: assets and build reach the (broken) cluster, submit
			// refuses the made-up ticket inside a 200.
			for _, c := range []cred{apiKey(e.apiKey), bearer(e.session(wallet, call.scope))} {
				r := e.rest(call.method, call.path, c, call.body)
				if call.name == "submit" {
					res := r.status(200).json()["results"].([]any)[0].(map[string]any)
					if res["status"] != "failed" || res["signature"] != nil || res["error"].(map[string]any)["code"] != "INVALID_TICKET" {
						t.Fatalf("submit result %v", res)
					}
					continue
				}
				r.restErr(503, "unavailable")
			}

			var otherScopes []string
			for _, s := range []string{"wallet:read", "wallet:stream", "transactions:build", "transactions:submit"} {
				if s != call.scope {
					otherScopes = append(otherScopes, s)
				}
			}
			cases := []struct {
				name string
				cred cred
				want string
			}{
				{"no credentials", noCred(), "missing credentials"},
				{"invalid key", apiKey("ak_live_x"), "invalid API key"},
				{"session lacking the scope", bearer(e.session(wallet, otherScopes...)), "session lacks scope " + call.scope},
				{"session of another wallet", bearer(e.session(other)), "wallet mismatch"},
				{"tampered token", bearer(tamper(e.session(wallet))), "invalid session token"},
				{"not a token", bearer("abc.def.ghi"), "invalid session token"},
				{"basic auth", header("Authorization", "Basic Zm9vOmJhcg=="), "malformed Authorization header"},
				{"session of a revoked key", bearer(sessionOfRevoked), "session revoked"},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					e := e.with(t)
					msg := e.rest(call.method, call.path, tc.cred, call.body).restErr(401, "unauthenticated")
					if !strings.Contains(msg, tc.want) {
						t.Fatalf("message %q, want %q", msg, tc.want)
					}
				})
			}
		})
	}
}

func tamper(token string) string {
	parts := strings.Split(token, ".")
	// Re-sign nothing: swap the claims for another session's claims.
	parts[1] = parts[1][:len(parts[1])-2] + "AA"
	return strings.Join(parts, ".")
}

func TestSessionExpiry(t *testing.T) {
	e := newEnv(t)
	wallet := newWallet()
	r := e.rest("POST", "/v1/sessions", apiKey(e.apiKey), map[string]any{"walletAddress": wallet, "ttlSeconds": 10}).status(200)
	token := r.json()["token"].(string)
	e.rest("GET", "/v1/stats", bearer(token), nil).status(200)
	e.clock.Advance(9 * time.Second)
	e.rest("GET", "/v1/stats", bearer(token), nil).status(200)
	e.clock.Advance(time.Second)
	msg := e.rest("GET", "/v1/stats", bearer(token), nil).restErr(401, "unauthenticated")
	if !strings.Contains(msg, "session expired") {
		t.Fatalf("message %q", msg)
	}
}

// Revoking a key ends its sessions on every instance within the key cache's
// lifetime: two servers share one database; the key is revoked through the
// store as the CLI or the console would.
func TestRevocationEndsSessionsOnEveryInstance(t *testing.T) {
	a := newEnv(t)
	b := newEnv(t, withShared(a.store, a.keys, a.hasher))
	wallet := newWallet()
	token := a.session(wallet)
	a.rest("GET", "/v1/stats", bearer(token), nil).status(200)
	b.rest("GET", "/v1/stats", bearer(token), nil).status(200)
	b.rest("GET", "/v1/stats", apiKey(a.apiKey), nil).status(200)

	a.revoke(a.apiKey)
	// An API key is looked up on every use: refused at once everywhere.
	a.rest("GET", "/v1/stats", apiKey(a.apiKey), nil).restErr(401, "unauthenticated")
	b.rest("GET", "/v1/stats", apiKey(a.apiKey), nil).restErr(401, "unauthenticated")
	// Sessions go within the cache lifetime (2 s here).
	a.clock.Advance(2 * time.Second)
	b.clock.Advance(2 * time.Second)
	for name, e := range map[string]*env{"a": a, "b": b} {
		msg := e.rest("GET", "/v1/stats", bearer(token), nil).restErr(401, "unauthenticated")
		if !strings.Contains(msg, "session revoked") {
			t.Fatalf("instance %s: %q", name, msg)
		}
	}
}

func TestStreamTakesOnlySessions(t *testing.T) {
	e := newEnv(t)
	wallet := newWallet()
	c := e.connectClients()
	call := func(cr cred, address string) error {
		stream, err := c.wallet.StreamWalletAssets(context.Background(), withCred(&reclaimv1.StreamWalletAssetsRequest{Address: address}, cr))
		if err != nil {
			return err
		}
		defer stream.Close()
		for stream.Receive() {
		}
		return stream.Err()
	}
	cases := []struct {
		name    string
		cred    cred
		address string
		code    connect.Code
		want    string
	}{
		{"api key", apiKey(e.apiKey), wallet, connect.CodeUnauthenticated, "takes a session token"},
		{"session without wallet:stream", bearer(e.session(wallet, "wallet:read")), wallet, connect.CodeUnauthenticated, "lacks scope wallet:stream"},
		{"session of another wallet", bearer(e.session(newWallet())), wallet, connect.CodeUnauthenticated, "wallet mismatch"},
		{"right session", bearer(e.session(wallet)), wallet, connect.CodeUnavailable, "did not answer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := call(tc.cred, tc.address)
			if code := connectCode(t, err); code != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %v %q", err, tc.code, tc.want)
			}
		})
	}
}

func TestStatsAndLeaderboardTakeAnySessionOfTheProject(t *testing.T) {
	e := newEnv(t)
	narrow := e.session(newWallet(), "wallet:read") // no extra scope needed
	for _, path := range []string{"/v1/stats", "/v1/leaderboard"} {
		e.rest("GET", path, bearer(narrow), nil).status(200)
		e.rest("GET", path, apiKey(e.apiKey), nil).status(200)
		e.rest("GET", path, noCred(), nil).restErr(401, "unauthenticated")
		e.rest("GET", path, apiKey("ak_live_revoked"), nil).restErr(401, "unauthenticated")
	}
	_ = http.MethodGet
}

// A key's use is recorded (for the console's "last used"), without the
// request waiting for that write.
func TestAPIKeyLastUsedIsRecorded(t *testing.T) {
	e := newEnv(t)
	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	deadline := time.Now().Add(5 * time.Second)
	for {
		k, err := e.store.APIKeyByID(context.Background(), e.keyID)
		if err != nil {
			t.Fatal(err)
		}
		if k.LastUsedAt != nil {
			if !k.LastUsedAt.Equal(e.clock.Now()) {
				t.Fatalf("last used %v, want %v", k.LastUsedAt, e.clock.Now())
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("last used not recorded within 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
