package server_test

import (
	"net/http"
	"testing"
)

// BenchmarkMCPStats is one tools/call of get_project_stats on /mcp with an
// API key: the gate, the SDK's stateless handling, the tool's route
// charges, and the handler REST's GET /v1/stats reaches.
func BenchmarkMCPStats(b *testing.B) {
	e := benchEnv(b)
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2025-11-25"}, "X-Api-Key": {e.apiKey}}
	benchDo(b, e, "POST", "/mcp", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_project_stats","arguments":{}}}`), h)
}
