package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// wantHints are the tools' annotations: reads are read-only, build writes
// nothing destructive, submit burns; the keyed tools are idempotent.
var wantHints = map[string]map[string]bool{
	"list_wallet_items":          {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": true},
	"summarize_wallet":           {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": true},
	"get_submission_status":      {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false},
	"get_project_stats":          {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false},
	"get_leaderboard":            {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false},
	"build_reclaim_transactions": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
	"submit_signed_transactions": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true},
}

// checkHints reports the hints of tool that are not wantHints'.
func checkHints(t *testing.T, who, tool string, got map[string]any) {
	t.Helper()
	want, ok := wantHints[tool]
	if !ok {
		t.Errorf("%s: unexpected tool %s", who, tool)
		return
	}
	for hint, w := range want {
		if b, _ := got[hint].(bool); b != w || got[hint] == nil {
			t.Errorf("%s: %s %s = %v, want %t", who, tool, hint, got[hint], w)
		}
	}
}

// TestMCPSpecTypeScriptClients checks /mcp with the official TypeScript
// clients (e2e/mcpclient/spec.mjs) against the real service: the
// 2026-07-28 client (server/discover) and the 2025 one both connect; the
// tools carry the hints and schemas ajv compiles, with no nameless
// property; a build sent twice with an idempotencyKey is replayed; and a
// 401 points to the protected-resource metadata the SDK's discovery reads.
func TestMCPSpecTypeScriptClients(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	dir := npmPackage(t, "mcpclient")
	s := startService(t, v)
	f := v.NewWalletFixture(t)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "spec.mjs", s.url+"/mcp", s.apiKey, f.Owner.PublicKey().String())
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node spec.mjs: %v\n%s", err, out)
	}
	t.Logf("the TypeScript clients saw: %s", out)
	var got struct {
		ModernVersion, LegacyVersion string
		Discovered2026               bool
		LegacyTools                  int
		Tools                        map[string]struct {
			Annotations map[string]any
			Inputs      []string
		}
		SchemaErrors                 []string
		FirstReplayed, AgainReplayed bool
		SameTickets                  bool
		UnauthorizedStatus           int
		WWWAuthenticate, MetadataURL string
		Metadata, Discovered         map[string]any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("parse %s: %v", out, err)
	}
	if got.ModernVersion != "2026-07-28" || !got.Discovered2026 || got.LegacyVersion != "2025-11-25" || got.LegacyTools != len(wantHints) {
		t.Errorf("versions: modern %q, legacy %q (%d tools), want 2026-07-28 and 2025-11-25", got.ModernVersion, got.LegacyVersion, got.LegacyTools)
	}
	if len(got.Tools) != len(wantHints) {
		t.Errorf("%d tools, want %d", len(got.Tools), len(wantHints))
	}
	for name, tool := range got.Tools {
		checkHints(t, "TypeScript", name, tool.Annotations)
		keyed := strings.Contains(strings.Join(tool.Inputs, " "), "idempotencyKey")
		if keyed != wantHints[name]["idempotentHint"] {
			t.Errorf("%s takes idempotencyKey: %t", name, keyed)
		}
	}
	if len(got.SchemaErrors) > 0 {
		t.Errorf("schemas: %v", got.SchemaErrors)
	}
	if got.FirstReplayed || !got.AgainReplayed || !got.SameTickets {
		t.Errorf("a keyed build twice: replayed %t then %t, same tickets %t; want false, true, true", got.FirstReplayed, got.AgainReplayed, got.SameTickets)
	}
	metadataURL := s.url + "/.well-known/oauth-protected-resource/mcp"
	if got.UnauthorizedStatus != 401 || !strings.Contains(got.WWWAuthenticate, `resource_metadata="`+metadataURL+`"`) || got.MetadataURL != metadataURL {
		t.Errorf("401: %d, WWW-Authenticate %q, read as %q", got.UnauthorizedStatus, got.WWWAuthenticate, got.MetadataURL)
	}
	for _, m := range []map[string]any{got.Metadata, got.Discovered} {
		if m["resource"] != s.url+"/mcp" || m["authorization_servers"] != nil {
			t.Errorf("metadata %v, want resource %s/mcp and no authorization server", m, s.url)
		}
	}
}

