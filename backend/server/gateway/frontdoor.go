// Package gateway is the API's front door: every request the face serves
// (REST, Connect, gRPC, MCP) passes through it once. It routes and checks
// requests, decodes and encodes JSON (the codec), checks credentials and
// charges the rate-limit buckets (the gate), runs Idempotency-Key writes,
// applies CORS, maps errors to Connect codes and the REST error body, and
// observes every request. The operation registry (operations.go) is here,
// read from the proto, for every layer to ask. It never imports the face
// (backend/server): what it needs from it comes as values at construction.
package gateway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The front door: every request that names an operation, REST or Connect,
// comes in here once (docs/decisions.md, "front door"). A REST request:
//
//  1. is routed once by the front door, against the google.api.http rules
//     (requestCheck.checkREST); http.ServeMux does not see it;
//  2. is checked and decoded once: its JSON body by the one decoder
//     (decodeJSON), which checks and decodes in one pass, or its query
//     string, parsed as vanguard parses it, into the route's request
//     message;
//  3. goes to vanguard without its body or query string, and the decoded
//     request with it, in its context. Vanguard routes it too (it has no way
//     to be told the route), sets the path's variables in a request of its
//     own and transcodes it to Connect; the handover interceptor, first of
//     the Connect handler's, moves the decoded request's fields into the
//     request connect-go made. What vanguard and connect-go still decode and
//     encode on the way is that request of path variables only: "{}" or
//     {"address":"...","items":[]};
//  4. is answered by the one encoder (JSONCodec.MarshalAppend), once: the
//     Connect handler writes the JSON, and vanguard passes the bytes on, for
//     the codecs on both of its sides are the same (the leaderboard's bare
//     array aside: vanguard decodes the answer to take the field out).
//
// A body the one decoder leaves (a malformed one, or a valid one in a form it
// does not read: escaped surrogates, numbers in strings for floats) is
// checked by checkJSON, whose messages are the API's, and if it passes goes
// on as it came, for vanguard's codec or connect-go's to decode with
// protojson. A Connect unary JSON call is decoded and handed over alike; the
// other Connect and gRPC calls, the WebSocket, the probes and the console go
// through http.ServeMux as before.
//
// Before: routed by http.ServeMux, the request check and vanguard; a JSON
// body parsed six times (checkJSON's two passes in the check and again in
// vanguard's codec, protojson in vanguard and in connect-go) and encoded
// once more between vanguard and connect-go; an answer encoded by protojson,
// decoded into a tree and encoded again.

// FrontDoor routes, checks and decodes requests once, then hands them to
// vanguard (REST), to their Connect service (Connect calls), or to the mux.
type FrontDoor struct {
	Check *requestCheck
	// Auth checks the credentials of a request the check refuses, first
	// (credentialsFirst); nil: none are checked.
	Auth *AuthInterceptor
	// Rest is vanguard behind RestErrors: matched REST routes go there.
	Rest http.Handler
	// Mux serves everything else: the WebSocket, other Connect and gRPC
	// calls, unknown /v1/ paths (through vanguard's 404 and 405), the
	// probes, the console.
	Mux http.Handler
	// Services are the Connect service handlers by path prefix; ops the
	// procedures the mux serves (gRPC health and reflection).
	Services map[string]http.Handler
	Ops      map[string]bool
}

func (f *FrontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/v1/"):
		if err := f.Check.checkPath(path); err != nil {
			f.Check.refuse(w, r, true, err)
			return
		}
		if IsWebSocket(r) {
			f.Mux.ServeHTTP(w, r)
			return
		}
		f.serveREST(w, r)
	default:
		if m, ok := f.Check.procedures[path]; ok {
			f.serveConnect(w, r, path, m)
			return
		}
		switch {
		case f.Ops[path]:
		case procedureShaped(path) && rpcCall(r):
			// As gRPC servers answer a method they do not have, in the
			// call's protocol (not a 404 page a gRPC client cannot read).
			_ = f.Check.errw.Write(w, r, connect.NewError(connect.CodeUnimplemented,
				fmt.Errorf("no procedure %s: see the API reference in the README", path)))
			return
		case procedureShaped(path) || f.underService(path):
			// A browser's or a REST client's request: the 404 in the REST
			// error shape that every other path gets (not connect-go's
			// plain-text one under our services' paths).
			NotFound(w, r)
			return
		}
		f.Mux.ServeHTTP(w, r)
	}
}

