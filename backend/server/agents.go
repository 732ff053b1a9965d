package server

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	"github.com/reclaim-sol/reclaim/backend/server/mcp"
	"github.com/reclaim-sol/reclaim/gen/llms"
)

//go:embed docs/favicon.ico
var faviconFile embed.FS

// llmsPath is the text for language models and agents (llmstxt.org).
const llmsPath = "/llms.txt"

// addAgents serves what agents use: the MCP endpoint (/mcp), the builds its
// answers link to (/mcp/builds/{id}), its protected-resource metadata,
// /llms.txt; and the favicon every
// browser asks for.
func addAgents(mux *http.ServeMux, d Deps, gate *gateway.AuthInterceptor, wallet *walletServer, codec *gateway.JSONCodec, origins *gateway.OriginPolicy) error {
	err := mcp.Mount(mux, mcp.Deps{
		Gate: gate, Auth: d.Auth, Issuer: d.Issuer, Wallet: wallet, Project: NewProjectServer(d.Ledger, d.DBTimeout),
		Codec: codec, Keys: gateway.NewIdempotencyInterceptor(d.Idempotency, d.Log), Origins: origins,
		ResourceURL: d.MCPResourceURL, AuthorizationServers: d.MCPAuthorizationServers, Docs: llmsPath,
		SignURL: d.SignURL, Now: d.Now, StashBytes: d.MCPStashBytes, Log: d.Log,
	})
	if err != nil {
		return err
	}
	mux.Handle("GET "+llmsPath, newAsset("text/plain; charset=utf-8", llms.Text))
	icon, _ := fs.ReadFile(faviconFile, "docs/favicon.ico")
	mux.Handle("GET /favicon.ico", newAsset("image/x-icon", icon))
	return nil
}

// MCPTool names a tool of /mcp and the REST operation it serves.
type MCPTool struct{ Name, Title, Operation string }

// MCPTools lists the tools of /mcp in the flow's order (for /llms.txt).
func MCPTools() []MCPTool {
	out := make([]MCPTool, len(gateway.Policies.Tools))
	for i, p := range gateway.Policies.Tools {
		out[i] = MCPTool{Name: p.Tool.GetName(), Title: p.Tool.GetTitle(), Operation: p.OperationID}
	}
	return out
}
