package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// toolSpec is what a tool adds to its operation: its name, what an agent
// needs to know to use it, and how it reads and answers.
type toolSpec struct {
	name, operationID, procedure, title, description string
	annotations                                      *mcp.ToolAnnotations
	input                                            func() proto.Message
	// call runs the operation's handler.
	call func(m *mcpFace, ctx context.Context, req proto.Message) (connect.AnyResponse, error)
	// output changes the operation's answer schema (nil: as it is).
	output func(schema map[string]any) map[string]any
	// extra adds to the answer (nil: the REST body as it is).
	extra func(m *mcpFace, ctx context.Context, req proto.Message, body json.RawMessage, out map[string]any)
}

// The tools' hints (MCP tool annotations). Reads change nothing
// (readOnlyHint) and destroy nothing (destructiveHint false); the reads of
// a wallet reach the Solana cluster (openWorldHint), the others Reclaim's
// own records only. Build writes (tickets, a signing link, its key's
// answer) but destroys nothing; submit sends transactions that burn what
// they burn (destructiveHint); both take an idempotencyKey, with which a
// repeated call has no further effect (idempotentHint).
var (
	readsChain   = &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), OpenWorldHint: new(true)}
	readsRecords = &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), OpenWorldHint: new(false)}
)

// toolSpecs are the MCP tools, in the order of the flow.
var toolSpecs = []toolSpec{
	{
		name: "list_wallet_items", operationID: "WalletService_ListAssets", procedure: reclaimv1connect.WalletServiceListAssetsProcedure,
		title: "List a wallet's reclaimable items",
		description: "List the items of a Solana wallet whose rent can be reclaimed: empty token accounts (action close), " +
			"token balances and NFTs (action burn), and the other kinds the server knows. Each item says its type, address, " +
			"the lamports it returns (lamports) and the actions it allows; counts gives the number of items of each type. " +
			"Pass the chosen items as {type, address, action} to build_reclaim_transactions. Read-only.",
		annotations: readsChain,
		input:       func() proto.Message { return &reclaimv1.ListAssetsRequest{} },
		call: func(m *mcpFace, ctx context.Context, req proto.Message) (connect.AnyResponse, error) {
			return unary(m.wallet.ListAssets(ctx, connect.NewRequest(req.(*reclaimv1.ListAssetsRequest))))
		},
	},
	{
		name: "summarize_wallet", operationID: "WalletService_GetSummary", procedure: reclaimv1connect.WalletServiceGetSummaryProcedure,
		title: "Summarise what a wallet can reclaim",
		description: "What a Solana wallet holds per item type (types: count and lamports of each) and what reclaiming every safe item " +
			"would return: totals (grossRebate, split into rentRebate and ownBalanceRebate: the wallet's own SOL such as wrapped SOL or a " +
			"stake's principal, on which nothing is taken; fees, donationAmount, netRebate: what the wallet receives, in lamports) and transactionCount, " +
			"exactly what build_reclaim_transactions with selectAll true returns while the chain and fees stay put. Safe items are the " +
			"closes of empty accounts, excess rent, program buffers, nonce and deactivated stake accounts: never a burn. Optional " +
			"donationPercentage (0 to 1) and priorityFeeLevel (none, low, medium, high) as a build's. Builds nothing, issues no ticket. Read-only.",
		annotations: readsChain,
		input:       func() proto.Message { return &reclaimv1.GetSummaryRequest{} },
		call: func(m *mcpFace, ctx context.Context, req proto.Message) (connect.AnyResponse, error) {
			return unary(m.wallet.GetSummary(ctx, connect.NewRequest(req.(*reclaimv1.GetSummaryRequest))))
		},
	},
	{
		name: "build_reclaim_transactions", operationID: "WalletService_BuildTransactions", procedure: reclaimv1connect.WalletServiceBuildTransactionsProcedure,
		title: "Build unsigned reclaim transactions",
		description: "Build the transactions that reclaim the selected items' rent (items: {type, address, action} from list_wallet_items, " +
			"or selectAll: true instead of items for every safe item, as summarize_wallet counts them; " +
			"donationPercentage: the share of the rent reclaimed donated to the project, 0 to 1, never of the wallet's own SOL; priorityFeeLevel: none, low, medium or high). " +
			"The transactions are UNSIGNED: this tool never signs and cannot (the server holds no wallet key). The wallet's owner signs " +
			"each transactionBase64 (a v0 VersionedTransaction) in their wallet, then submit_signed_transactions sends each signed " +
			"transaction with its submissionTicket. Tickets and the blockhash live about 60 seconds: build again if they expired. " +
			"When the answer has a signUrl, give it to the person: it opens these transactions in a browser wallet to sign and submit. " +
			"totals gives the gross rebate (rentRebate plus ownBalanceRebate), the fees, the donation and what the wallet receives (netRebate), in lamports.",
		annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(true)},
		input:       func() proto.Message { return &reclaimv1.BuildTransactionsRequest{} },
		call: func(m *mcpFace, ctx context.Context, req proto.Message) (connect.AnyResponse, error) {
			return unary(m.wallet.BuildTransactions(ctx, connect.NewRequest(req.(*reclaimv1.BuildTransactionsRequest))))
		},
		extra: (*mcpFace).signLink,
		output: func(s map[string]any) map[string]any {
			props := maps.Clone(s["properties"].(map[string]any))
			props["signUrl"] = map[string]any{"type": "string", "description": "a page where the wallet's owner signs and submits these transactions in a browser wallet; present when the server has one (RECLAIM_SIGN_URL)"}
			props["signUrlExpiresAt"] = map[string]any{"type": "string", "description": "when the signUrl stops working (ISO 8601)"}
			props["signing"] = map[string]any{"type": "string", "description": "who signs: always the wallet's owner, never this server"}
			out := maps.Clone(s)
			out["properties"] = props
			return out
		},
	},
	{
		name: "submit_signed_transactions", operationID: "WalletService_SubmitTransactions", procedure: reclaimv1connect.WalletServiceSubmitTransactionsProcedure,
		title: "Submit signed reclaim transactions",
		description: "Send the transactions the wallet signed to the cluster: signed is a list of {transactionBase64: the signed " +
			"transaction, submissionTicket: the ticket build_reclaim_transactions gave with it}, or {signature, submissionTicket} for one " +
			"the wallet sent itself. Each result is submitted (sent: its " +
			"signature follows), duplicate (that ticket was submitted before) or failed (error.code and error.message say why); " +
			"a submitted transaction is confirmed on chain a few seconds later. This sends real transactions: it burns what they burn.",
		annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(true)},
		input:       func() proto.Message { return &reclaimv1.SubmitTransactionsRequest{} },
		call: func(m *mcpFace, ctx context.Context, req proto.Message) (connect.AnyResponse, error) {
			return unary(m.wallet.SubmitTransactions(ctx, connect.NewRequest(req.(*reclaimv1.SubmitTransactionsRequest))))
		},
	},
	{
		name: "get_submission_status", operationID: "WalletService_GetSubmissions", procedure: reclaimv1connect.WalletServiceGetSubmissionsProcedure,
		title: "Where submitted transactions are",
		description: "The status of each signature (signature: a list, from submit_signed_transactions) of this wallet, in the order asked: " +
			"submitted (sent, not in a block yet), landed (in a block at confirmed commitment, usually within a second: the user can be told " +
			"it worked; with slot and landed: fee, grossRebate, netRebate, donationAmount in lamports, from the chain; not final yet), confirmed " +
			"(finalized and counted, with slot, confirmedAt and landed), failed or expired (error.code and error.message say why; build again " +
			"after expired), or unknown (Reclaim never saw it for this wallet); treat any other status as in progress. waitSeconds (at most 30) " +
			"holds the answer until every one is landed or final (waitUntil \"final\": until every one is final), or the time passes. Read-only.",
		annotations: readsRecords,
		input:       func() proto.Message { return &reclaimv1.GetSubmissionsRequest{} },
		call: func(m *mcpFace, ctx context.Context, req proto.Message) (connect.AnyResponse, error) {
			return unary(m.wallet.GetSubmissions(ctx, connect.NewRequest(req.(*reclaimv1.GetSubmissionsRequest))))
		},
	},
	{
		name: "get_project_stats", operationID: "ProjectService_GetStats", procedure: reclaimv1connect.ProjectServiceGetStatsProcedure,
		title: "The project's totals",
		description: "The totals of the caller's project over its confirmed transactions: gross and net rebates (lamports), " +
			"transactions, wallets, donations and their amount, and the gross split into rent and the wallets' own SOL " +
			"(totalRentRebate, totalOwnBalanceRebate: transactions recorded before the split count in neither). Read-only.",
		annotations: readsRecords,
		input:       func() proto.Message { return &reclaimv1.GetStatsRequest{} },
		call: func(m *mcpFace, ctx context.Context, req proto.Message) (connect.AnyResponse, error) {
			return unary(m.project.GetStats(ctx, connect.NewRequest(req.(*reclaimv1.GetStatsRequest))))
		},
	},
	{
		name: "get_leaderboard", operationID: "ProjectService_GetLeaderboard", procedure: reclaimv1connect.ProjectServiceGetLeaderboardProcedure,
		title: "The project's leaderboard",
		description: "The project's wallets ranked by gross rebate over confirmed transactions, optionally for one payer, one " +
			"transactionType (token_account_closure, token_burn, nft_burn) and a date range (startDate, endDate: ISO 8601 dates " +
			"or timestamps), limit (at most 1000) and offset. Read-only.",
		annotations: readsRecords,
		input:       func() proto.Message { return &reclaimv1.GetLeaderboardRequest{} },
		call: func(m *mcpFace, ctx context.Context, req proto.Message) (connect.AnyResponse, error) {
			return unary(m.project.GetLeaderboard(ctx, connect.NewRequest(req.(*reclaimv1.GetLeaderboardRequest))))
		},
		// Connect's answer: REST sends the entries as a bare array.
		output: func(s map[string]any) map[string]any {
			return map[string]any{"type": "object", "additionalProperties": false, "required": []any{"entries"},
				"properties": map[string]any{"entries": s}}
		},
	},
}

