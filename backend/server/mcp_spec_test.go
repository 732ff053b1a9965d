package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/server"
)

// emptyNames returns the paths of the properties without a name anywhere
// in schema.
func emptyNames(schema any, path string) []string {
	var out []string
	switch s := schema.(type) {
	case map[string]any:
		for k, v := range s {
			if k == "properties" {
				if props, ok := v.(map[string]any); ok {
					for name, p := range props {
						if strings.TrimSpace(name) == "" {
							out = append(out, path+".properties["+fmt.Sprintf("%q", name)+"]")
						}
						out = append(out, emptyNames(p, path+".properties."+name)...)
					}
					continue
				}
			}
			out = append(out, emptyNames(v, path+"."+k)...)
		}
	case []any:
		for i, v := range s {
			out = append(out, emptyNames(v, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

// compileSchema compiles a tool's schema as JSON Schema 2020-12 (MCP's
// dialect), checking it against the meta-schema.
func compileSchema(t *testing.T, name string, schema any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(name+".json", doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(name + ".json")
	if err != nil {
		t.Fatalf("%s is not a valid JSON Schema: %v", name, err)
	}
	return s
}

// listTools lists /mcp's tools as the official Go SDK's client does, with
// an API key.
func listTools(t *testing.T) *mcp.ListToolsResult {
	t.Helper()
	e := newEnv(t)
	s, err := e.mcpSession(t, apiKey(e.apiKey))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// Issue 32, "MCP tools advertise an argument with an empty name": every
// tool's input and output schema is a valid JSON Schema whose properties
// all have names; the keyed tools take idempotencyKey; the hints say which
// tools read, which write, which destroy.
func TestMCPToolSchemasAndHints(t *testing.T) {
	tools := listTools(t)
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"list_wallet_items":          {readOnly: true, openWorld: true},
		"summarize_wallet":           {readOnly: true, openWorld: true},
		"build_reclaim_transactions": {idempotent: true, openWorld: true},
		"submit_signed_transactions": {destructive: true, idempotent: true, openWorld: true},
		"get_submission_status":      {readOnly: true},
		"get_project_stats":          {readOnly: true},
		"get_leaderboard":            {readOnly: true},
	}
	if len(tools.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(tools.Tools), len(want))
	}
	for _, tool := range tools.Tools {
		for kind, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			if bad := emptyNames(schema, tool.Name+"."+kind); len(bad) > 0 {
				t.Errorf("properties without a name: %v", bad)
			}
			compileSchema(t, tool.Name+"."+kind, schema)
		}
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v, want every hint said", tool.Name, a)
			continue
		}
		got := hints{readOnly: a.ReadOnlyHint, destructive: *a.DestructiveHint, idempotent: a.IdempotentHint, openWorld: *a.OpenWorldHint}
		if w, ok := want[tool.Name]; !ok || got != w {
			t.Errorf("%s: hints %+v, want %+v", tool.Name, got, w)
		}
		props := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		_, keyed := props["idempotencyKey"]
		if keyed != (want[tool.Name].idempotent) {
			t.Errorf("%s: takes idempotencyKey: %t", tool.Name, keyed)
		}
		if keyed {
			out := tool.OutputSchema.(map[string]any)["properties"].(map[string]any)
			if out["idempotentReplayed"] == nil {
				t.Errorf("%s: the answer's schema lacks idempotentReplayed", tool.Name)
			}
		}
	}
}

// The idempotencyKey argument reaches the idempotency layer REST's header
// reaches: a build repeated with its key is the first answer again (the
// same tickets), marked idempotentReplayed; the key with other arguments
// is refused as over REST; the key is shared with REST's header; a key
// that is not one is a 400 naming the argument.
func TestMCPIdempotencyKey(t *testing.T) {
	fc := newFakeCluster(t)
	fc.add(2)
	e := newEnv(t, withRPC(fc.url))
	s, err := e.mcpSession(t, apiKey(e.apiKey))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wallet := fc.owner.String()
	listed, te := callTool(t, s, "list_wallet_items", map[string]any{"address": wallet})
	if te != nil {
		t.Fatal(te)
	}
	var items []any
	for _, it := range listed["items"].([]any) {
		it := it.(map[string]any)
		items = append(items, map[string]any{"type": it["type"], "address": it["address"], "action": it["actions"].([]any)[0]})
	}
	args := map[string]any{"address": wallet, "items": items, "idempotencyKey": "build-7c1f0a"}

	first, te := callTool(t, s, "build_reclaim_transactions", args)
	if te != nil {
		t.Fatalf("first build: %+v", te)
	}
	if first["idempotentReplayed"] != nil {
		t.Errorf("the first build says it is a replay")
	}
	again, te := callTool(t, s, "build_reclaim_transactions", args)
	if te != nil {
		t.Fatalf("second build: %+v", te)
	}
	if again["idempotentReplayed"] != true {
		t.Errorf("the second build with the key: idempotentReplayed %v, want true", again["idempotentReplayed"])
	}
	// Both answers are what the tool's output schema says.
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "build_reclaim_transactions" {
			schema := compileSchema(t, "build.output", tool.OutputSchema)
			for _, answer := range []map[string]any{first, again} {
				var v any
				if err := json.Unmarshal([]byte(mustJSON(t, answer)), &v); err != nil {
					t.Fatal(err)
				}
				if err := schema.Validate(v); err != nil {
					t.Errorf("a build's answer is not what its output schema says: %v", err)
				}
			}
		}
	}
	if mustJSON(t, again["transactions"]) != mustJSON(t, first["transactions"]) {
		t.Errorf("the replay's transactions differ from the first build's")
	}
	// The same key from REST, with the same request: the same answer.
	// (An API key's MCP call acting on a wallet runs as a session of the
	// key for that wallet: its keys are that session's.)
	r := e.rest("POST", "/v1/wallet/"+wallet+"/transactions", func(h http.Header) {
		bearer(e.session(wallet))(h)
		h.Set("Idempotency-Key", "build-7c1f0a")
	}, map[string]any{"items": items}).status(200)
	if r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("REST with the MCP call's key: not a replay: %s", r.body)
	}

	other := map[string]any{"address": wallet, "items": items[:1], "idempotencyKey": "build-7c1f0a"}
	if _, te := callTool(t, s, "build_reclaim_transactions", other); te == nil || te.StatusCode != 422 || te.Code != "idempotency_key_reused" || te.Param != "idempotencyKey" {
		t.Errorf("the key with other arguments: %+v, want 422 idempotency_key_reused", te)
	}
	for _, bad := range []any{"", "has space", strings.Repeat("k", 256), 42, `"quoted"`} {
		_, te := callTool(t, s, "build_reclaim_transactions", map[string]any{"address": wallet, "items": items, "idempotencyKey": bad})
		if te == nil || te.StatusCode != 400 || te.Param != "idempotencyKey" {
			t.Errorf("idempotencyKey %v: %+v, want 400 naming idempotencyKey", bad, te)
		}
	}
	// Without a key, each build is new.
	plain := map[string]any{"address": wallet, "items": items}
	if out, te := callTool(t, s, "build_reclaim_transactions", plain); te != nil || out["idempotentReplayed"] != nil {
		t.Errorf("a build without a key: %v %+v", out["idempotentReplayed"], te)
	}
}

// Issue 32, "MCP is behind the spec": /mcp answers clients at every
// protocol version the SDK speaks: the initialize of 2025-03-26,
// 2025-06-18 and 2025-11-25 with that version, and 2026-07-28's
// server/discover; the official client settles on the newest.
func TestMCPProtocolVersions(t *testing.T) {
	e := newEnv(t)
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v +
			`","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`
		r := e.rest("POST", "/mcp", mcpPost(apiKey(e.apiKey), ""), body).status(200)
		var res struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if err := json.Unmarshal(r.body, &res); err != nil || res.Result.ProtocolVersion != v {
			t.Errorf("initialize at %s: %s", v, r.body)
		}
		list := e.rest("POST", "/mcp", mcpPost(apiKey(e.apiKey), v), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).status(200)
		if !strings.Contains(string(list.body), "build_reclaim_transactions") {
			t.Errorf("tools/list at %s: %s", v, list.body)
		}
	}
	discover := func(h http.Header) {
		mcpPost(apiKey(e.apiKey), "2026-07-28")(h)
		h.Set("Mcp-Method", "server/discover")
	}
	r := e.rest("POST", "/mcp", discover, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"new","version":"1"},`+
		`"io.modelcontextprotocol/clientCapabilities":{}}}}`).status(200)
	var disc struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
			Capabilities      struct {
				Tools any `json:"tools"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.body, &disc); err != nil || disc.Result.Capabilities.Tools == nil ||
		!strings.Contains(strings.Join(disc.Result.SupportedVersions, " "), "2026-07-28") {
		t.Errorf("server/discover: %s", r.body)
	}
	s, err := e.mcpSession(t, apiKey(e.apiKey))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("the official client settled on %s, want 2026-07-28", v)
	}
	if _, err := s.ListTools(context.Background(), nil); err != nil {
		t.Errorf("tools/list at 2026-07-28: %v", err)
	}
}

