package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// toolExtra is what a tool adds to its operation's answer, beyond the
// operation's policy (proto/reclaim/v1/options.proto), which names it.
type toolExtra struct {
	// output changes the operation's answer schema (nil: as it is).
	output func(schema map[string]any) map[string]any
	// extra adds to the answer (nil: the REST body as it is).
	extra func(m *mcpFace, ctx context.Context, req proto.Message, body json.RawMessage, out map[string]any)
}

// toolExtras are the tools that add to their operation's answer, by
// procedure: a build's answer says who signs, and links to the signing
// page.
var toolExtras = map[string]toolExtra{
	reclaimv1connect.WalletServiceBuildTransactionsProcedure: {
		extra: (*mcpFace).buildAnswer,
		output: func(s map[string]any) map[string]any {
			props := maps.Clone(s["properties"].(map[string]any))
			props["destructive"] = map[string]any{"type": "boolean", "description": "true when any transaction burns tokens or NFTs: show the person burnSummary before they sign"}
			props["burnSummary"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"},
				"description": "one line per burn: the transaction (from 1), the human amount and the token, e.g. \"transaction 1 burns 1.5 USDC (mint ...)\"; empty when nothing burns"}
			props["signUrl"] = map[string]any{"type": "string", "description": "a page where the wallet's owner signs and submits these transactions in a browser wallet; present when the server has one (RECLAIM_SIGN_URL)"}
			props["signUrlExpiresAt"] = map[string]any{"type": "string", "description": "when the signUrl stops working (ISO 8601)"}
			props["signing"] = map[string]any{"type": "string", "description": "who signs: always the wallet's owner, never this server"}
			out := maps.Clone(s)
			out["properties"] = props
			return out
		},
	},
}

// toolHints are a tool's hints (MCP tool annotations), as its operation
// declares them: every hint stated, true or false.
func toolHints(t *reclaimv1.Tool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		ReadOnlyHint: t.GetReadOnly(), DestructiveHint: new(t.GetDestructive()),
		IdempotentHint: t.GetIdempotent(), OpenWorldHint: new(t.GetOpenWorld()),
	}
}

// answerBody wraps the REST answer's schema as the handler's answer, for an
// operation whose REST body is one field of its answer (google.api.http's
// response_body: the leaderboard's entries, a bare array over REST); nil:
// the answer is the REST body.
func answerBody(md protoreflect.MethodDescriptor) func(map[string]any) map[string]any {
	rule, _ := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
	name := rule.GetResponseBody()
	if name == "" {
		return nil
	}
	key := md.Output().Fields().ByName(protoreflect.Name(name)).JSONName()
	return func(s map[string]any) map[string]any {
		return map[string]any{"type": "object", "additionalProperties": false, "required": []any{key},
			"properties": map[string]any{key: s}}
	}
}

