// Package mcp is the API's Model Context Protocol server (/mcp): the
// operations the registry marks as tools, each calling the same handler its
// REST route and Connect procedure reach, under the same credentials and
// buckets (the gateway's), with its arguments checked as a REST body is.
// It also serves the builds its answers link to and its protected-resource
// metadata. It never imports the face (backend/server): the handlers and
// the gateway's parts come in Deps.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// Path is the Model Context Protocol endpoint (Streamable HTTP) on the
// API's port: the API's operations as tools an agent can call.
const Path = "/mcp"

// mcpSessionTTL is the life of the wallet-bound session a tool mints for a
// call made with an API key: one call's.
const mcpSessionTTL = 5 * time.Minute

// mcpInstructions tell a connected agent what the server is for.
const mcpInstructions = `Reclaim finds the SOL locked in a Solana wallet's forgotten items (empty token accounts, unwanted tokens and NFTs) and builds the transactions that return it to the wallet.
The flow: list_wallet_items (what can be reclaimed and how much each returns), then build_reclaim_transactions for the chosen items (unsigned: this server never signs and holds no wallet key), then the wallet's owner signs each transaction in their wallet (a signUrl in the build's answer opens a page that does it in a browser wallet), then submit_signed_transactions, then get_submission_status until each is confirmed. To retry a build or a submit safely, give it an idempotencyKey (a UUID): the same key with the same arguments answers the first answer again (idempotentReplayed: true) instead of doing it twice. Amounts are integers in lamports (1 SOL = 1,000,000,000 lamports).
Credentials: the API's own, on every HTTP request: X-Api-Key (a project's API key; tools that act on a wallet then work under a session for that wallet they mint themselves) or Authorization: Bearer SESSION_TOKEN (a session bound to one wallet, with its scopes). Errors are tool errors whose text is the REST error body: {statusCode, error, code, message, param}, param naming the argument to fix.`

// mcpFace serves the API's operations as MCP tools. A tool calls the same
// handler its REST route and Connect procedure reach (never HTTP to this
// server), under the same credential rule (requirements), with its
// arguments checked as a REST body is (checkJSON) and its errors mapped by
// ToConnect into the REST error body.
type mcpFace struct {
	gate    *gateway.AuthInterceptor
	auth    *auth.Authenticator
	issuer  *auth.Issuer
	wallet  reclaimv1connect.WalletServiceHandler
	project reclaimv1connect.ProjectServiceHandler
	codec   *gateway.JSONCodec
	// keys runs the keyed calls (idempotencyKey) as REST's Idempotency-Key.
	keys   *gateway.IdempotencyInterceptor
	builds *buildStash
	// meta is /mcp's protected-resource metadata, which a 401 points to.
	meta resourceMetadata
	// signURL is the signing page a build's answer links to ("": none).
	signURL string
	log     *slog.Logger
}

// Deps are what the MCP server is built from: the API's gate, codec and
// idempotency layer, the handlers its tools call, and its settings.
type Deps struct {
	Gate    *gateway.AuthInterceptor
	Auth    *auth.Authenticator
	Issuer  *auth.Issuer
	Wallet  reclaimv1connect.WalletServiceHandler
	Project reclaimv1connect.ProjectServiceHandler
	Codec   *gateway.JSONCodec
	Keys    *gateway.IdempotencyInterceptor
	// Origins is the CORS policy the signing page's reads of a build follow.
	Origins *gateway.OriginPolicy
	// ResourceURL is /mcp's public URL its protected-resource metadata
	// names ("": the URL each request reached); authorizationServers the
	// OAuth issuers it lists; docs the path of the agents' documentation.
	ResourceURL          string
	AuthorizationServers []string
	Docs                 string
	// SignURL is the signing page a build's answer links to ("": none);
	// now the clock of the builds kept for it (nil: time.Now), stashBytes
	// their bound (0: 64 MiB).
	SignURL    string
	Now        func() time.Time
	StashBytes int
	Log        *slog.Logger
}

