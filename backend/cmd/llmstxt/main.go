// Command llmstxt writes /llms.txt (gen/llms) from the OpenAPI document of
// the REST API (gen/openapi, generated from proto/), the server's credential
// table and its MCP tools: what Reclaim does, the flow, each route with its
// purpose and the credentials and scopes it takes. `make generate` runs it,
// so `make check-generated` fails when the text drifts from the contract.
//
// Usage: go run ./backend/cmd/llmstxt gen/llms/llms.txt
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/gen/openapi"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: llmstxt FILE")
		os.Exit(2)
	}
	text, err := render(openapi.Document)
	if err == nil {
		err = os.WriteFile(os.Args[1], []byte(text), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "llmstxt:", err)
		os.Exit(1)
	}
}

// route is one REST operation as llms.txt lists it.
type route struct {
	tag, method, path, id, purpose, credentials string
}

// tagOrder is the flow's order: a session, the wallet, the project.
var tagOrder = map[string]int{"SessionService": 0, "WalletService": 1, "ProjectService": 2}

func render(document []byte) (string, error) {
	routes, err := routesOf(document)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(intro)
	for _, r := range routes {
		fmt.Fprintf(&b, "- %s %s (%s): %s", r.method, r.path, strings.ReplaceAll(r.id, "_", "."), r.purpose)
		if r.credentials != "" { // the stream's description says its own
			fmt.Fprintf(&b, " Credentials: %s", r.credentials)
		}
		b.WriteString("\n")
	}
	b.WriteString(`
## MCP tools

The MCP server is at /mcp on the API's port (Streamable HTTP, stateless). Every HTTP request carries the API's credentials: X-Api-Key (a tool that acts on a wallet then mints itself a session bound to that wallet) or Authorization: Bearer SESSION_TOKEN (its wallet and scopes apply). Tool errors carry the REST error body as their text. Arguments use the REST names (address, items, signed...): submit_signed_transactions takes {address, signed: [{transactionBase64, submissionTicket}]}. build_reclaim_transactions answers with a signUrl (and signUrlExpiresAt) when the server has a signing page (RECLAIM_SIGN_URL): hand that link to the wallet's owner, who signs and submits there; then follow the signatures with get_submission_status. A build may burn tokens and NFTs: a transaction whose destructive is true lists in burns what it destroys (mint, amount as a decimal string of raw units, decimals, name); say so to the person before they sign.

`)
	for _, t := range server.MCPTools() {
		fmt.Fprintf(&b, "- %s: %s (as %s)\n", t.Name, t.Title, strings.ReplaceAll(t.Operation, "_", "."))
	}
	b.WriteString(`
## Docs

- [API reference](/docs): every route, its fields and its errors.
- [OpenAPI document](/v1/openapi.json): the REST API, OpenAPI 3.1.
- [MCP endpoint](/mcp): the tools above, for agents.
`)
	return b.String(), nil
}

// routesOf reads the OpenAPI document's operations, in the flow's order.
func routesOf(document []byte) ([]route, error) {
	type operation struct {
		OperationID string   `json:"operationId"`
		Summary     string   `json:"summary"`
		Description string   `json:"description"`
		Tags        []string `json:"tags"`
		Method      string   `json:"method"` // x-websocket's
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(document, &doc); err != nil {
		return nil, err
	}
	var routes []route
	for path, item := range doc.Paths {
		for key, raw := range item {
			var op operation
			if key == "parameters" || json.Unmarshal(raw, &op) != nil {
				continue
			}
			r := route{method: strings.ToUpper(key), path: path, id: op.OperationID}
			if key == "x-websocket" { // the stream: a WebSocket, described by its path item
				var desc string
				_ = json.Unmarshal(item["description"], &desc)
				r = route{method: strings.ToUpper(op.Method), path: path, id: "WebSocket", tag: "WalletService", purpose: oneLine(desc)}
				routes = append(routes, r)
				continue
			}
			if op.OperationID == "" {
				continue
			}
			if len(op.Tags) > 0 {
				r.tag = op.Tags[0]
			}
			desc, creds, _ := strings.Cut(op.Description, "Credentials: ")
			r.purpose = oneLine(desc)
			r.credentials = oneLine(creds)
			routes = append(routes, r)
		}
	}
	sort.Slice(routes, func(i, j int) bool {
		a, b := routes[i], routes[j]
		if tagOrder[a.tag] != tagOrder[b.tag] {
			return tagOrder[a.tag] < tagOrder[b.tag]
		}
		if a.path != b.path {
			return a.path < b.path
		}
		return a.method < b.method
	})

	return routes, nil
}

// intro is what llms.txt says before its routes.
const intro = `# Reclaim

> Reclaim gets back the SOL locked in a Solana wallet's forgotten items: empty token accounts, unwanted tokens and NFTs, compressed assets. It lists a wallet's reclaimable items with the rent each returns, builds the transactions that close or burn them (unsigned: the wallet signs), relays the signed transactions and tracks them until confirmed, and keeps each project's stats and leaderboard. Integrators call it as JSON REST, Connect or gRPC; agents call it through MCP at /mcp.

Amounts are integers in lamports (1 SOL = 1,000,000,000 lamports), and every 64-bit integer is a JSON number. Reclaim never holds a wallet's key and never signs a wallet's transactions.

## The flow

1. A backend holds the project's API key (header X-Api-Key) and mints a session token bound to one wallet (POST /v1/sessions; scopes wallet:read, wallet:stream, transactions:build, transactions:submit; 300 s by default, at most 3600 s). A browser or app calls with the token (Authorization: Bearer TOKEN); a browser can never send an API key.
2. List the wallet's items (GET /v1/wallet/{address}/assets, or the stream): each item has a type, an address, the lamports it returns and its actions (close, burn).
3. Build transactions for the chosen items (POST /v1/wallet/{address}/transactions with items [{type, address, action}], or selectAll: true for every safe item (never a burn; GET /v1/wallet/{address}/summary says beforehand what that returns), donationPercentage 0..1, priorityFeeLevel none|low|medium|high): unsigned v0 transactions, each with a submission ticket (good for about 60 s) and its rebate, and the totals (gross rebate, fees, donation, what the wallet receives).
4. The wallet signs each transactionBase64. An agent never asks for a key: it gives the person the build's signUrl (MCP, when the operator set RECLAIM_SIGN_URL; valid until signUrlExpiresAt, 15 minutes), a page where they sign and submit in their own browser wallet.
5. Submit them with their tickets (POST /v1/wallet/{address}/transactions/submit, body {"signed": [{"transactionBase64": "SIGNED_TX", "submissionTicket": "TICKET"}]}, one entry per transaction, at most 100, each ticket from the same build's transaction): each is submitted (with its signature), duplicate or failed (with a code and a message).
6. Follow them until final (GET /v1/wallet/{address}/submissions?signature=S1&signature=S2&waitSeconds=N): submitted, confirmed (with the chain's slot and landed figures), failed, expired or unknown. A wallet that sent a transaction itself reports it at submit as {signature, submissionTicket}; it counts only if it landed as built.
7. Confirmed transactions count in the project's stats (GET /v1/stats) and leaderboard (GET /v1/leaderboard).

Every error has the body {statusCode, error, code, message, param}: param names the field or query parameter to fix. Every answer carries RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers: one item per bucket, "address", "wallet", "project"), X-RateLimit-Limit and X-RateLimit-Remaining; a 429 also Retry-After, and its message says which bucket ran out (for this wallet, for this project, from this address). The same operations are Connect and gRPC procedures at /reclaim.v1.<Service>/<Method>.

## REST routes

`

// oneLine joins a description's lines and paragraphs into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
