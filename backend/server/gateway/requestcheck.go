package gateway

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// requestCheck is the REST and Connect request check: the front door
// (frontdoor.go) runs it on a request before vanguard and connect-go see it,
// and it answers in the request's own protocol (a REST error body, or a
// Connect/gRPC error through connect's ErrorWriter):
//   - a body over MaxRequestBytes is refused (invalid_argument; REST: 413)
//     before it is decoded;
//   - a REST GET's Content-Type is ignored (a GET has no body: some clients
//     and load tools set one on every request), and a GET with a body refused;
//   - the JSON body of a REST route or a Connect call, and a REST query
//     string, must fit the request message (checkJSON): every malformed
//     body gets the same 400 naming the field, whether or not the route has
//     path parameters. Without this, vanguard decodes the body of a route with
//     path parameters itself and reports a decoding error as 500, while
//     connect-go words it "unmarshal message: proto: ...".
type requestCheck struct {
	procedures map[string]protoreflect.MethodDescriptor
	routes     []restRoute
	others     []restRoute // paths served outside the HTTP rules (the stream's WebSocket)
	errw       *connect.ErrorWriter
}

// restRoute is a google.api.http rule: its method, its path template split
// into segments ("" for a variable), its request message and its procedure.
type restRoute struct {
	method    string
	template  string // the rule's path, e.g. /v1/wallet/{address}/transactions
	segments  []string
	vars      map[string]bool
	body      string // "*", or "" for none
	input     protoreflect.MessageDescriptor
	procedure string // /reclaim.v1.WalletService/BuildTransactions
	// newInput makes the request message (nil: a type protoregistry does
	// not know, never handed over).
	newInput func() protoreflect.Message
}

