package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// countingProxy forwards to the cluster at target and counts the calls
// that reach it.
func countingProxy(t testing.TB, target string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// mcpPost is a client's raw POST to /mcp, with the headers the Streamable
// HTTP transport asks for and, when version is set, Mcp-Protocol-Version.
func mcpPost(c cred, version string) cred {
	return func(h http.Header) {
		c(h)
		h.Set("Accept", "application/json, text/event-stream")
		if version != "" {
			h.Set("Mcp-Protocol-Version", version)
		}
	}
}

// jsonrpcBatch is a JSON-RPC batch of n calls of tool with args.
func jsonrpcBatch(t testing.TB, n int, tool string, args any) string {
	t.Helper()
	a, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, tool, a)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// TestMCPRefusesBatches is issue 30's attack: one HTTP request on /mcp
// (one token of the key's bucket) carrying a JSON-RPC batch of thousands
// of tool calls, which the SDK runs whenever the protocol version is below
// 2025-06-18 (the default without the header). Every batch is refused
// with a JSON-RPC Invalid Request naming batching, and none of its calls
// reaches the cluster; single requests still work, from the official
// client too.
func TestMCPRefusesBatches(t *testing.T) {
	fc := newFakeCluster(t)
	fc.add(3)
	rpcURL, calls := countingProxy(t, fc.url)
	e := newEnv(t, withRPC(rpcURL))
	wallet := fc.owner.String()
	key := apiKey(e.apiKey)

	batches := map[string]string{
		"summaries":     jsonrpcBatch(t, 500, "summarize_wallet", map[string]any{"address": wallet}),
		"listings":      jsonrpcBatch(t, 500, "list_wallet_items", map[string]any{"address": wallet}),
		"after spaces":  " \r\n\t" + jsonrpcBatch(t, 2, "list_wallet_items", map[string]any{"address": wallet}),
		"an initialize": `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		"empty":         "[]",
	}
	for _, version := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25"} {
		for name, body := range batches {
			t.Run(fmt.Sprintf("%s, version %q", name, version), func(t *testing.T) {
				before := calls.Load()
				r := e.rest("POST", "/mcp", mcpPost(key, version), body).status(http.StatusBadRequest)
				if ct := r.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				var resp struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				dec := json.NewDecoder(strings.NewReader(string(r.body)))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&resp); err != nil {
					t.Fatalf("the refusal %s is not a JSON-RPC error response: %v", r.body, err)
				}
				if resp.JSONRPC != "2.0" || string(resp.ID) != "null" || resp.Error.Code != -32600 ||
					!strings.Contains(resp.Error.Message, "batches are not supported") ||
					!strings.Contains(resp.Error.Message, "one JSON-RPC message per HTTP request") {
					t.Errorf("the refusal %s does not say that batches are refused and what to send", r.body)
				}
				if n := calls.Load() - before; n != 0 {
					t.Errorf("the refused batch made %d cluster calls", n)
				}
			})
		}
	}

	t.Run("single requests", func(t *testing.T) {
		before := calls.Load()
		r := e.rest("POST", "/mcp", mcpPost(key, ""), " \n"+`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`).status(http.StatusOK)
		if !strings.Contains(string(r.body), `"summarize_wallet"`) || !strings.Contains(string(r.body), `"id":7`) {
			t.Errorf("tools/list after spaces: %s", r.body)
		}
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		if r := e.rest("POST", "/mcp", mcpPost(key, ""), init).status(http.StatusOK); !strings.Contains(string(r.body), `"protocolVersion"`) {
			t.Errorf("initialize: %s", r.body)
		}
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"summarize_wallet","arguments":{"address":"` + wallet + `"}}}`
		r = e.rest("POST", "/mcp", mcpPost(key, "2025-03-26"), call).status(http.StatusOK)
		if strings.Contains(string(r.body), `"isError":true`) || !strings.Contains(string(r.body), `"transactionCount"`) {
			t.Errorf("summarize_wallet: %s", r.body)
		}
		if calls.Load() == before {
			t.Error("a single tool call made no cluster call")
		}

		s, err := e.mcpSession(t, key)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if listed, te := callTool(t, s, "list_wallet_items", map[string]any{"address": wallet}); te != nil || len(listed["items"].([]any)) != 3 {
			t.Fatalf("list_wallet_items with the official client: %v %+v", listed, te)
		}
	})

	t.Run("a body past the limit", func(t *testing.T) {
		r := e.rest("POST", "/mcp", mcpPost(key, ""), strings.Repeat(" ", 1<<20+1)+"[]").status(http.StatusRequestEntityTooLarge)
		if !strings.Contains(string(r.body), `"code":-32600`) || !strings.Contains(string(r.body), "exceeds 1048576 bytes") {
			t.Errorf("an oversized body: %s", r.body)
		}
	})
}

// BenchmarkMCPBatch is the batch attack's cost: one HTTP request on /mcp
// (one token of the key's bucket) carrying a JSON-RPC batch of 2,000
// summarize_wallet calls on a wallet of 30 items. It reports the tool
// calls the request ran, the cluster calls they made, the process's RSS
// before and its peak during the request (VmHWM, reset first), in MB:
//
//	go test -run '^$' -bench MCPBatch -benchtime 1x ./backend/server/
func BenchmarkMCPBatch(b *testing.B) {
	fc := newFakeCluster(b)
	fc.add(30)
	rpcURL, calls := countingProxy(b, fc.url)
	e := newEnv(b, withRPC(rpcURL))
	calls.Store(0)
	body := []byte(jsonrpcBatch(b, 2000, "summarize_wallet", map[string]any{"address": fc.owner.String()}))
	client := &http.Client{Transport: h2cTransport()}
	var ran, rss, peak float64
	for b.Loop() {
		runtime.GC()
		before := procStatus(b, "VmRSS")
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Fatalf("resetting the peak RSS: %v", err)
		}
		req, _ := http.NewRequest("POST", e.srv.URL+"/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Api-Key", e.apiKey)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var answers []json.RawMessage
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if json.Unmarshal(raw, &answers) == nil {
			ran += float64(len(answers))
		}
		rss += before
		peak += procStatus(b, "VmHWM")
	}
	n := float64(b.N)
	b.ReportMetric(ran/n, "tool-calls/req")
	b.ReportMetric(float64(calls.Load())/n, "rpc-calls/req")
	b.ReportMetric(rss/n, "MB-RSS-before")
	b.ReportMetric(peak/n, "MB-RSS-peak")
}

// procStatus is a size in /proc/self/status (VmRSS, VmHWM), in MB.
func procStatus(b *testing.B, field string) float64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kB float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%f kB", &kB); err != nil {
				b.Fatalf("%s: %v", line, err)
			}
			return kB / 1024
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}