// Mount serves the MCP endpoint (/mcp), the builds its answers link to
// (/mcp/builds/{id}) and its protected-resource metadata on mux.
func Mount(mux *http.ServeMux, d Deps) error {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	face := &mcpFace{
		gate: d.Gate, auth: d.Auth, issuer: d.Issuer, wallet: d.Wallet, project: d.Project,
		meta:  resourceMetadata{resource: d.ResourceURL, servers: d.AuthorizationServers, docs: d.Docs},
		codec: d.Codec, keys: d.Keys, builds: newBuildStash(now, d.StashBytes), signURL: d.SignURL, log: d.Log,
	}
	tools, err := face.tools()
	if err != nil {
		return err
	}
	mux.Handle(Path, face.handler(tools))
	mux.Handle("GET "+buildsPath, face.serveBuild(d.Origins))
	mux.Handle(ProtectedResourcePath, face.meta.serve(d.Gate))
	mux.Handle(ProtectedResourcePath+Path, face.meta.serve(d.Gate))
	return nil
}

// mcpTool is one tool: the procedure whose rule and handler it shares.
type mcpTool struct {
	tool      *mcp.Tool
	procedure string
	// require is the credentials its operation takes.
	require auth.Requirement
	// input returns a new request message to decode the arguments into.
	input func() proto.Message
	// keyed: the tool takes idempotencyKey.
	keyed bool
	// call runs the procedure's handler with the decoded request, as the
	// principal the tool settled on, with header holding the key, and
	// returns the tool's output.
	call func(ctx context.Context, req proto.Message, header http.Header) (any, error)
}

// handler is /mcp: the API's gate (the client address's bucket, the
// credentials, their bucket) on every HTTP request, then the refusal of
// JSON-RPC batches (noBatches), then the MCP server.
// The server is stateless: every request carries its own credentials and
// may reach any instance behind a balancer.
func (m *mcpFace) handler(tools []mcpTool) http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "reclaim", Title: "Reclaim", Version: "v1"},
		&mcp.ServerOptions{Instructions: mcpInstructions})
	for _, t := range tools {
		srv.AddTool(t.tool, m.run(t))
	}
	h := noBatches(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, MaxRequestBodyBytes: gateway.MaxRequestBytes, Logger: m.log,
	}), gateway.MaxRequestBytes)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, note, err := m.gate.Authenticate(r.Context(), r.Header, r.RemoteAddr)
		note.SetHeaders(w.Header())
		if err != nil {
			if connect.CodeOf(err) == connect.CodeUnauthenticated {
				w.Header().Set("WWW-Authenticate", m.meta.challenge(r))
			}
			gateway.Settle(r.Context(), "", err)
			writeError(w, err)
			return
		}
		ctx := withToolCharges(gateway.WithPrincipal(r.Context(), p), w.Header(), note)
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// run is the MCP handler of tool t.
func (m *mcpFace) run(t mcpTool) mcp.ToolHandler {
	rule := t.require
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, err := m.call(ctx, t, rule, req.Params.Arguments)
		gateway.Settle(ctx, "mcp/"+t.tool.Name, err)
		if err != nil {
			return m.toolError(ctx, err), nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return m.toolError(ctx, err), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
	}
}

func (m *mcpFace) call(ctx context.Context, t mcpTool, rule auth.Requirement, args json.RawMessage) (any, error) {
	msg := t.input()
	args, header, err := keyArgument(t, args)
	if err != nil {
		return nil, err
	}
	if len(args) > 0 && string(args) != "null" {
		if err := m.codec.Unmarshal(args, msg); err != nil {
			return nil, err
		}
	}
	wallet := ""
	if a, ok := msg.(gateway.Addressed); ok {
		wallet = a.GetAddress()
	}
	// Charged as its route: the wallet's share and the project's quota,
	// before a session is minted for it.
	if err := m.charge(ctx, wallet); err != nil {
		return nil, err
	}
	p, err := m.principal(ctx, rule, wallet)
	if err != nil {
		return nil, err
	}
	if err := auth.Check(p, rule, wallet); err != nil {
		return nil, err
	}
	return t.call(gateway.WithPrincipal(ctx, p), msg, header)
}

