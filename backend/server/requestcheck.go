package server

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// requestCheck is the REST and Connect request check: it checks what can be
// checked of a request before vanguard and connect-go see it, and answers in the request's own protocol (a REST error body, or a
// Connect/gRPC error through connect's ErrorWriter):
//   - a body over maxRequestBytes is refused (REST: 413) before it is decoded;
//   - a REST GET's Content-Type is ignored (a GET has no body: some clients
//     and load tools set one on every request), and a GET with a body refused;
//   - the JSON body of a REST route or a Connect call, and a REST query
//     string, must fit the request message (checkJSON): every malformed
//     body gets the same 400 naming the field, whether or not the route has
//     path parameters. Without this, vanguard decodes the body of a route with
//     path parameters itself and reports a decoding error as 500, while
//     connect-go words it "unmarshal message: proto: ...".
type requestCheck struct {
	next       http.Handler
	procedures map[string]protoreflect.MessageDescriptor
	routes     []restRoute
	others     []restRoute // paths served outside the HTTP rules (the stream's WebSocket)
	errw       *connect.ErrorWriter
}

// restRoute is a google.api.http rule: its method, its path template split
// into segments ("" for a variable), and its request message.
type restRoute struct {
	method   string
	template string // the rule's path, e.g. /v1/wallet/{address}/transactions
	segments []string
	vars     map[string]bool
	body     string // "*", or "" for none
	input    protoreflect.MessageDescriptor
}

func newRequestCheck(next http.Handler, services []protoreflect.ServiceDescriptor, errw *connect.ErrorWriter, others ...string) *requestCheck {
	g := &requestCheck{next: next, procedures: map[string]protoreflect.MessageDescriptor{}, errw: errw}
	for _, p := range others {
		g.others = append(g.others, parseTemplate(http.MethodGet, p))
	}
	for _, sd := range services {
		methods := sd.Methods()
		for i := 0; i < methods.Len(); i++ {
			m := methods.Get(i)
			g.procedures["/"+string(sd.FullName())+"/"+string(m.Name())] = m.Input()
			if r, ok := routeOf(m); ok {
				g.routes = append(g.routes, r)
			}
		}
	}
	return g
}

// routeOf reads a method's google.api.http rule (only the forms we use: one
// verb, single-segment variables, body "*" or none).
func routeOf(m protoreflect.MethodDescriptor) (restRoute, bool) {
	rule, ok := proto.GetExtension(m.Options(), annotations.E_Http).(*annotations.HttpRule)
	if !ok || rule == nil {
		return restRoute{}, false
	}
	var method, path string
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		method, path = http.MethodGet, p.Get
	case *annotations.HttpRule_Post:
		method, path = http.MethodPost, p.Post
	case *annotations.HttpRule_Put:
		method, path = http.MethodPut, p.Put
	case *annotations.HttpRule_Delete:
		method, path = http.MethodDelete, p.Delete
	case *annotations.HttpRule_Patch:
		method, path = http.MethodPatch, p.Patch
	default:
		return restRoute{}, false
	}
	r := parseTemplate(method, path)
	r.body, r.input = rule.GetBody(), m.Input()
	return r, true
}

// parseTemplate splits a path template into the route's segments.
func parseTemplate(method, path string) restRoute {
	r := restRoute{method: method, template: path, vars: map[string]bool{}}
	for _, seg := range strings.Split(strings.Trim(path, "/"), "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			name = strings.TrimSuffix(strings.TrimSuffix(name, "}"), "=*")
			r.vars[name] = true
			seg = ""
		}
		r.segments = append(r.segments, seg)
	}
	return r
}

func (r restRoute) matches(method string, segments []string) bool {
	if method != r.method || len(segments) != len(r.segments) {
		return false
	}
	for i, s := range r.segments {
		if s != "" && s != segments[i] || s == "" && segments[i] == "" {
			return false
		}
	}
	return true
}

// missing names the variable of the route's path left empty in segments,
// when every other segment fits the route.
func (r restRoute) missing(segments []string) (string, bool) {
	if len(segments) != len(r.segments) {
		return "", false
	}
	empty := -1
	for i, s := range r.segments {
		switch {
		case s != "" && s != segments[i]:
			return "", false
		case s == "" && segments[i] == "" && empty < 0:
			empty = i
		}
	}
	if empty < 0 {
		return "", false
	}
	name := strings.Split(strings.Trim(r.template, "/"), "/")[empty]
	return strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(name, "{"), "}"), "=*"), true
}

