package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reclaim-sol/reclaim/backend/server"
)

// credTransport puts a credential on every request of an MCP client, as an
// agent's HTTP client does.
type credTransport struct {
	c    cred
	base http.RoundTripper
}

func (t credTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	t.c(r.Header)
	return t.base.RoundTrip(r)
}

// mcpSession connects the official Go SDK's client to /mcp with c.
func (e *env) mcpSession(t *testing.T, c cred) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   e.srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: credTransport{c: c, base: h2cTransport()}},
		MaxRetries: -1,
	}, nil)
}

// toolErr is the REST error body a tool error carries.
type toolErr struct {
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Param      string `json:"param"`
}

// callTool calls a tool and returns its structured answer, or its error body.
func callTool(t *testing.T, s *mcp.ClientSession, name string, args any) (map[string]any, *toolErr) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		var te toolErr
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&te); err != nil || te.Code == "" || te.Message == "" || te.StatusCode == 0 {
			t.Fatalf("%s: tool error %q is not a REST error body: %v", name, text, err)
		}
		return nil, &te
	}
	out, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("%s: structured content %T", name, res.StructuredContent)
	}
	return out, nil
}

// TestMCPFlow drives /mcp with the official Go SDK's client and an API key:
// the tools with their schemas, a listing, a build (unsigned, with a link
// to the signing page that serves the build), the wallet's signature,
// a submit, the stats; each answer is the REST body's.
func TestMCPFlow(t *testing.T) {
	fc := newFakeCluster(t)
	fc.add(3)
	e := newEnv(t, withRPC(fc.url), withCORS(), withDeps(func(d *server.Deps) { d.SignURL = "http://127.0.0.1:5173/sign" }))
	s, err := e.mcpSession(t, apiKey(e.apiKey))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	ctx := context.Background()
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = tool
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s lacks a description or a schema", tool.Name)
		}
	}
	for _, want := range server.MCPTools() {
		if names[want.Name] == nil {
			t.Errorf("tool %s not listed", want.Name)
		}
	}
	if d := names["build_reclaim_transactions"].Description; !strings.Contains(d, "never signs") {
		t.Errorf("the build tool does not say it never signs: %q", d)
	}

	wallet := fc.owner.String()
	listed, te := callTool(t, s, "list_wallet_items", map[string]any{"address": wallet})
	if te != nil {
		t.Fatalf("list: %+v", te)
	}
	rest := e.rest("GET", "/v1/wallet/"+wallet+"/assets", apiKey(e.apiKey), nil).status(200).json()
	if got, want := mustJSON(t, listed), mustJSON(t, rest); got != want {
		t.Errorf("the tool listed\n%s\nREST lists\n%s", got, want)
	}
	var items []map[string]any
	for _, it := range listed["items"].([]any) {
		it := it.(map[string]any)
		items = append(items, map[string]any{"type": it["type"], "address": it["address"], "action": it["actions"].([]any)[0]})
	}
	built, te := callTool(t, s, "build_reclaim_transactions", map[string]any{"address": wallet, "items": items, "priorityFeeLevel": "none"})
	if te != nil {
		t.Fatalf("build: %+v", te)
	}
	link, _ := built["signUrl"].(string)
	if !strings.HasPrefix(link, "http://127.0.0.1:5173/sign?build=") || !strings.Contains(built["signing"].(string), "never signs") {
		t.Fatalf("build answer: signUrl %q, signing %q", link, built["signing"])
	}
	u, _ := url.Parse(link)
	stashed := e.rest("GET", "/mcp/builds/"+u.Query().Get("build"), noCred(), nil).status(200).json()
	if stashed["walletAddress"] != wallet || mustJSON(t, stashed["build"].(map[string]any)["totals"]) != mustJSON(t, built["totals"]) {
		t.Errorf("the stashed build %v is not the one built", stashed)
	}
	e.rest("GET", "/mcp/builds/not-a-build", noCred(), nil).restErr(404, "not_found")

	var signed []map[string]any
	for _, tx := range built["transactions"].([]any) {
		tx := tx.(map[string]any)
		signed = append(signed, map[string]any{"transactionBase64": fc.sign(t, tx["transactionBase64"].(string)), "submissionTicket": tx["submissionTicket"]})
	}
	sub, te := callTool(t, s, "submit_signed_transactions", map[string]any{"address": wallet, "signed": signed})
	if te != nil {
		t.Fatalf("submit: %+v", te)
	}
	for _, r := range sub["results"].([]any) {
		if st := r.(map[string]any)["status"]; st != "submitted" {
			t.Errorf("submit result %v", r)
		}
	}
	stats, te := callTool(t, s, "get_project_stats", nil)
	if te != nil || stats["totalTransactionCount"] == nil {
		t.Fatalf("stats: %v %+v", stats, te)
	}
	board, te := callTool(t, s, "get_leaderboard", map[string]any{"limit": 10})
	if te != nil || board["entries"] == nil {
		t.Fatalf("leaderboard: %v %+v", board, te)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMCPAttacks is what an attacker tries on /mcp: no credential, a wrong
// key, a revoked key, a session for another wallet, a session lacking the
// scope, malformed arguments, a flood; each gets the API's answer.
func TestMCPAttacks(t *testing.T) {
	fc := newFakeCluster(t)
	fc.add(2)
	e := newEnv(t, withRPC(fc.url), withQuota(1000, 1000, 0))
	wallet := fc.owner.String()

	for name, c := range map[string]cred{
		"no credential":      noCred(),
		"a wrong key":        apiKey("rk_live_" + strings.Repeat("x", 40)),
		"a malformed bearer": header("Authorization", "Bearer not-a-token"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.mcpSession(t, c)
			if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
				t.Fatalf("connect with %s: %v, want 401", name, err)
			}
			r := e.rest("POST", "/mcp", c, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			r.restErr(401, "unauthenticated")
			if r.header.Get("WWW-Authenticate") == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
		})
	}

	t.Run("a session for another wallet", func(t *testing.T) {
		s, err := e.mcpSession(t, bearer(e.session(newWallet())))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, te := callTool(t, s, "list_wallet_items", map[string]any{"address": wallet})
		if te == nil || te.Code != "unauthenticated" || te.StatusCode != 401 || !strings.Contains(te.Message, "wallet mismatch") {
			t.Fatalf("listing another wallet: %+v", te)
		}
	})

	t.Run("a session lacking the scope", func(t *testing.T) {
		s, err := e.mcpSession(t, bearer(e.session(wallet, "wallet:read")))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, te := callTool(t, s, "list_wallet_items", map[string]any{"address": wallet}); te != nil {
			t.Fatalf("list with wallet:read: %+v", te)
		}
		_, te := callTool(t, s, "build_reclaim_transactions", map[string]any{"address": wallet, "items": []any{}})
		if te == nil || te.Code != "unauthenticated" || !strings.Contains(te.Message, "transactions:build") {
			t.Fatalf("build without transactions:build: %+v", te)
		}
	})

	t.Run("malformed arguments", func(t *testing.T) {
		s, err := e.mcpSession(t, apiKey(e.apiKey))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, c := range []struct {
			tool  string
			args  any
			param string
		}{
			{"list_wallet_items", map[string]any{"address": "not-base58!"}, "address"},
			{"list_wallet_items", map[string]any{"address": wallet, "limit": "ten"}, "limit"},
			{"list_wallet_items", map[string]any{"address": wallet, "colour": "red"}, "colour"},
			{"build_reclaim_transactions", map[string]any{"address": wallet, "items": []any{map[string]any{"type": "nft", "address": 7}}}, "items[0].address"},
			{"build_reclaim_transactions", map[string]any{"address": wallet, "items": []any{}}, "items"},
			{"submit_signed_transactions", map[string]any{"address": wallet, "signed": []any{map[string]any{"transactionBase64": "%%", "submissionTicket": "x"}}}, ""},
			{"get_leaderboard", map[string]any{"startDate": "yesterday"}, "startDate"},
		} {
			_, te := callTool(t, s, c.tool, c.args)
			if te == nil || te.StatusCode != 400 || te.Code != "invalid_argument" || (c.param != "" && te.Param != c.param) {
				t.Errorf("%s %v: %+v, want invalid_argument naming %q", c.tool, c.args, te, c.param)
			}
			// The same mistake over REST names the same field.
			if c.tool == "get_leaderboard" {
				if got := e.rest("GET", "/v1/leaderboard?startDate=yesterday", apiKey(e.apiKey), nil); !strings.Contains(string(got.body), `"param":"startDate"`) {
					t.Errorf("REST: %s", got.body)
				}
			}
		}
	})

	t.Run("a method MCP does not serve", func(t *testing.T) {
		e.rest("GET", "/mcp", apiKey(e.apiKey), nil).status(405)
	})
}