// inspector runs the MCP Inspector's CLI mode (@modelcontextprotocol/
// inspector-cli, the version that runs on Node 20) against url and returns
// its output, or its error output when it fails.
func inspector(t *testing.T, dir, url string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// From its build directory: it reads its package.json by a path
	// relative to the working directory.
	cmd := exec.CommandContext(ctx, "node", append([]string{"index.js", url, "--transport", "http"}, args...)...)
	cmd.Dir = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return stderr.String() + string(out), err
	}
	return string(out), nil
}

// TestMCPSpecInspector drives /mcp with the MCP Inspector's CLI: it lists
// the tools with their hints and schemas (valid JSON Schema 2020-12, no
// nameless property), calls a build twice with an idempotencyKey (the
// second a replay), and is refused with 401 without credentials.
func TestMCPSpecInspector(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	dir := npmPackage(t, "mcpclient")
	s := startService(t, v)
	f := v.NewWalletFixture(t)
	url, key := s.url+"/mcp", "X-Api-Key: "+s.apiKey

	out, err := inspector(t, dir, url, "--method", "tools/list", "--header", key)
	if err != nil {
		t.Fatalf("inspector tools/list: %v\n%s", err, out)
	}
	var list struct {
		Tools []struct {
			Name                      string
			Annotations               map[string]any
			InputSchema, OutputSchema map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("parse %s: %v", out, err)
	}
	if len(list.Tools) != len(wantHints) {
		t.Errorf("the Inspector lists %d tools, want %d", len(list.Tools), len(wantHints))
	}
	for _, tool := range list.Tools {
		checkHints(t, "Inspector", tool.Name, tool.Annotations)
		for kind, schema := range map[string]map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			if props, _ := schema["properties"].(map[string]any); props == nil {
				t.Errorf("%s: %s schema without properties", tool.Name, kind)
			} else if _, empty := props[""]; empty {
				t.Errorf("%s: %s schema has a property without a name", tool.Name, kind)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			if err := c.AddResource("s.json", schema); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile("s.json"); err != nil {
				t.Errorf("%s: %s schema: %v", tool.Name, kind, err)
			}
		}
	}

	out, err = inspector(t, dir, url, "--method", "tools/call", "--tool-name", "list_wallet_items",
		"--tool-arg", "address="+f.Owner.PublicKey().String(), "--header", key)
	if err != nil {
		t.Fatalf("inspector list_wallet_items: %v\n%s", err, out)
	}
	var listed struct {
		StructuredContent struct {
			Items []struct {
				Type, Address string
				Actions       []string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("parse %s: %v", out, err)
	}
	var items []map[string]string
	for _, it := range listed.StructuredContent.Items {
		if len(it.Actions) > 0 {
			items = append(items, map[string]string{"type": it.Type, "address": it.Address, "action": it.Actions[0]})
		}
	}
	itemsJSON, _ := json.Marshal(items)
	var answers []map[string]any
	for range 2 {
		out, err := inspector(t, dir, url, "--method", "tools/call", "--tool-name", "build_reclaim_transactions",
			"--tool-arg", "address="+f.Owner.PublicKey().String(), "--tool-arg", "items="+string(itemsJSON),
			"--tool-arg", "idempotencyKey=inspector-"+s.projectID, "--header", key)
		if err != nil {
			t.Fatalf("inspector build: %v\n%s", err, out)
		}
		var res struct {
			IsError           bool
			StructuredContent map[string]any
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.IsError {
			t.Fatalf("build: %v %s", err, out)
		}
		answers = append(answers, res.StructuredContent)
	}
	if answers[0]["idempotentReplayed"] != nil || answers[1]["idempotentReplayed"] != true {
		t.Errorf("a keyed build twice from the Inspector: replayed %v then %v, want absent then true",
			answers[0]["idempotentReplayed"], answers[1]["idempotentReplayed"])
	}
	first, _ := json.Marshal(answers[0]["transactions"])
	second, _ := json.Marshal(answers[1]["transactions"])
	if string(first) != string(second) {
		t.Errorf("the replay's transactions differ from the first build's")
	}

	if out, err := inspector(t, dir, url, "--method", "tools/list"); err == nil || !strings.Contains(out, "401") {
		t.Errorf("the Inspector without credentials: %v %s, want a 401", err, out)
	}
}
