package server_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/gen/llms"
	"github.com/reclaim-sol/reclaim/gen/openapi"
)

// GET /llms.txt serves the generated text, which names every route of the
// OpenAPI document and every MCP tool; /docs links to it.
func TestLLMsText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.rest("GET", "/llms.txt", noCred(), nil).status(200)
	if ct := r.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" || !bytes.Equal(r.body, llms.Text) {
		t.Fatalf("GET /llms.txt: %s, %d bytes", ct, len(r.body))
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	text := string(llms.Text)
	for path, methods := range doc.Paths {
		for method := range methods {
			switch method {
			case "x-websocket": // the stream, a WebSocket upgrade of a GET
				method = "get"
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				continue // the path item's summary, parameters...
			}
			if !strings.Contains(text, "- "+strings.ToUpper(method)+" "+path+" ") {
				t.Errorf("llms.txt does not list %s %s", strings.ToUpper(method), path)
			}
		}
	}
	for _, tool := range server.MCPTools() {
		if !strings.Contains(text, "- "+tool.Name+": ") {
			t.Errorf("llms.txt does not list the tool %s", tool.Name)
		}
	}
	for _, scope := range []string{"wallet:read", "transactions:build", "transactions:submit", "wallet:stream"} {
		if !strings.Contains(text, scope) {
			t.Errorf("llms.txt does not name the scope %s", scope)
		}
	}
	if docs := e.rest("GET", "/docs", noCred(), nil).status(200); !strings.Contains(string(docs.body), `href="/llms.txt"`) {
		t.Error("/docs does not link to /llms.txt")
	}
}

// GET /favicon.ico is an icon, not the 404 every page's browser asked for.
func TestFavicon(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.rest("GET", "/favicon.ico", noCred(), nil).status(200)
	if ct := r.header.Get("Content-Type"); ct != "image/x-icon" || !bytes.HasPrefix(r.body, []byte{0, 0, 1, 0}) {
		t.Fatalf("GET /favicon.ico: %s, % x", ct, r.body[:min(8, len(r.body))])
	}
}