// Issue 32: RFC 9728 metadata at /.well-known/oauth-protected-resource
// (and with /mcp's path after it), which a 401 from /mcp points to; no
// authorization server unless the operator names some.
func TestMCPProtectedResourceMetadata(t *testing.T) {
	e := newEnv(t, withCORS())
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		r := e.rest("GET", path, header("Origin", "https://agent.example"), nil).status(200)
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", path, ct)
		}
		if o := r.header.Get("Access-Control-Allow-Origin"); o == "" {
			t.Errorf("%s: no Access-Control-Allow-Origin: a page cannot read it", path)
		}
		m := r.json()
		if m["resource"] != e.srv.URL+"/mcp" || m["authorization_servers"] != nil || fmt.Sprint(m["bearer_methods_supported"]) != "[header]" {
			t.Errorf("%s: %s", path, r.body)
		}
		if head := e.rest("HEAD", path, noCred(), nil).status(200); len(head.body) != 0 {
			t.Errorf("HEAD %s: a body", path)
		}
	}

	// A 401 points to it, as an absolute URL a client can fetch.
	r := e.rest("POST", "/mcp", mcpPost(noCred(), ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r.restErr(401, "unauthenticated")
	want := `Bearer realm="reclaim", resource_metadata="` + e.srv.URL + `/.well-known/oauth-protected-resource/mcp"`
	if got := r.header.Get("WWW-Authenticate"); got != want {
		t.Fatalf("WWW-Authenticate %q, want %q", got, want)
	}

	// An operator's public URL and authorization servers.
	e2 := newEnv(t, withDeps(func(d *server.Deps) {
		d.MCPResourceURL = "https://api.example.com/mcp"
		d.MCPAuthorizationServers = []string{"https://auth.example.com"}
	}))
	m := e2.rest("GET", "/.well-known/oauth-protected-resource/mcp", noCred(), nil).status(200).json()
	if m["resource"] != "https://api.example.com/mcp" || fmt.Sprint(m["authorization_servers"]) != "[https://auth.example.com]" {
		t.Errorf("configured: %v", m)
	}
	r = e2.rest("POST", "/mcp", mcpPost(apiKey("rk_live_"+strings.Repeat("x", 40)), ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r.restErr(401, "unauthenticated")
	if got := r.header.Get("WWW-Authenticate"); !strings.Contains(got, `resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("configured: WWW-Authenticate %q", got)
	}
}

// The metadata route as an attacker tries it: odd methods, odd paths, a
// huge path, a flood from one address; never a 5xx.
func TestMCPProtectedResourceMetadataAttacks(t *testing.T) {
	e := newEnv(t)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "TRACE", "PROPFIND"} {
		r := e.rest(m, "/.well-known/oauth-protected-resource", noCred(), `{}`)
		r.restErr(405, "unimplemented")
		if r.header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: Allow %q", m, r.header.Get("Allow"))
		}
	}
	for _, path := range []string{
		"/.well-known/oauth-protected-resource/",
		"/.well-known/oauth-protected-resource/mcp/x",
		"/.well-known/oauth-protected-resource/" + strings.Repeat("a", 6000),
		"/.well-known/oauth-protected-resource/..%2f..%2fetc%2fpasswd",
	} {
		r := e.rest("GET", path, noCred(), nil)
		if r.code >= 500 || r.code == 200 {
			t.Errorf("GET %.80s: %d %s", path, r.code, r.body)
		}
	}

	flood := newEnv(t, withIPLimiter(frozenLimiter(3)))
	for range 3 {
		flood.rest("GET", "/.well-known/oauth-protected-resource", noCred(), nil).status(200)
	}
	r := flood.rest("GET", "/.well-known/oauth-protected-resource", noCred(), nil)
	r.restErr(429, "resource_exhausted")
	if r.header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After: %v", r.header)
	}
}

// Issue 32, "descriptions drift": a tool's description that names some of
// the values an argument takes names them all (the leaderboard's listed 3
// of the 7 transaction types), and the leaderboard's names every
// transaction type the contract has.
func TestMCPDescriptionsNameEveryValue(t *testing.T) {
	tools := listTools(t)
	named := func(desc, value string) bool {
		return regexp.MustCompile(`\b` + regexp.QuoteMeta(value) + `\b`).MatchString(desc)
	}
	checked := 0
	for _, tool := range tools.Tools {
		for arg, p := range tool.InputSchema.(map[string]any)["properties"].(map[string]any) {
			values, _ := p.(map[string]any)["enum"].([]any)
			var said, missing []string
			for _, v := range values {
				if named(tool.Description, v.(string)) {
					said = append(said, v.(string))
				} else {
					missing = append(missing, v.(string))
				}
			}
			if len(said) > 0 {
				checked++
				if len(missing) > 0 {
					t.Errorf("%s names %v of %s's values, not %v", tool.Name, said, arg, missing)
				}
			}
		}
		if tool.Name != "get_leaderboard" {
			continue
		}
		for _, typ := range ledger.Types {
			if !named(tool.Description, typ) {
				t.Errorf("get_leaderboard's description does not name the transaction type %s: %q", typ, tool.Description)
			}
		}
	}
	if checked < 3 { // the leaderboard's types, the summary's and the build's fee levels
		t.Errorf("%d arguments' values named in descriptions, want at least 3", checked)
	}
}