// errNoRoute is a /v1/ path that is not in its clean form.
var errNoRoute = errors.New("no route for this path: it has an empty segment, '.' or '..'; see the API reference in the README")

// checkPath refuses a /v1/ path that http.ServeMux would redirect to its
// clean form (a 307 or 301 that no API client expects, and that drops a
// POST's purpose): a route's variable left empty, as in
// /v1/wallet//transactions, is a 400 naming it; any other unclean path a 404.
func (g *requestCheck) checkPath(p string) error {
	if cleanPath(p) == p {
		return nil
	}
	segments := strings.Split(strings.Trim(p, "/"), "/")
	for _, route := range append(g.routes[:len(g.routes):len(g.routes)], g.others...) {
		if name, ok := route.missing(segments); ok {
			return invalidParam(name, "the path has no %s: send it as %s", name, route.template)
		}
	}
	return errNoRoute
}

// cleanPath is the path http.ServeMux serves without a redirect: path.Clean's,
// keeping a trailing slash.
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

func (g *requestCheck) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/v1/") {
		if err := g.checkPath(r.URL.Path); err != nil {
			g.refuse(w, r, true, err)
			return
		}
	}
	rest := strings.HasPrefix(r.URL.Path, "/v1/") && !isWebSocket(r)
	md, procedure := g.procedures[r.URL.Path]
	if !rest && !procedure {
		g.next.ServeHTTP(w, r)
		return
	}
	body, err := readBody(r)
	if err != nil {
		g.refuse(w, r, rest, err)
		return
	}
	if rest {
		err = g.checkREST(r, body)
	} else {
		err = checkConnect(r, body, md)
	}
	if err != nil {
		g.refuse(w, r, rest, err)
		return
	}
	g.next.ServeHTTP(w, r)
}

// errBodyTooLarge is a body over maxRequestBytes: 413 to a REST client,
// resource_exhausted (connect-go's own code for it) to Connect and gRPC.
var errBodyTooLarge = fmt.Errorf("request body is larger than the limit of %d bytes (1 MiB): send fewer items or signed transactions per request", maxRequestBytes)

// readBody reads the whole body (at most maxRequestBytes) and puts it back
// for the handlers, so it can be checked first.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > maxRequestBytes {
		return nil, errBodyTooLarge
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	_ = r.Body.Close()
	if err != nil {
		return nil, invalidParam("", "reading the request body failed: %v", err)
	}
	if len(body) > maxRequestBytes {
		return nil, errBodyTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return body, nil
}

func (g *requestCheck) checkREST(r *http.Request, body []byte) error {
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodDelete {
		if len(body) > 0 {
			return invalidParam("", "%s %s takes no body: send its parameters in the query string", r.Method, r.URL.Path)
		}
		r.Header.Del("Content-Type")
	}
	if !utf8.ValidString(r.URL.Path) {
		return invalidParam("", "the path %q is not valid UTF-8 once unescaped", r.URL.EscapedPath())
	}
	segments := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	for _, route := range g.routes {
		if !route.matches(r.Method, segments) {
			continue
		}
		if err := checkQuery(r.URL.RawQuery, route); err != nil {
			return err
		}
		if route.body == "" || len(body) == 0 {
			return nil
		}
		if err := checkJSONContentType(r.Header.Get("Content-Type")); err != nil {
			return err
		}
		return checkJSON(body, route.input)
	}
	return nil // not a route: vanguard answers 404 or 405
}

// errUnsupportedMediaType is a REST body sent as something other than JSON.
var errUnsupportedMediaType = errors.New("request body must be JSON: send it with Content-Type: application/json")

func checkJSONContentType(ct string) error {
	if ct == "" {
		return nil // vanguard reads a body without a type as JSON
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return errUnsupportedMediaType
	}
	return nil
}

// checkConnect checks the JSON body of a Connect call: a unary request
// (application/json) or the one enveloped request of a server stream
// (application/connect+json). Binary and gRPC bodies are connect-go's.
func checkConnect(r *http.Request, body []byte, md protoreflect.MessageDescriptor) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case r.Method != http.MethodPost:
		return nil
	case mt == "application/json":
		return checkJSON(body, md)
	case mt == "application/connect+json" && len(body) >= 5 && body[0] == 0:
		n := binary.BigEndian.Uint32(body[1:5])
		if uint64(n) == uint64(len(body)-5) {
			return checkJSON(body[5:], md)
		}
	}
	return nil
}