// unaryCall is the handler method of md on handler (a service's
// implementation), called with a request message: the operation's own
// handler, found once, at start.
func unaryCall(handler any, md protoreflect.MethodDescriptor) (func(context.Context, proto.Message) (connect.AnyResponse, error), error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	if err != nil {
		return nil, err
	}
	if handler == nil {
		return nil, fmt.Errorf("the MCP server has no handler of %s", md.Parent().FullName())
	}
	fn := reflect.ValueOf(handler).MethodByName(string(md.Name()))
	if !fn.IsValid() || fn.Type().NumIn() != 2 || fn.Type().NumOut() != 2 || fn.Type().In(1).Kind() != reflect.Pointer {
		return nil, fmt.Errorf("%T has no unary method %s", handler, md.Name())
	}
	reqType := fn.Type().In(1).Elem() // connect.Request[T]
	if f, ok := reqType.FieldByName("Msg"); !ok || f.Type != reflect.TypeOf(mt.New().Interface()) {
		return nil, fmt.Errorf("%T.%s does not take a %s", handler, md.Name(), md.Input().FullName())
	}
	return func(ctx context.Context, msg proto.Message) (connect.AnyResponse, error) {
		req := reflect.New(reqType) // as connect.NewRequest(msg)
		req.Elem().FieldByName("Msg").Set(reflect.ValueOf(msg))
		out := fn.Call([]reflect.Value{reflect.ValueOf(ctx), req})
		if err, _ := out[1].Interface().(error); err != nil {
			return nil, err
		}
		return out[0].Interface().(connect.AnyResponse), nil
	}, nil
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

// tools returns the MCP tools the operations declare, in the flow's
// order, with their schemas read from the OpenAPI document: the same names,
// types and descriptions as REST; a header parameter (Idempotency-Key) is
// an argument (idempotencyKey).
func (m *mcpFace) tools() ([]mcpTool, error) {
	ops, err := operations()
	if err != nil {
		return nil, err
	}
	handlers := map[protoreflect.FullName]any{
		reclaimv1connect.WalletServiceName:  m.wallet,
		reclaimv1connect.ProjectServiceName: m.project,
	}
	out := make([]mcpTool, 0, len(gateway.Policies.Tools))
	for _, p := range gateway.Policies.Tools {
		t := p.Tool
		op, ok := ops[p.OperationID]
		if !ok || op.Output == nil {
			return nil, fmt.Errorf("mcp: tool %s: no operation %s with an answer in the OpenAPI document", t.GetName(), p.OperationID)
		}
		call, err := unaryCall(handlers[p.Method.Parent().FullName()], p.Method)
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %s: %w", t.GetName(), err)
		}
		mt, err := protoregistry.GlobalTypes.FindMessageByName(p.Method.Input().FullName())
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %s: %w", t.GetName(), err)
		}
		input, output := op.Input, op.Output
		x := toolExtras[p.Procedure]
		if wrap := answerBody(p.Method); wrap != nil {
			output = wrap(output)
		}
		if x.output != nil {
			output = x.output(output)
		}
		keyed := false
		for arg, header := range op.Headers {
			if header != idempotency.Header || p.Replay == nil {
				return nil, fmt.Errorf("mcp: tool %s: header %s is no argument a tool takes", t.GetName(), header)
			}
			input = withProperty(input, arg, idempotencyKeySchema)
			output = withProperty(output, "idempotentReplayed", replayedSchema)
			keyed = true
		}
		desc := t.GetDescription()
		if _, creds, ok := strings.Cut(op.Description, "Credentials: "); ok {
			desc += "\n\nCredentials: " + creds
		}
		out = append(out, mcpTool{
			tool: &mcp.Tool{
				Name: t.GetName(), Title: t.GetTitle(), Description: desc, Annotations: toolHints(t),
				InputSchema: input, OutputSchema: output,
			},
			procedure: p.Procedure,
			require:   p.Require,
			input:     func() proto.Message { return mt.New().Interface() },
			keyed:     keyed,
			call:      m.bind(p.Procedure, call, x.extra),
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

// bind is a tool's call for m: the handler's answer (call) as its REST body
// (the same codec: 64-bit integers as numbers), with what the tool adds
// (extra, nil for nothing) and, on a replay, idempotentReplayed.
func (m *mcpFace) bind(procedure string, call func(context.Context, proto.Message) (connect.AnyResponse, error),
	extra func(m *mcpFace, ctx context.Context, req proto.Message, body json.RawMessage, out map[string]any),
) func(context.Context, proto.Message, http.Header) (any, error) {
	return func(ctx context.Context, req proto.Message, header http.Header) (any, error) {
		resp, err := m.keys.Do(ctx, procedure, header, req, func(ctx context.Context) (connect.AnyResponse, error) {
			return call(ctx, req)
		})
		if err != nil {
			return nil, err
		}
		body, err := m.codec.MarshalAppend(nil, resp.Any().(proto.Message))
		if err != nil {
			return nil, err
		}
		replayed := resp.Header().Get(idempotency.ReplayedHeader) == "true"
		if extra == nil && !replayed {
			return json.RawMessage(body), nil
		}
		var out map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&out); err != nil {
			return nil, err
		}
		if extra != nil {
			extra(m, ctx, req, body, out)
		}
		if replayed {
			out["idempotentReplayed"] = true
		}
		return out, nil
	}
}

// buildAnswer adds to a build's answer whether it destroys anything, who
// signs, and the signing page's link.
func (m *mcpFace) buildAnswer(ctx context.Context, req proto.Message, body json.RawMessage, out map[string]any) {
	markBurns(out)
	m.signLink(ctx, req, body, out)
}

// markBurns states at the top of a build's answer whether any of its
// transactions burns, and each burn as a line a person reads.
func markBurns(out map[string]any) {
	lines := []string{}
	txs, _ := out["transactions"].([]any)
	for i, t := range txs {
		tx, _ := t.(map[string]any)
		burns, _ := tx["burns"].([]any)
		for _, b := range burns {
			burn, _ := b.(map[string]any)
			lines = append(lines, fmt.Sprintf("transaction %d burns %s", i+1, burnLine(burn)))
		}
	}
	out["destructive"] = len(lines) > 0
	out["burnSummary"] = lines
}

// burnLine is one burn of a build's REST answer for a person: "1.5 USDC
// (mint M)", "NFT 'Name' (mint M)".
func burnLine(b map[string]any) string {
	str := func(k string) string { s, _ := b[k].(string); return s }
	mint, name, symbol := str("mint"), str("name"), str("symbol")
	if t := str("type"); t == "nft" || t == "cnft" {
		label := "NFT"
		if t == "cnft" {
			label = "compressed NFT"
		}
		if name != "" {
			return fmt.Sprintf("%s %q (mint %s)", label, name, mint)
		}
		return fmt.Sprintf("%s (mint %s)", label, mint)
	}
	raw, _ := strconv.ParseUint(str("amount"), 10, 64)
	n, _ := b["decimals"].(json.Number)
	dec, _ := strconv.ParseUint(n.String(), 10, 8) // a mint's decimals are a u8
	token := symbol
	if token == "" {
		token = name
	}
	if token == "" {
		token = "tokens"
	}
	return fmt.Sprintf("%s %s (mint %s)", humanAmount(raw, uint8(dec)), token, mint)
}

// humanAmount is raw / 10^decimals exactly, without trailing zeros.
func humanAmount(raw uint64, decimals uint8) string {
	s := strconv.FormatUint(raw, 10)
	d := int(decimals)
	if d == 0 {
		return s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	whole, frac := s[:len(s)-d], strings.TrimRight(s[len(s)-d:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// signLink adds to a build's answer who signs, and the signing page's link
// when there is one: the answer is stashed for the page, which reaches it
// by an id that is good for this build alone, never by a credential.
func (m *mcpFace) signLink(ctx context.Context, req proto.Message, body json.RawMessage, out map[string]any) {
	in := req.(*reclaimv1.BuildTransactionsRequest)
	out["signing"] = "unsigned: the wallet's owner signs these in their wallet; this server never signs"
	if m.signURL != "" && m.builds != nil {
		request, _ := m.codec.MarshalAppend(nil, in)
		id, expires, ok := m.builds.put(gateway.PrincipalFrom(ctx).ProjectID, in.GetAddress(), body, request)
		if ok {
			out["signUrl"] = signLink(m.signURL, id)
			out["signUrlExpiresAt"] = expires.UTC().Format(time.RFC3339)
		}
	}
}