// keyArgument takes a keyed tool's idempotencyKey out of its arguments,
// as the Idempotency-Key header the idempotency layer reads; the rest are
// the request's fields. A key that is not one is refused naming the
// argument.
func keyArgument(t mcpTool, args json.RawMessage) (json.RawMessage, http.Header, error) {
	if !t.keyed || !bytes.Contains(args, []byte(idempotencyKeyArg)) {
		return args, nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil {
		return args, nil, nil //nolint:nilerr // not an object: the decoder says what is wrong, as for any tool
	}
	raw, ok := fields[idempotencyKeyArg]
	if !ok {
		return args, nil, nil
	}
	var key string
	if err := json.Unmarshal(raw, &key); err != nil {
		return nil, nil, fault.Invalid(idempotencyKeyArg, "idempotencyKey must be a string: a unique key per request, such as a UUID")
	}
	if _, err := idempotency.ParseKey([]string{key}); err != nil || strings.HasPrefix(key, `"`) {
		return nil, nil, fault.Invalid(idempotencyKeyArg,
			"idempotencyKey must be 1 to %d printable ASCII characters without spaces, such as a UUID", idempotency.MaxKey)
	}
	delete(fields, idempotencyKeyArg)
	rest, err := json.Marshal(fields)
	if err != nil {
		return nil, nil, err
	}
	return rest, http.Header{idempotency.Header: {key}}, nil
}

// charge spends one tool call from the buckets its route spends (the
// request's principal acting on wallet), and puts the decisions in the
// HTTP answer's headers.
func (m *mcpFace) charge(ctx context.Context, wallet string) error {
	tc, _ := ctx.Value(toolChargesKey{}).(*toolCharges)
	if tc == nil {
		return errors.New("mcp: a tool call outside an HTTP request")
	}
	note, err := m.gate.Charge(ctx, gateway.PrincipalFrom(ctx), wallet, tc.address)
	tc.mu.Lock()
	note.SetHeaders(tc.header)
	tc.mu.Unlock()
	return err
}

type toolChargesKey struct{}

// toolCharges is where the tool calls of one HTTP request on /mcp report
// their rate-limit decisions: its answer's headers, written once the calls
// have run; address is the client address's decision, spent once per
// request.
type toolCharges struct {
	mu      sync.Mutex
	header  http.Header
	address gateway.RateNote
}

func withToolCharges(ctx context.Context, h http.Header, address gateway.RateNote) context.Context {
	return context.WithValue(ctx, toolChargesKey{}, &toolCharges{header: h, address: address})
}

// principal is who a tool call acts as: the request's principal, or, for
// an API key calling a tool that acts on a wallet, a session bound to that
// wallet that the key mints for this call (all scopes, a few minutes), so
// that the call runs as a browser's would. An address that cannot be a
// session's wallet stays with the key: the handler then says what is wrong
// with it, as REST does.
func (m *mcpFace) principal(ctx context.Context, rule auth.Requirement, wallet string) (auth.Principal, error) {
	p := gateway.PrincipalFrom(ctx)
	if p.Kind != auth.KindAPIKey || !rule.BindsWallet || auth.ValidateWallet(wallet) != nil {
		return p, nil //nolint:nilerr // a wallet that is not one stays with the key: the handler says what is wrong
	}
	ttl := int64(mcpSessionTTL / time.Second)
	sr, err := auth.NewSessionRequest(wallet, nil, &ttl)
	if err != nil {
		return p, nil //nolint:nilerr // the key calls on: the handler says what is wrong with the address, as REST does
	}
	token, _, err := m.issuer.Issue(p, sr)
	if err != nil {
		return auth.Principal{}, err
	}
	return m.auth.Session(ctx, token)
}

// writeError answers an HTTP request (not a procedure) with the REST error
// body of a Connect error, and its headers (Retry-After).
func writeError(w http.ResponseWriter, err error) {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		ce = connect.NewError(connect.CodeInternal, errors.New("internal error; it has been logged"))
	}
	for k, v := range ce.Meta() {
		w.Header()[k] = v
	}
	gateway.RestErrorOf(ce).Write(w)
}

// toolError is a tool error whose text is the REST error body of err: the
// same code, message and param a REST client reads.
func (m *mcpFace) toolError(ctx context.Context, err error) *mcp.CallToolResult {
	var ce *connect.Error
	if !errors.As(gateway.ToConnect(ctx, m.log, err), &ce) {
		ce = connect.NewError(connect.CodeInternal, errors.New("internal error; it has been logged"))
	}
	body := gateway.RestErrorOf(ce)
	for _, d := range ce.Details() {
		// An idempotency refusal: its own status and code, as REST's.
		if info, err := d.Value(); err == nil {
			if info, ok := info.(*errdetails.ErrorInfo); ok {
				if status, code, ok := gateway.RestReason(info.GetReason()); ok {
					body.StatusCode, body.Error, body.Code = status, http.StatusText(status), code
				}
			}
		}
	}
	if body.Param == idempotency.Header {
		body.Param = idempotencyKeyArg // the argument that stands for it
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(body.Encode())}}}
}