// refuse answers a request the check stopped.
func (g *requestCheck) refuse(w http.ResponseWriter, r *http.Request, rest bool, err error) {
	var ce *connect.Error
	var f *fault.Error
	status := 0
	switch {
	case errors.Is(err, errBodyTooLarge):
		ce, status = connect.NewError(connect.CodeResourceExhausted, err), http.StatusRequestEntityTooLarge
	case errors.Is(err, errNoRoute):
		ce = connect.NewError(connect.CodeNotFound, err)
	case errors.Is(err, errUnsupportedMediaType):
		ce, status = connect.NewError(connect.CodeInvalidArgument, err), http.StatusUnsupportedMediaType
	case errors.As(err, &f):
		ce = connectOf(f)
	default:
		ce = connectOf(fault.Invalid("", "%s", err.Error()))
	}
	if !rest {
		_ = g.errw.Write(w, r, ce)
		return
	}
	body := restErrorOf(ce)
	if status != 0 {
		body = newRESTError(status, ce.Code(), ce.Message(), body.Param)
	}
	body.write(w)
}

// checkQuery checks a REST query string against its route: every key names
// a scalar field of the request message that is neither in the path nor in
// the body, once (lists excepted), with a value of the field's type.
func checkQuery(raw string, route restRoute) error {
	if raw == "" {
		return nil
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return invalidParam("", "the query string is malformed: %s", strings.TrimPrefix(err.Error(), "invalid URL escape "))
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fd := queryField(route, k)
		if fd == nil {
			return invalidParam(k, "unknown query parameter %q: %s", k, queryNames(route))
		}
		vals := q[k]
		if !fd.IsList() && len(vals) > 1 {
			return invalidParam(k, "%s is given %d times: give it once", k, len(vals))
		}
		for _, v := range vals {
			if err := checkQueryValue(k, v, fd); err != nil {
				return err
			}
		}
	}
	return nil
}

// queryField is the field a query key may set: a scalar (or list of
// scalars) that the path and the body do not carry.
func queryField(route restRoute, key string) protoreflect.FieldDescriptor {
	if route.body == "*" {
		return nil
	}
	fd := fieldByJSONKey(route.input, key)
	if fd == nil || route.vars[string(fd.Name())] || fd.IsMap() || fd.Message() != nil {
		return nil
	}
	return fd
}

// queryNames says which query parameters a route takes.
func queryNames(route restRoute) string {
	if route.body == "*" {
		return "this route takes its fields in the JSON body"
	}
	var names []string
	fields := route.input.Fields()
	for i := 0; i < fields.Len(); i++ {
		if fd := fields.Get(i); queryField(route, fd.JSONName()) != nil {
			names = append(names, fd.JSONName())
		}
	}
	if len(names) == 0 {
		return "this route takes no query parameters"
	}
	return "this route takes " + strings.Join(names, ", ")
}

// checkQueryValue checks a value as vanguard will parse it (JSON scalars for
// numbers and booleans, names or numbers for enums, anything for strings).
func checkQueryValue(key, v string, fd protoreflect.FieldDescriptor) error {
	var err error
	switch fd.Kind() {
	case protoreflect.StringKind:
		if !utf8.ValidString(v) {
			return invalidParam(key, "%s is not valid UTF-8 once unescaped", key)
		}
		return nil
	case protoreflect.BoolKind:
		var b bool
		err = json.Unmarshal([]byte(v), &b)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		if v == "NaN" || v == "Infinity" || v == "-Infinity" {
			return nil
		}
		var f float64
		err = json.Unmarshal([]byte(v), &f)
	case protoreflect.EnumKind:
		if fd.Enum().Values().ByName(protoreflect.Name(v)) == nil {
			var n int32
			err = json.Unmarshal([]byte(v), &n)
		}
	case protoreflect.BytesKind:
		_, err = base64.StdEncoding.DecodeString(v)
		if err != nil {
			_, err = base64.RawURLEncoding.DecodeString(strings.TrimRight(v, "="))
		}
	default:
		return checkQueryInteger(key, v, fd)
	}
	if err != nil {
		return invalidParam(key, "%s must be %s, got %q", key, want(fd), v)
	}
	return nil
}

func checkQueryInteger(key, v string, fd protoreflect.FieldDescriptor) error {
	var err error
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		var n int32
		err = json.Unmarshal([]byte(v), &n)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		var n uint32
		err = json.Unmarshal([]byte(v), &n)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		var n uint64
		err = json.Unmarshal([]byte(v), &n)
	default:
		var n int64
		err = json.Unmarshal([]byte(v), &n)
	}
	if err != nil {
		lo, hi := integerRange(fd.Kind())
		return invalidParam(key, "%s must be a whole number from %s to %s, got %q", key, lo, hi, v)
	}
	return nil
}
