package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
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
//  4. is answered by the one encoder (jsonCodec.MarshalAppend), once: the
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

// frontDoor routes, checks and decodes requests once, then hands them to
// vanguard (REST), to their Connect service (Connect calls), or to the mux.
type frontDoor struct {
	check *requestCheck
	// rest is vanguard behind restErrors: matched REST routes go there.
	rest http.Handler
	// mux serves everything else: the WebSocket, other Connect and gRPC
	// calls, unknown /v1/ paths (through vanguard's 404 and 405), the
	// probes, the console.
	mux http.Handler
	// services are the Connect service handlers by path prefix; ops the
	// procedures the mux serves (gRPC health and reflection).
	services map[string]http.Handler
	ops      map[string]bool
}

func (f *frontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/v1/"):
		if err := f.check.checkPath(path); err != nil {
			f.check.refuse(w, r, true, err)
			return
		}
		if isWebSocket(r) {
			f.mux.ServeHTTP(w, r)
			return
		}
		f.serveREST(w, r)
	default:
		if m, ok := f.check.procedures[path]; ok {
			f.serveConnect(w, r, path, m)
			return
		}
		if procedureShaped(path) && !f.ops[path] && f.check.errw.IsSupported(r) {
			// As gRPC servers answer a method they do not have, in the
			// call's protocol (not a 404 page a gRPC client cannot read).
			_ = f.check.errw.Write(w, r, connect.NewError(connect.CodeUnimplemented,
				fmt.Errorf("no procedure %s: see the API reference in the README", path)))
			return
		}
		f.mux.ServeHTTP(w, r)
	}
}

func (f *frontDoor) serveREST(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		f.check.refuse(w, r, true, err)
		return
	}
	route, req, err := f.check.checkREST(r, body)
	if err != nil {
		f.check.refuse(w, r, true, err)
		return
	}
	if route == nil {
		f.mux.ServeHTTP(w, r)
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
	f.rest.ServeHTTP(w, r)
}

func (f *frontDoor) serveConnect(w http.ResponseWriter, r *http.Request, procedure string, m protoreflect.MethodDescriptor) {
	body, err := readBody(r)
	if err != nil {
		f.check.refuse(w, r, false, err)
		return
	}
	req, err := checkConnect(r, body, m)
	if err != nil {
		f.check.refuse(w, r, false, err)
		return
	}
	if req.msg != nil {
		r = handOver(r, procedure, req.msg)
		if req.empty != nil {
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(req.empty)), int64(len(req.empty))
		}
	}
	if h, ok := f.services[procedure[:strings.LastIndexByte(procedure, '/')+1]]; ok {
		h.ServeHTTP(w, r)
		return
	}
	f.mux.ServeHTTP(w, r)
}

// procedureShaped reports whether a path is /package.Service/Method.
func procedureShaped(path string) bool {
	service, method, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return ok && strings.Contains(service, ".") && method != "" && !strings.Contains(method, "/")
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

// handover is the first interceptor of the Connect handlers: it moves the
// fields of the request the front door decoded into the one connect-go made
// from what vanguard sent (the path's variables), or from the empty body of
// a Connect call. The decoded request has no path variable set, so the
// path's stay, as when vanguard decoded the body itself.
type handover struct{}

var _ connect.Interceptor = handover{}

func (handover) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
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

func (handover) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (handover) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