// TestMCPRateLimit: every HTTP request on /mcp spends its client address's
// bucket; a refused one is a 429 with Retry-After.
func TestMCPRateLimit(t *testing.T) {
	e := newEnv(t, withIPLimiter(frozenLimiter(2)))
	// However many requests the client's connection takes, the third
	// request in all is refused.
	s, err := e.mcpSession(t, apiKey(e.apiKey))
	for i := 0; err == nil && i < 3; i++ {
		_, err = s.ListTools(context.Background(), nil)
	}
	if s != nil {
		s.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Fatalf("requests past the bucket: %v, want 429", err)
	}
	r := e.rest("POST", "/mcp", apiKey(e.apiKey), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r.restErr(429, "resource_exhausted")
	if r.header.Get("Retry-After") == "" || r.header.Get("X-RateLimit-Limit") != "2" || r.header.Get("RateLimit") != `"address";r=0;t=1` {
		t.Errorf("429 headers %v", r.header)
	}
}

// mcpCall posts one tools/call and returns the answer and its tool error
// (nil when the tool succeeded).
func (e *env) mcpCall(t *testing.T, c cred, tool string, args any) (*response, *toolErr) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + mustJSON(t, tool) + `,"arguments":` + mustJSON(t, args) + `}}`
	accept := func(h http.Header) { c(h); h.Set("Accept", "application/json, text/event-stream") }
	r := e.rest("POST", "/mcp", accept, body).status(200)
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil {
		t.Fatalf("%s: %s", tool, r.body)
	}
	if !resp.Result.IsError {
		return r, nil
	}
	var te toolErr
	if err := json.Unmarshal([]byte(resp.Result.Content[0].Text), &te); err != nil {
		t.Fatalf("%s: tool error %q", tool, resp.Result.Content[0].Text)
	}
	return r, &te
}

