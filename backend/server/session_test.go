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

func TestCreateSessionREST(t *testing.T) {
	e := newEnv(t)
	wallet := newWallet()

	t.Run("defaults", func(t *testing.T) {
		e := e.with(t)
		m := e.rest("POST", "/v1/sessions", apiKey(e.apiKey), map[string]any{"walletAddress": wallet}).status(200).json()
		if m["token"] == "" {
			t.Fatal("no token")
		}
		if got, want := m["expiresAt"], e.clock.Now().Add(300*time.Second).Format(time.RFC3339); got != want {
			t.Fatalf("expiresAt %v, want %v (default ttl 300 s)", got, want)
		}
		scopes := m["scopes"].([]any)
		want := []string{"wallet:read", "wallet:stream", "transactions:build", "transactions:submit"}
		if len(scopes) != len(want) {
			t.Fatalf("scopes %v, want all four", scopes)
		}
		for i := range want {
			if scopes[i] != want[i] {
				t.Fatalf("scopes %v, want %v", scopes, want)
			}
		}
		if len(m) != 3 {
			t.Fatalf("fields %v, want token, expiresAt, scopes", m)
		}
	})
	t.Run("ttl 3600 and chosen scopes", func(t *testing.T) {
		e := e.with(t)
		m := e.rest("POST", "/v1/sessions", apiKey(e.apiKey), map[string]any{
			"walletAddress": wallet, "ttlSeconds": 3600, "scopes": []string{"transactions:build", "wallet:read", "wallet:read"},
		}).status(200).json()
		if got, want := m["expiresAt"], e.clock.Now().Add(time.Hour).Format(time.RFC3339); got != want {
			t.Fatalf("expiresAt %v, want %v", got, want)
		}
		if s := m["scopes"].([]any); len(s) != 2 || s[0] != "wallet:read" || s[1] != "transactions:build" {
			t.Fatalf("scopes %v, want [wallet:read transactions:build]", s)
		}
	})

	bad := []struct {
		name string
		body any
		want string
	}{
		{"missing walletAddress", map[string]any{}, "walletAddress: is required"},
		{"walletAddress not base58", map[string]any{"walletAddress": "not-an-address!"}, "is not a Solana address"},
		{"walletAddress too short", map[string]any{"walletAddress": "3yZe7d"}, "is not a Solana address"},
		{"walletAddress off the curve", map[string]any{"walletAddress": offCurve(t)}, "off the curve"},
		{"unknown scope", map[string]any{"walletAddress": wallet, "scopes": []string{"wallet:write"}}, `unknown scope "wallet:write"`},
		{"ttl above 3600", map[string]any{"walletAddress": wallet, "ttlSeconds": 3601}, "ttlSeconds: must be from 1 to 3600, got 3601"},
		{"ttl zero", map[string]any{"walletAddress": wallet, "ttlSeconds": 0}, "ttlSeconds: must be from 1 to 3600, got 0"},
		{"ttl negative", map[string]any{"walletAddress": wallet, "ttlSeconds": -5}, "got -5"},
		{"ttl not a number", `{"walletAddress":"` + wallet + `","ttlSeconds":"soon"}`, "ttlSeconds"},
		{"unknown field", map[string]any{"walletAddress": wallet, "ttl": 60}, `unknown field "ttl"`},
		{"malformed JSON", `{"walletAddress":`, "request body is not valid JSON (line 1, column 18)"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			msg := e.rest("POST", "/v1/sessions", apiKey(e.apiKey), tc.body).restErr(400, "invalid_argument")
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q, want it to contain %q", msg, tc.want)
			}
		})
	}

	revokedKey, _ := e.newAPIKey(e.project.ID)
	e.revoke(revokedKey)
	denied := []struct {
		name string
		cred cred
		want string
	}{
		{"no credentials", noCred(), "missing credentials"},
		{"unknown key", apiKey("ak_live_" + strings.Repeat("1", 44)), "invalid API key"},
		{"garbage key", apiKey("hello"), "invalid API key"},
		{"revoked key", apiKey(revokedKey), "API key revoked"},
		{"session token instead of key", bearer(e.session(wallet)), "takes an API key"},
		{"both credentials", func(h http.Header) { apiKey(e.apiKey)(h); bearer("x")(h) }, "not both"},
	}
	for _, tc := range denied {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			msg := e.rest("POST", "/v1/sessions", tc.cred, map[string]any{"walletAddress": wallet}).restErr(401, "unauthenticated")
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q, want it to contain %q", msg, tc.want)
			}
		})
	}
}

func TestCreateSessionConnectAndGRPC(t *testing.T) {
	e := newEnv(t)
	wallet := newWallet()
	protocols := map[string][]connect.ClientOption{
		"connect":  nil,
		"grpc":     {connect.WithGRPC()},
		"grpc-web": {connect.WithGRPCWeb()},
	}
	for name, opts := range protocols {
		t.Run(name, func(t *testing.T) {
			e := e.with(t)
			c := e.connectClients(opts...)
			ttl := int64(60)
			resp, err := c.session.CreateSession(context.Background(), withCred(&reclaimv1.CreateSessionRequest{WalletAddress: wallet, TtlSeconds: &ttl}, apiKey(e.apiKey)))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Msg.GetExpiresAt() != e.clock.Now().Add(time.Minute).Format(time.RFC3339) || len(resp.Msg.GetScopes()) != 4 {
				t.Fatalf("session %v", resp.Msg)
			}
			// The token works on the other endpoints.
			if _, err := c.project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, bearer(resp.Msg.GetToken()))); err != nil {
				t.Fatalf("stats with the new session: %v", err)
			}
			_, err = c.session.CreateSession(context.Background(), withCred(&reclaimv1.CreateSessionRequest{WalletAddress: "nope"}, apiKey(e.apiKey)))
			if code := connectCode(t, err); code != connect.CodeInvalidArgument {
				t.Fatalf("bad wallet: code %v", code)
			}
			_, err = c.session.CreateSession(context.Background(), withCred(&reclaimv1.CreateSessionRequest{WalletAddress: wallet}, apiKey("ak_live_nope")))
			if code := connectCode(t, err); code != connect.CodeUnauthenticated {
				t.Fatalf("bad key: code %v", code)
			}
		})
	}
}
