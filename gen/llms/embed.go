// Package llms holds /llms.txt: what Reclaim does, its flow, each route with
// its purpose and credentials, and the MCP tools, for language models and the
// agents that use them (https://llmstxt.org). `make generate` writes it from
// the OpenAPI document (itself generated from proto/) and the server's
// credential table, with backend/cmd/llmstxt; the server serves it at
// GET /llms.txt. This file is the only one written by hand.
package llms

import _ "embed"

// Text is llms.txt.
//
//go:embed llms.txt
var Text []byte
