package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// FuzzMCP sends /mcp what a client may: any JSON-RPC body, and any
// arguments to each tool. The answer is never a 5xx: a batch is refused
// with a 400, the envelope is the SDK's to refuse (a 4xx or a JSON-RPC
// error), and a tool's arguments are checked as a REST body is, so a tool
// error is a REST error body whose status is never 500.
func FuzzMCP(f *testing.F) {
	f.Add("list_wallet_items", `{"address":"11111111111111111111111111111111"}`)
	f.Add("build_reclaim_transactions", `{"address":"11111111111111111111111111111111","items":[{"type":"nft","address":"x","action":"burn"}]}`)
	f.Add("build_reclaim_transactions", `{"items":[{"type":1}],"donationPercentage":"NaN"}`)
	f.Add("submit_signed_transactions", `{"signed":[{"transactionBase64":"AAAA","submissionTicket":"e30"}]}`)
	f.Add("get_leaderboard", `{"limit":-1,"offset":1e99,"startDate":"2026-13-01"}`)
	f.Add("build_reclaim_transactions", `{"idempotencyKey":"k1","idempotencyKey":"k 2","selectAll":true}`)
	f.Add("submit_signed_transactions", `{"idempotencyKey":"\"q\\\"","signed":[]}`)
	f.Add("get_project_stats", `[]`)
	f.Add("", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	f.Add("", `{"jsonrpc":"2.0","id":{},"method":"initialize"}`)
	f.Add("", ` [{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"summarize_wallet","arguments":{}}}]`)
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, tool, args string) {
		body := args
		if tool != "" {
			params, _ := json.Marshal(map[string]any{"name": tool, "arguments": json.RawMessage("null")})
			if json.Valid([]byte(args)) {
				params = []byte(`{"name":` + mustJSON(t, tool) + `,"arguments":` + args + `}`)
			}
			body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + string(params) + `}`
		}
		r := e.with(t).rest("POST", "/mcp", apiKey(e.apiKey), body)
		if r.code >= 500 {
			t.Fatalf("%s: %d %s", body, r.code, r.body)
		}
		batch := strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), "[")
		if batch && r.code != http.StatusTooManyRequests && (r.code != 400 || !strings.Contains(string(r.body), "batches are not supported")) {
			t.Fatalf("a batch %s: %d %s", body, r.code, r.body)
		}
		var resp struct {
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if r.code != 200 || json.Unmarshal(r.body, &resp) != nil || !resp.Result.IsError {
			return
		}
		var te toolErr
		if err := json.Unmarshal([]byte(resp.Result.Content[0].Text), &te); err != nil {
			if strings.Contains(resp.Result.Content[0].Text, "unknown tool") {
				return
			}
			t.Fatalf("%s: tool error %q is not a REST error body", body, resp.Result.Content[0].Text)
		}
		if te.StatusCode == 500 || te.Code == "internal" {
			t.Fatalf("%s: tool error %+v", body, te)
		}
	})
}