// NewRequestCheck returns the check of the services' requests; others are
// paths the mux serves under /v1/ (the WebSocket).
func NewRequestCheck(services []protoreflect.ServiceDescriptor, errw *connect.ErrorWriter, others ...string) *requestCheck {
	g := &requestCheck{procedures: map[string]protoreflect.MethodDescriptor{}, errw: errw}
	for _, p := range others {
		g.others = append(g.others, parseTemplate(http.MethodGet, p))
	}
	for _, sd := range services {
		methods := sd.Methods()
		for i := 0; i < methods.Len(); i++ {
			m := methods.Get(i)
			procedure := "/" + string(sd.FullName()) + "/" + string(m.Name())
			g.procedures[procedure] = m
			if r, ok := routeOf(m); ok {
				r.procedure = procedure
				if mt, err := protoregistry.GlobalTypes.FindMessageByName(m.Input().FullName()); err == nil {
					r.newInput = mt.New
				} // else never handed over
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
			return InvalidParam(name, "the path has no %s: send it as %s", name, route.template)
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

// MaxRequestBytes bounds a request body: 100 signed transactions in base64
// with their tickets fit several times over.
const MaxRequestBytes = 1 << 20

// errBodyTooLarge is a body over MaxRequestBytes: invalid_argument on every
// wire, with 413 to a REST client. Not resource_exhausted (connect-go's own
// code for an oversized message): over Connect that is HTTP 429, which
// clients retry, and this request can never pass as it is.
var errBodyTooLarge = fmt.Errorf("request body is larger than the limit of %d bytes (1 MiB): send fewer items or signed transactions per request", MaxRequestBytes)

// readBody reads the whole body (at most MaxRequestBytes) and puts it back
// for the handlers, so it can be checked first.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > MaxRequestBytes {
		return nil, errBodyTooLarge
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	_ = r.Body.Close()
	if err != nil {
		return nil, InvalidParam("", "reading the request body failed: %v", err)
	}
	if len(body) > MaxRequestBytes {
		return nil, errBodyTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return body, nil
}

// checkREST checks a REST request against its route and decodes what it
// carries, its JSON body or its query string, into the route's request
// message: the request the front door hands over to the Connect handler
// (nil: nothing to hand over; vanguard reads the request as it is). A nil
// route is a path and method no rule serves: vanguard answers 404 or 405.
func (g *requestCheck) checkREST(r *http.Request, body []byte) (*restRoute, proto.Message, error) {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodDelete
	if get {
		r.Header.Del("Content-Type")
	}
	if !utf8.ValidString(r.URL.Path) {
		return nil, nil, InvalidParam("", "the path %q is not valid UTF-8 once unescaped", r.URL.EscapedPath())
	}
	route := g.route(r.Method, r.URL.Path)
	switch {
	case route == nil:
		return nil, nil, nil // not a route: vanguard answers 404 or 405
	case get && len(body) > 0:
		return route, nil, InvalidParam("", "%s %s takes no body: send its parameters in the query string", r.Method, r.URL.Path)
	}
	req, err := decodeQuery(r.URL.RawQuery, route)
	if err != nil || route.body == "" || len(body) == 0 {
		return route, req, err
	}
	if err := checkJSONContentType(r.Header.Get("Content-Type")); err != nil {
		return route, nil, err
	}
	req, err = route.decodeBody(body)
	return route, req, err
}

// route is the rule that serves method and path (nil: none).
func (g *requestCheck) route(method, path string) *restRoute {
	if method == http.MethodHead {
		method = http.MethodGet // HEAD is GET without the answer's body (RFC 9110)
	}
	segments := strings.Split(strings.Trim(path, "/"), "/")
	for i := range g.routes {
		if g.routes[i].matches(method, segments) {
			return &g.routes[i]
		}
	}
	return nil
}

// address is the wallet a path of the route names ("": none).
func (r *restRoute) address(path string) string {
	if !r.vars["address"] {
		return ""
	}
	segments := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range strings.Split(strings.Trim(r.template, "/"), "/") {
		if strings.HasPrefix(s, "{address") && i < len(segments) {
			return segments[i]
		}
	}
	return ""
}

// decodeBody checks and decodes a JSON body (decodeRequest); the path's
// variables are left unset, for vanguard sets them from the path (which wins
// over the body).
func (route *restRoute) decodeBody(body []byte) (proto.Message, error) {
	if route.newInput == nil {
		return nil, checkJSON(body, route.input)
	}
	msg := route.newInput()
	ok, err := decodeRequest(body, msg)
	if !ok {
		return nil, err
	}
	for name := range route.vars {
		if fd := msg.Descriptor().Fields().ByName(protoreflect.Name(name)); fd != nil {
			msg.Clear(fd)
		}
	}
	return msg.Interface(), nil
}

// decodeRequest checks and decodes a JSON body into msg: in one pass by the
// one decoder (decodeJSON), or, for what it leaves, by the reference path:
// checkJSON, whose refusal is the error, then protojson. It reports whether
// msg holds the request: not for an empty body, nor for one checkJSON takes
// and protojson does not (a field by both its names), which goes on as it
// came for the codec that reads it to word the refusal.
func decodeRequest(body []byte, msg protoreflect.Message) (bool, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return false, nil
	}
	if decodeJSON(body, msg) {
		return true, nil
	}
	proto.Reset(msg.Interface())
	if err := checkJSON(body, msg.Descriptor()); err != nil {
		return false, err
	}
	return protojson.Unmarshal(body, msg.Interface()) == nil, nil
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

// connectBody is what the request check made of a Connect or gRPC body: the
// request decoded, for the front door to hand over (nil: none), and the
// body the handler then reads in its place.
type connectBody struct {
	msg   proto.Message
	empty []byte
}

// emptyEnvelope is an enveloped (gRPC, gRPC-Web) body of one empty message.
var emptyEnvelope = []byte{0, 0, 0, 0, 0}

// checkConnect checks the body of a Connect or gRPC call: JSON (a unary
// request, application/json, or the one enveloped request of a server
// stream, application/connect+json) as checkJSON does, protobuf (unary
// application/proto, or one uncompressed envelope of connect+proto, gRPC or
// gRPC-Web) by decoding it, so that a body that does not parse gets a clear
// message, never protobuf's. It returns the request of a unary call decoded,
// for the front door to hand over: our JSON codec's and protobuf's (another
// codec, such as connect-go's for "application/json; charset=utf-8", takes
// no empty body). A compressed body is connect-go's.
func checkConnect(r *http.Request, body []byte, m protoreflect.MethodDescriptor) (connectBody, error) {
	if r.Method != http.MethodPost {
		return connectBody{}, nil
	}
	unary := !m.IsStreamingClient() && !m.IsStreamingServer()
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	msg, err := connectMessage(mt, body, m.Input(), r.Header.Get("Content-Encoding") == "")
	switch {
	case err != nil || msg == nil || !unary:
		return connectBody{}, err
	case ct == "application/json" || ct == "application/proto":
		return connectBody{msg: msg}, nil
	case mt != "application/json" && mt != "application/proto":
		return connectBody{msg: msg, empty: emptyEnvelope}, nil
	}
	return connectBody{}, nil
}

// connectMessage checks and decodes a Connect or gRPC body of media type mt
// (nil: not one the check reads).
func connectMessage(mt string, body []byte, md protoreflect.MessageDescriptor, identity bool) (proto.Message, error) {
	switch mt {
	case "application/json":
		return decodeChecked(body, md)
	case "application/proto":
		if !identity {
			return nil, nil
		}
		return decodeBinary(body, md)
	}
	payload, ok := oneEnvelope(body)
	switch {
	case !ok:
		return nil, nil
	case mt == "application/connect+json":
		return decodeChecked(payload, md)
	case mt == "application/connect+proto", mt == "application/grpc", mt == "application/grpc+proto",
		mt == "application/grpc-web", mt == "application/grpc-web+proto":
		return decodeBinary(payload, md)
	}
	return nil, nil
}

// oneEnvelope is the payload of a body that is one uncompressed envelope.
func oneEnvelope(body []byte) ([]byte, bool) {
	if len(body) < 5 || body[0] != 0 || int64(binary.BigEndian.Uint32(body[1:5])) != int64(len(body)-5) {
		return nil, false
	}
	return body[5:], true
}

// decodeBinary decodes a protobuf body as connect-go does, and refuses one
// that does not parse in words for a person.
func decodeBinary(body []byte, md protoreflect.MessageDescriptor) (proto.Message, error) {
	m, ok := newMessage(md)
	if !ok {
		return nil, nil
	}
	msg := m.Interface()
	if err := proto.Unmarshal(body, msg); err != nil {
		return nil, InvalidParam("", "request body is not a %s in the protobuf binary format: encode it with the API's .proto files", md.FullName())
	}
	return msg, nil
}

// newMessage makes a message of type md (false: a type protoregistry does
// not know).
func newMessage(md protoreflect.MessageDescriptor) (protoreflect.Message, bool) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		return nil, false
	}
	return mt.New(), true
}

// decodeChecked checks and decodes a body (decodeRequest) into a request
// of type md; nil when there is none to hand over.
func decodeChecked(body []byte, md protoreflect.MessageDescriptor) (proto.Message, error) {
	msg, ok := newMessage(md)
	if !ok {
		return nil, checkJSON(body, md)
	}
	if ok, err := decodeRequest(body, msg); !ok {
		return nil, err
	}
	return msg.Interface(), nil
}

// refuse answers a request the check stopped.
func (g *requestCheck) refuse(w http.ResponseWriter, r *http.Request, rest bool, err error) {
	ce := refusalOf(err)
	if !rest {
		_ = g.errw.Write(w, r, ce)
		return
	}
	for k, v := range ce.Meta() {
		w.Header()[k] = v
	}
	body := RestErrorOf(ce)
	switch {
	case errors.Is(err, errBodyTooLarge):
		body.StatusCode = http.StatusRequestEntityTooLarge
	case errors.Is(err, errUnsupportedMediaType):
		body.StatusCode = http.StatusUnsupportedMediaType
	}
	body.Error = http.StatusText(body.StatusCode)
	body.Write(w)
}

// refusalOf is the Connect error of the check's refusal.
func refusalOf(err error) *connect.Error {
	var ce *connect.Error
	var f *fault.Error
	switch {
	case errors.As(err, &ce): // already one: the credentials' refusal, or one carrying rate-limit headers
		return ce
	case errors.Is(err, errNoRoute):
		return connect.NewError(connect.CodeNotFound, err)
	case errors.Is(err, errBodyTooLarge), errors.Is(err, errUnsupportedMediaType):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case errors.As(err, &f):
		return connectOf(f)
	}
	return connectOf(fault.Invalid("", "%s", err.Error()))
}

// decodeQuery checks a REST query string against its route: every key
// names a scalar field of the request message that is neither in the path
// nor in the body, once (lists excepted), with a value of the field's type.
// It returns the values set in the route's request message, parsed as
// vanguard parses them, for the front door to hand over (nil: none, or one
// vanguard is to read itself: a kind it parses its own way, or one field
// named twice, by both its names).
func decodeQuery(raw string, route *restRoute) (proto.Message, error) {
	if raw == "" {
		return nil, nil
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, InvalidParam("", "the query string is malformed: %s", strings.TrimPrefix(err.Error(), "invalid URL escape "))
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var msg protoreflect.Message
	if route.newInput != nil {
		msg = route.newInput()
	}
	named := map[protoreflect.FieldNumber]bool{}
	for _, k := range keys {
		fd := queryField(*route, k)
		if fd == nil {
			return nil, InvalidParam(k, "unknown query parameter %q: %s", k, queryNames(*route))
		}
		vals := q[k]
		if !fd.IsList() && len(vals) > 1 {
			return nil, InvalidParam(k, "%s is given %d times: give it once", k, len(vals))
		}
		if named[fd.Number()] {
			msg = nil // by both its names: vanguard sets one, then the other
		}
		named[fd.Number()] = true
		for _, v := range vals {
			val, ok, err := queryValue(k, v, fd)
			if err != nil {
				return nil, err
			}
			switch {
			case !ok:
				msg = nil
			case msg != nil && fd.IsList():
				msg.Mutable(fd).List().Append(val)
			case msg != nil:
				msg.Set(fd, val)
			}
		}
	}
	if msg == nil {
		return nil, nil
	}
	return msg.Interface(), nil
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

// queryValue checks a value as vanguard parses it (JSON scalars for numbers
// and booleans, names or numbers for enums, anything for strings), and
// returns it parsed so when the front door can hand it over (ok): strings,
// booleans, integers and doubles.
func queryValue(key, v string, fd protoreflect.FieldDescriptor) (val protoreflect.Value, ok bool, err error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if !utf8.ValidString(v) {
			return val, false, InvalidParam(key, "%s is not valid UTF-8 once unescaped", key)
		}
		return protoreflect.ValueOfString(v), true, nil
	case protoreflect.BoolKind:
		var b bool
		err = json.Unmarshal([]byte(v), &b)
		val, ok = protoreflect.ValueOfBool(b), true
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		val, ok, err = queryFloat(v, fd.Kind() == protoreflect.DoubleKind)
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
		return queryInteger(key, v, fd)
	}
	if err != nil {
		return val, false, InvalidParam(key, "%s must be %s, got %q", key, want(fd), v)
	}
	return val, ok, nil
}

// queryFloat parses a float as vanguard does (doubles only: it parses a
// float field as a float32, which this check does not).
func queryFloat(v string, double bool) (protoreflect.Value, bool, error) {
	switch v {
	case "NaN":
		return protoreflect.ValueOfFloat64(math.NaN()), double, nil
	case "Infinity":
		return protoreflect.ValueOfFloat64(math.Inf(+1)), double, nil
	case "-Infinity":
		return protoreflect.ValueOfFloat64(math.Inf(-1)), double, nil
	}
	var f float64
	err := json.Unmarshal([]byte(v), &f)
	return protoreflect.ValueOfFloat64(f), double, err
}

func queryInteger(key, v string, fd protoreflect.FieldDescriptor) (val protoreflect.Value, ok bool, err error) {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		var n int32
		err = json.Unmarshal([]byte(v), &n)
		val = protoreflect.ValueOfInt32(n)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		var n uint32
		err = json.Unmarshal([]byte(v), &n)
		val = protoreflect.ValueOfUint32(n)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		var n uint64
		err = json.Unmarshal([]byte(v), &n)
		val = protoreflect.ValueOfUint64(n)
	default:
		var n int64
		err = json.Unmarshal([]byte(v), &n)
		val = protoreflect.ValueOfInt64(n)
	}
	if err != nil {
		if n, ok := new(big.Int).SetString(v, 10); ok && numberString(v) {
			if lo, hi := integerRange(fd.Kind()); n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
				return val, false, outOfRange(key, v, fd)
			}
		}
		lo, hi := namedRange(fd)
		return val, false, InvalidParam(key, "%s must be a whole number from %s to %s, got %q", key, lo, hi, v)
	}
	return val, true, nil
}