// idempotencyKeyArg is the argument keyed tools take for the
// Idempotency-Key header: the key itself, never the header's quoted form.
const idempotencyKeyArg = "idempotencyKey"

// idempotencyKeySchema is idempotencyKeyArg's schema: what ParseKey takes
// of an unquoted key.
var idempotencyKeySchema = map[string]any{
	"type": "string", "minLength": 1, "maxLength": idempotency.MaxKey, "pattern": "^[!-~]+$",
	"description": "A key unique to this request (such as a UUID), to call again safely: the same key with the same " +
		"arguments from the same credential (an API key, or the sessions of one API key for one wallet) within 24 hours " +
		"answers the first answer again, with idempotentReplayed true, without doing the work twice; the same key with " +
		"other arguments is refused (idempotency_key_reused). Shared with REST's Idempotency-Key header. 1 to 255 " +
		"printable ASCII characters without spaces.",
}

// replayedSchema is the property a keyed tool's answer gains on a replay.
var replayedSchema = map[string]any{
	"type": "boolean", "description": "true when this answer is the stored first answer of the call's idempotencyKey (REST's Idempotent-Replayed header)",
}

// tools returns the MCP tools with their schemas read from the OpenAPI
// document: the same names, types and descriptions as REST; a header
// parameter (Idempotency-Key) is an argument (idempotencyKey).
func (m *mcpFace) tools() ([]mcpTool, error) {
	ops, err := operations()
	if err != nil {
		return nil, err
	}
	out := make([]mcpTool, 0, len(toolSpecs))
	for _, s := range toolSpecs {
		op, ok := ops[s.operationID]
		if !ok || op.Output == nil {
			return nil, fmt.Errorf("mcp: tool %s: no operation %s with an answer in the OpenAPI document", s.name, s.operationID)
		}
		input, output := op.Input, op.Output
		if s.output != nil {
			output = s.output(output)
		}
		keyed := false
		for arg, header := range op.Headers {
			if header != idempotency.Header || !Idempotent(s.procedure) {
				return nil, fmt.Errorf("mcp: tool %s: header %s is no argument a tool takes", s.name, header)
			}
			input = withProperty(input, arg, idempotencyKeySchema)
			output = withProperty(output, "idempotentReplayed", replayedSchema)
			keyed = true
		}
		desc := s.description
		if _, creds, ok := strings.Cut(op.Description, "Credentials: "); ok {
			desc += "\n\nCredentials: " + creds
		}
		out = append(out, mcpTool{
			tool: &mcp.Tool{
				Name: s.name, Title: s.title, Description: desc, Annotations: s.annotations,
				InputSchema: input, OutputSchema: output,
			},
			procedure: s.procedure,
			input:     s.input,
			keyed:     keyed,
			call:      s.bind(m),
		})
	}
	return out, nil
}