func (f *FrontDoor) serveREST(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		f.refuseREST(w, r, f.Check.route(r.Method, r.URL.Path), err)
		return
	}
	route, req, err := f.Check.checkREST(r, body)
	if err != nil {
		f.refuseREST(w, r, route, err)
		return
	}
	if route == nil {
		f.Mux.ServeHTTP(w, r)
		return
	}
	// As http.ServeMux would: otelhttp names its span again, for the
	// procedure, only for a request with a pattern (spanName).
	r.Pattern = "/v1/"
	if r.Method == http.MethodHead {
		// Served as the GET it is the head of (vanguard routes HEAD to no
		// rule); net/http sends the header only, with the GET's length.
		r = r.WithContext(r.Context())
		r.Method = http.MethodGet
	}
	if req != nil {
		r = handOver(r, route.procedure, req)
	}
	f.Rest.ServeHTTP(w, r)
}

func (f *FrontDoor) serveConnect(w http.ResponseWriter, r *http.Request, procedure string, m protoreflect.MethodDescriptor) {
	body, err := readBody(r)
	if err == nil {
		var req connectBody
		if req, err = checkConnect(r, body, m); err == nil {
			f.serveChecked(w, r, procedure, req)
			return
		}
	}
	// The wallet is in the body that did not pass: the binding is the
	// handler's, once a body passes.
	f.Check.refuse(w, r, false, f.credentialsFirst(r, procedure, "", err))
}

// refuseREST answers a REST request the check refused, on route (nil: a
// path and method no rule serves, refused before any credentials).
func (f *FrontDoor) refuseREST(w http.ResponseWriter, r *http.Request, route *restRoute, err error) {
	if route != nil {
		err = f.credentialsFirst(r, route.procedure, route.address(r.URL.Path), err)
	}
	f.Check.refuse(w, r, true, err)
}

// serveChecked hands a checked Connect or gRPC call to its service.
func (f *FrontDoor) serveChecked(w http.ResponseWriter, r *http.Request, procedure string, req connectBody) {
	if req.msg != nil {
		r = handOver(r, procedure, req.msg)
		if req.empty != nil {
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(req.empty)), int64(len(req.empty))
		}
	}
	if h, ok := f.Services[procedure[:strings.LastIndexByte(procedure, '/')+1]]; ok {
		h.ServeHTTP(w, r)
		return
	}
	f.Mux.ServeHTTP(w, r)
}

// underService reports whether path is under one of our services' paths.
func (f *FrontDoor) underService(path string) bool {
	service, _, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	_, known := f.Services["/"+service+"/"]
	return ok && known
}

// credentialsFirst checks the credentials of a request the check refused,
// as the auth interceptor checks every call first (the address's bucket,
// the credentials, the wallet's and the project's quota, then scope and the
// wallet the path names): a request without valid credentials is refused
// for them, in the same words with or without a mistake in its query or
// body, and learns nothing of the route's rules. It returns the error to
// answer: the credentials' refusal, or the check's, with the rate-limit
// decisions of the request's charge, as a refusal by a handler carries
// them.
func (f *FrontDoor) credentialsFirst(r *http.Request, procedure, wallet string, refused error) error {
	if f.Auth == nil {
		return refused
	}
	if _, ok := Requirement(procedure); !ok {
		return refused
	}
	var msg any
	if wallet != "" {
		msg = pathAddress(wallet)
	}
	_, note, err := f.Auth.Admit(r.Context(), procedure, r.Header, r.RemoteAddr, msg)
	ce := ToConnectError(r.Context(), f.Auth, err)
	if err == nil {
		ce = refusalOf(refused)
	}
	note.SetHeaders(ce.Meta())
	return ce
}

