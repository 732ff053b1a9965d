package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/reclaim-sol/reclaim/gen/openapi"
)

// The rules the server enforces are in the OpenAPI document: for each
// request the findings named, the document forbids what the real server
// refuses with 400, and allows what it takes (a refusal for another reason,
// such as the cluster not answering, is not a 400).
func TestDocumentStatesTheRules(t *testing.T) {
	e := newEnv(t)
	router := documentRouter(t)
	w := newWallet()
	sig := solana.Signature{1}.String()
	item := map[string]any{"type": "empty_account", "address": newWallet(), "action": "close"}
	signed := func(fields ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(fields); i += 2 {
			m[fields[i]] = fields[i+1]
		}
		return map[string]any{"signed": []any{m}}
	}
	cases := []struct {
		name, method, path string
		body               any
		allowed            bool
	}{
		{"session without walletAddress", "POST", "/v1/sessions", map[string]any{}, false},
		{"session with an unknown scope", "POST", "/v1/sessions", map[string]any{"walletAddress": w, "scopes": []any{"admin"}}, false},
		{"session ttl 0", "POST", "/v1/sessions", map[string]any{"walletAddress": w, "ttlSeconds": 0}, false},
		{"session ttl 3601", "POST", "/v1/sessions", map[string]any{"walletAddress": w, "ttlSeconds": 3601}, false},
		{"session", "POST", "/v1/sessions", map[string]any{"walletAddress": w, "scopes": []any{"wallet:read"}, "ttlSeconds": 60}, true},
		{"status without a signature", "GET", "/v1/wallet/" + w + "/submissions", nil, false},
		{"status waitSeconds 31", "GET", "/v1/wallet/" + w + "/submissions?signature=" + sig + "&waitSeconds=31", nil, false},
		{"status waitSeconds -1", "GET", "/v1/wallet/" + w + "/submissions?signature=" + sig + "&waitSeconds=-1", nil, false},
		{"status signature not base58", "GET", "/v1/wallet/" + w + "/submissions?signature=0OIl", nil, false},
		{"status", "GET", "/v1/wallet/" + w + "/submissions?signature=" + sig + "&waitSeconds=0", nil, true},
		{"assets limit 0", "GET", "/v1/wallet/" + w + "/assets?limit=0", nil, false},
		{"assets limit 1001", "GET", "/v1/wallet/" + w + "/assets?limit=1001", nil, false},
		{"assets address not base58", "GET", "/v1/wallet/0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl/assets", nil, false},
		{"assets limit 1000", "GET", "/v1/wallet/" + w + "/assets?limit=1000", nil, true},
		{"leaderboard offset 1000001", "GET", "/v1/leaderboard?offset=1000001", nil, false},
		{"leaderboard offset -1", "GET", "/v1/leaderboard?offset=-1", nil, false},
		{"leaderboard transactionType", "GET", "/v1/leaderboard?transactionType=mint", nil, false},
		{"leaderboard payer", "GET", "/v1/leaderboard?payer=nope", nil, false},
		{"leaderboard", "GET", "/v1/leaderboard?transactionType=nft_burn&limit=1000&offset=1000000", nil, true},
		{"build selectAll false", "POST", "/v1/wallet/" + w + "/transactions", map[string]any{"selectAll": false}, false},
		{"build no items", "POST", "/v1/wallet/" + w + "/transactions", map[string]any{"items": []any{}}, false},
		{"build items and selectAll", "POST", "/v1/wallet/" + w + "/transactions", map[string]any{"items": []any{item}, "selectAll": true}, false},
		{"build unknown level", "POST", "/v1/wallet/" + w + "/transactions", map[string]any{"selectAll": true, "priorityFeeLevel": "ultra"}, false},
		{"build donation 1.5", "POST", "/v1/wallet/" + w + "/transactions", map[string]any{"selectAll": true, "donationPercentage": 1.5}, false},
		{"build unknown type", "POST", "/v1/wallet/" + w + "/transactions", map[string]any{"items": []any{map[string]any{"type": "coin", "address": w, "action": "close"}}}, false},
		{"build items, selectAll false", "POST", "/v1/wallet/" + w + "/transactions", map[string]any{"items": []any{item}, "selectAll": false}, true},
		{"build selectAll, no items", "POST", "/v1/wallet/" + w + "/transactions", map[string]any{"selectAll": true, "items": []any{}}, true},
		{"submit nothing", "POST", "/v1/wallet/" + w + "/transactions/submit", map[string]any{"signed": []any{}}, false},
		{"submit without a ticket", "POST", "/v1/wallet/" + w + "/transactions/submit", signed("transactionBase64", "AQID"), false},
		{"submit neither", "POST", "/v1/wallet/" + w + "/transactions/submit", signed("submissionTicket", "t"), false},
		{"submit both", "POST", "/v1/wallet/" + w + "/transactions/submit", signed("submissionTicket", "t", "transactionBase64", "AQID", "signature", sig), false},
		{"submit a transaction", "POST", "/v1/wallet/" + w + "/transactions/submit", signed("submissionTicket", "t", "transactionBase64", "AQID"), true},
		{"submit a signature", "POST", "/v1/wallet/" + w + "/transactions/submit", signed("submissionTicket", "t", "signature", sig), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			if tc.body != nil {
				body, _ = json.Marshal(tc.body)
			}
			req, err := http.NewRequestWithContext(context.Background(), tc.method, "http://localhost"+tc.path, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			verdict := documentAllows(router, req)
			if allowed := verdict == nil; allowed != tc.allowed {
				t.Errorf("the document allows it: %v, want %v (%v)", allowed, tc.allowed, verdict)
			}
			var in any
			if tc.body != nil {
				in = tc.body
			}
			r := e.with(t).rest(tc.method, tc.path, apiKey(e.apiKey), in)
			if refused := r.code == http.StatusBadRequest; refused == tc.allowed {
				t.Errorf("the server answered %d %s", r.code, r.body)
			}
		})
	}
}