// withProperty returns a copy of the object schema s with property name.
func withProperty(s map[string]any, name string, schema map[string]any) map[string]any {
	props := maps.Clone(s["properties"].(map[string]any))
	props[name] = schema
	out := maps.Clone(s)
	out["properties"] = props
	return out
}

// bind is the tool's call for m: the handler's answer as its REST body
// (the same codec: 64-bit integers as numbers), with what the tool adds
// (extra) and, on a replay, idempotentReplayed.
func (s toolSpec) bind(m *mcpFace) func(context.Context, proto.Message, http.Header) (any, error) {
	return func(ctx context.Context, req proto.Message, header http.Header) (any, error) {
		resp, err := m.keys.do(ctx, s.procedure, header, req, func(ctx context.Context) (connect.AnyResponse, error) {
			return s.call(m, ctx, req)
		})
		if err != nil {
			return nil, err
		}
		body, err := m.codec.MarshalAppend(nil, resp.Any().(proto.Message))
		if err != nil {
			return nil, err
		}
		replayed := resp.Header().Get(idempotency.ReplayedHeader) == "true"
		if s.extra == nil && !replayed {
			return json.RawMessage(body), nil
		}
		var out map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&out); err != nil {
			return nil, err
		}
		if s.extra != nil {
			s.extra(m, ctx, req, body, out)
		}
		if replayed {
			out["idempotentReplayed"] = true
		}
		return out, nil
	}
}