// pathAddress is the wallet a REST path names, for the auth interceptor's
// binding check when the request itself did not decode.
type pathAddress string

func (a pathAddress) GetAddress() string { return string(a) }

// procedureShaped reports whether a path is /package.Service/Method, in
// protobuf's names: dotted identifiers, then one identifier
// (/.well-known/... and /a-b.c/d are not).
func procedureShaped(path string) bool {
	service, method, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if !ok || !strings.Contains(service, ".") || !identifier(method) {
		return false
	}
	for part := range strings.SplitSeq(service, ".") {
		if !identifier(part) {
			return false
		}
	}
	return true
}

// identifier reports whether s is a protobuf identifier: a letter or _,
// then letters, digits and _.
func identifier(s string) bool {
	for i, c := range []byte(s) {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// rpcCall reports whether r is a call in one of the RPC protocols, which
// a client library reads an unimplemented error from: a POST of gRPC,
// gRPC-Web, a Connect stream, or a Connect unary call (protobuf, or JSON as
// connect-go and curl send it), or a GET or POST that says it speaks
// Connect (the Connect-Protocol-Version header, or a Connect GET's query:
// ?connect=v1, or encoding= and message=). connect.ErrorWriter.IsSupported
// takes every GET and every POST of an application/ type for Connect's; a
// browser's or a REST client's request gets a 404 instead.
func rpcCall(r *http.Request) bool {
	if r.Header.Get("Connect-Protocol-Version") != "" && (r.Method == http.MethodPost || r.Method == http.MethodGet) {
		return true
	}
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		return q.Get("connect") == "v1" || q.Has("encoding") && q.Has("message")
	case http.MethodPost:
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		return mt == "application/json" || mt == "application/proto" ||
			strings.HasPrefix(mt, "application/grpc") || strings.HasPrefix(mt, "application/connect+")
	}
	return false
}

// decoded is a request the front door decoded, for the procedure it is
// for.
type decoded struct {
	procedure string
	msg       proto.Message
}

type decodedKey struct{}

// handOver puts the decoded request in r's context and takes away what it
// was decoded from: the body, and the query string (vanguard would read it
// again). The outer request keeps its URL: the observer logs it.
func handOver(r *http.Request, procedure string, msg proto.Message) *http.Request {
	r = r.WithContext(context.WithValue(r.Context(), decodedKey{}, decoded{procedure: procedure, msg: msg}))
	u := *r.URL
	u.RawQuery = ""
	r.URL = &u
	r.Body, r.ContentLength = http.NoBody, 0
	return r
}

// Handover is the first interceptor of the Connect handlers: it moves the
// fields of the request the front door decoded into the one connect-go made
// from what vanguard sent (the path's variables), or from the empty body of
// a Connect call. The decoded request has no path variable set, so the
// path's stay, as when vanguard decoded the body itself.
type Handover struct{}

var _ connect.Interceptor = Handover{}

// WrapUnary moves the front door's decoded request into connect-go's.
func (Handover) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		d, ok := ctx.Value(decodedKey{}).(decoded)
		dst, isMsg := req.Any().(proto.Message)
		if ok && isMsg && d.procedure == req.Spec().Procedure {
			to := dst.ProtoReflect()
			if to.Descriptor() == d.msg.ProtoReflect().Descriptor() {
				d.msg.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
					to.Set(fd, v)
					return true
				})
			}
		}
		return next(ctx, req)
	}
}

// WrapStreamingClient passes a client's streams through: the server has none.
func (Handover) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler passes streams through: the front door decodes none.
func (Handover) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