// The document allows the Idempotency-Keys the server takes, and forbids
// those it refuses: a validator that decodes a header by its anyOf
// branches' types (kin-openapi, oapi-codegen's middleware) refused every
// key while the branches named none.
func TestDocumentStatesIdempotencyKeys(t *testing.T) {
	e := newEnv(t)
	router := documentRouter(t)
	path := "/v1/wallet/" + newWallet() + "/transactions"
	for _, tc := range []struct {
		key     string
		allowed bool
	}{
		{"k", true},
		{"0b8f4d4e-6c2a-4f57-9d0e-3f1c2b7a9e11", true},
		{`"a quoted key"`, true},
		{strings.Repeat("k", 255), true},
		{strings.Repeat("k", 256), false},
		{"a key", false},
		{`"unterminated`, false},
	} {
		t.Run(tc.key[:min(len(tc.key), 20)], func(t *testing.T) {
			req, err := http.NewRequestWithContext(context.Background(), "POST", "http://localhost"+path, strings.NewReader(`{"selectAll":true}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", tc.key)
			verdict := documentAllows(router, req)
			if allowed := verdict == nil; allowed != tc.allowed {
				t.Errorf("the document allows it: %v, want %v (%v)", allowed, tc.allowed, verdict)
			}
			r := e.with(t).rest("POST", path, func(h http.Header) { apiKey(e.apiKey)(h); h.Set("Idempotency-Key", tc.key) }, map[string]any{"selectAll": true})
			if refused := r.code == http.StatusBadRequest; refused == tc.allowed {
				t.Errorf("the server answered %d %s", r.code, r.body)
			}
		})
	}
}

// documentRouter finds the operations of the embedded OpenAPI document.
func documentRouter(t testing.TB) routers.Router {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return router
}

// documentAllows asks the document about req, as a generated client's or a
// proxy's validator would: nil when it allows it, else why not (no
// operation, or a parameter or the body its schema refuses).
func documentAllows(router routers.Router, req *http.Request) error {
	route, params, err := router.FindRoute(req)
	if err != nil {
		return err
	}
	return openapi3filter.ValidateRequest(req.Context(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	})
}

// waitSeconds=-1 and waitSeconds=31 are told the same thing, over REST and
// over Connect: one message per range.
func TestOneMessagePerRangeOnEveryWire(t *testing.T) {
	e := newEnv(t)
	w, sig := newWallet(), solana.Signature{1}.String()
	for _, wait := range []string{"-1", "31", "4294967296"} {
		q := url.Values{"signature": {sig}, "waitSeconds": {wait}}
		msg := e.rest("GET", "/v1/wallet/"+w+"/submissions?"+q.Encode(), apiKey(e.apiKey), nil).restErr(400, "invalid_argument")
		if want := "waitSeconds: must be from 0 to 30, got " + wait; msg != want {
			t.Errorf("REST waitSeconds=%s: %q, want %q", wait, msg, want)
		}
		body := `{"address":"` + w + `","signature":["` + sig + `"],"waitSeconds":` + wait + `}`
		r := e.rest("POST", "/reclaim.v1.WalletService/GetSubmissions", apiKey(e.apiKey), body)
		if r.code != 400 || !strings.Contains(string(r.body), `"waitSeconds: must be from 0 to 30, got `+wait+`"`) {
			t.Errorf("Connect waitSeconds=%s: %d %s", wait, r.code, r.body)
		}
	}
}