// unary is a handler's answer as any unary answer.
func unary[T any](resp *connect.Response[T], err error) (connect.AnyResponse, error) {
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// signLink adds to a build's answer who signs, and the signing page's link
// when there is one: the answer is stashed for the page, which reaches it
// by an id that is good for this build alone, never by a credential.
func (m *mcpFace) signLink(ctx context.Context, req proto.Message, body json.RawMessage, out map[string]any) {
	in := req.(*reclaimv1.BuildTransactionsRequest)
	out["signing"] = "unsigned: the wallet's owner signs these in their wallet; this server never signs"
	if m.signURL != "" && m.builds != nil {
		request, _ := m.codec.MarshalAppend(nil, in)
		id, expires, ok := m.builds.put(principalFrom(ctx).ProjectID, in.GetAddress(), body, request)
		if ok {
			out["signUrl"] = signLink(m.signURL, id)
			out["signUrlExpiresAt"] = expires.UTC().Format(time.RFC3339)
		}
	}
}

// MCPTool names a tool of /mcp and the REST operation it serves.
type MCPTool struct{ Name, Title, Operation string }

// MCPTools lists the tools of /mcp in the flow's order (for /llms.txt).
func MCPTools() []MCPTool {
	out := make([]MCPTool, len(toolSpecs))
	for i, s := range toolSpecs {
		out[i] = MCPTool{Name: s.name, Title: s.title, Operation: s.operationID}
	}
	return out
}
