package server

import (
	"embed"
	"io/fs"
	"net/http"
	"time"

	"github.com/reclaim-sol/reclaim/backend/server/gateway"
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
	now := d.Now
	if now == nil {
		now = time.Now
	}
	face := &mcpFace{
		gate: gate, auth: d.Auth, issuer: d.Issuer, wallet: wallet, project: NewProjectServer(d.Ledger, d.DBTimeout),
		meta:  resourceMetadata{resource: d.MCPResourceURL, servers: d.MCPAuthorizationServers},
		codec: codec, keys: gateway.NewIdempotencyInterceptor(d.Idempotency, d.Log), builds: newBuildStash(now, d.MCPStashBytes), signURL: d.SignURL, log: d.Log,
	}
	tools, err := face.tools()
	if err != nil {
		return err
	}
	mux.Handle(mcpPath, face.handler(tools))
	mux.Handle("GET "+buildsPath, face.serveBuild(origins))
	mux.Handle(protectedResourcePath, face.meta.serve(gate))
	mux.Handle(protectedResourcePath+mcpPath, face.meta.serve(gate))
	mux.Handle("GET "+llmsPath, newAsset("text/plain; charset=utf-8", llms.Text))
	icon, _ := fs.ReadFile(faviconFile, "docs/favicon.ico")
	mux.Handle("GET /favicon.ico", newAsset("image/x-icon", icon))
	return nil
}
