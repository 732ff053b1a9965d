package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A cluster that accepts the connection and never answers gives 503 within
// the RPC timeout, not a hang.
func TestClusterThatDoesNotAnswerGives503(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	e := newEnv(t, withRPC(hang.URL), withRPCTimeout(300*time.Millisecond))
	wallet := newWallet()
	for _, call := range walletCalls(wallet) {
		if call.name == "submit" {
			continue // needs no cluster to refuse a bad ticket
		}
		t.Run(call.name, func(t *testing.T) {
			e := e.with(t)
			msg := e.rest(call.method, call.path, apiKey(e.apiKey), call.body).restErr(503, "unavailable")
			if !strings.Contains(msg, "the Solana cluster did not answer") {
				t.Fatalf("message %q", msg)
			}
		})
	}
}

func TestClusterRefusingConnectionsGives503(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	e := newEnv(t, withRPC(url))
	e.rest("GET", "/v1/wallet/"+newWallet()+"/assets", apiKey(e.apiKey), nil).restErr(503, "unavailable")
}

func TestDatabaseDownGives503(t *testing.T) {
	e := newEnv(t)
	key := e.apiKey
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	msg := e.rest("GET", "/v1/stats", apiKey(key), nil).restErr(503, "unavailable")
	if strings.Contains(msg, "sql") {
		t.Fatalf("internal detail leaked: %q", msg)
	}
	r := e.rest("GET", "/readyz", noCred(), nil)
	if r.code != 503 || !strings.Contains(string(r.body), `"database":"unavailable"`) {
		t.Fatalf("readyz %d %s", r.code, r.body)
	}
	e.rest("GET", "/healthz", noCred(), nil).status(200) // alive all the same
}

func TestRESTErrorBodyOnEveryPath(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, method, path string
		body               any
		status             int
		code, want         string
	}{
		{"unknown route", "GET", "/v1/nothing", nil, 404, "not_found", "no route for GET /v1/nothing"},
		{"wrong method", "DELETE", "/v1/stats", nil, 405, "unimplemented", "DELETE /v1/stats: method not allowed"},
		{"malformed body", "POST", "/v1/sessions", `{"walletAddress": 12`, 400, "invalid_argument", "request body is not valid JSON (line 1, column 21)"},
		{"body of the wrong type", "POST", "/v1/sessions", `[1,2]`, 400, "invalid_argument", ""},
		{"query value of the wrong type", "GET", "/v1/leaderboard?limit=-3", nil, 400, "invalid_argument", "limit"},
		{"unknown query parameter", "GET", "/v1/leaderboard?colour=red", nil, 400, "invalid_argument", `unknown query parameter "colour"`},
		{"body too large", "POST", "/v1/sessions", `{"walletAddress":"` + strings.Repeat("a", 2<<20) + `"}`, 0, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			r := e.rest(tc.method, tc.path, apiKey(e.apiKey), tc.body)
			if tc.status == 0 {
				if r.code < 400 || r.code >= 500 {
					t.Fatalf("status %d", r.code)
				}
				r.restErr(r.code, r.json()["code"].(string))
				return
			}
			msg := r.restErr(tc.status, tc.code)
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q, want %q", msg, tc.want)
			}
		})
	}
}

func TestHealthz(t *testing.T) {
	e := newEnv(t)
	r := e.rest("GET", "/healthz", noCred(), nil).status(200)
	if r.json()["status"] != "ok" {
		t.Fatalf("healthz %s", r.body)
	}
}