// Issue 30, "tool calls for one token": each tool call is charged to the
// buckets of its route, the wallet's share first for a tool acting on a
// wallet (the session the key mints for it is that wallet's), then the
// project's quota; a refused call is a tool error with the REST 429 body,
// and the HTTP answer carries the decisions' headers.
func TestMCPToolCallsChargedAsTheirRoutes(t *testing.T) {
	const burst, share = 8, 25 // a wallet's burst is 2
	e := newEnv(t, frozenQuota(burst), withQuota(1, burst, share))
	w1, w2 := newWallet(), newWallet()
	for i := range 2 {
		// No signature: the call passes its buckets, then its handler
		// refuses it, as REST would.
		r, te := e.mcpCall(t, apiKey(e.apiKey), "get_submission_status", map[string]any{"address": w1})
		if te == nil || te.StatusCode != 400 {
			t.Fatalf("call %d on wallet 1: %+v", i+1, te)
		}
		if got, want := r.header.Get("RateLimit"), fmt.Sprintf(`, "wallet";r=%d;t=4, "project";r=%d;t=1`, 1-i, burst-1-i); !strings.HasSuffix(got, want) {
			t.Fatalf("call %d: RateLimit %q, want %q", i+1, got, want)
		}
	}
	// Wallet 1's share is spent: its calls are refused, for this wallet,
	// and leave the project's quota alone.
	for range 3 {
		r, te := e.mcpCall(t, apiKey(e.apiKey), "get_submission_status", map[string]any{"address": w1})
		if te == nil || te.StatusCode != 429 || !strings.Contains(te.Message, "for this wallet") {
			t.Fatalf("a call past wallet 1's share: %+v", te)
		}
		if got := r.header.Get("RateLimit"); !strings.Contains(got, `"wallet";r=0`) || !strings.Contains(got, `"project";r=6`) {
			t.Fatalf("refused call: RateLimit %q", got)
		}
	}
	// A session's own wallet share is the same bucket.
	tok := e.session(w1) // the project has 5 left
	if _, te := e.mcpCall(t, bearer(tok), "get_project_stats", nil); te == nil || te.StatusCode != 429 {
		t.Fatalf("wallet 1's session past its share: %+v", te)
	}
	// Another wallet and the project's own calls spend the rest.
	for range 2 {
		if _, te := e.mcpCall(t, apiKey(e.apiKey), "get_submission_status", map[string]any{"address": w2}); te == nil || te.StatusCode != 400 {
			t.Fatalf("wallet 2: %+v", te)
		}
	}
	for range 3 {
		if _, te := e.mcpCall(t, apiKey(e.apiKey), "get_project_stats", nil); te != nil {
			t.Fatalf("project stats: %+v", te)
		}
	}
	if _, te := e.mcpCall(t, apiKey(e.apiKey), "get_project_stats", nil); te == nil || te.StatusCode != 429 || !strings.Contains(te.Message, "for this project") {
		t.Fatalf("a call past the project's quota: %+v", te)
	}
}

// sign signs a built transaction (base64) as the fake cluster's wallet.
func (f *fakeCluster) sign(t *testing.T, b64 string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := solana.TransactionFromDecoder(bin.NewBinDecoder(raw))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &f.ownerKey }); err != nil {
		t.Fatal(err)
	}
	out, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(out)
}
