package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/mr-tron/base58"
	"pgregory.net/rapid"

	"github.com/reclaim-sol/reclaim/gen/openapi"
)

// TestDocumentAgreesWithServer draws requests to every REST operation of
// the OpenAPI document from the document itself (openapigen_test.go):
// requests it means to allow, and requests with one keyword broken. The
// document decides which are allowed (openapi3filter.ValidateRequest, the
// oracle, as a generated client's or a proxy's validator would); the real
// server, over HTTP with valid credentials and a fake cluster, must then
// never refuse with 400 a request the document allows, unless for a rule
// OpenAPI cannot state (inexpressible below, each in docs/decisions.md),
// never answer 2xx to one it forbids, and never answer 5xx.
//
// rapid draws -rapid.checks requests per operation (100 by default) from
// a random seed; a failure prints the seed and the smallest request found
// (replay with -rapid.seed=N, or -rapid.failfile=testdata/rapid/...).
func TestDocumentAgreesWithServer(t *testing.T) {
	fc := newFakeCluster(t)
	fc.add(9)
	// A generous cluster timeout: a 503 under a busy machine's load would
	// fail the test for nothing the document says.
	e := newEnv(t, withRPC(fc.url), withRPCTimeout(time.Minute))
	w := newWorld(t, e, fc)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	router := documentRouter(t)
	ops := 0
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Find(path).Operations() {
			ops++
			t.Run(op.OperationID, func(t *testing.T) {
				var drawn [2]int // forbidden, allowed
				rapid.Check(t, func(rt *rapid.T) {
					r := w.draw(rt, method, path, op)
					if w.check(rt, router, r) {
						drawn[1]++
					} else {
						drawn[0]++
					}
				})
				if breakable := len(op.Parameters) > 0 || op.RequestBody != nil; breakable && drawn[0] == 0 || drawn[1] == 0 {
					t.Errorf("%d requests the document forbids and %d it allows: want some of each", drawn[0], drawn[1])
				}
				t.Logf("%d requests the document forbids, %d it allows; refused for a rule it cannot state: %v", drawn[0], drawn[1], w.excused)
				clear(w.excused)
			})
		}
	}
	if ops < 8 {
		t.Fatalf("%d operations in the document, want the 8 REST ones", ops)
	}
}

// world is what the requests are drawn against: the server, the wallet of
// the fake cluster (bound to the session) and its items.
type world struct {
	e       *env
	wallet  string
	session string
	items   []map[string]any // the wallet's items as ItemSelections
	gen     schemaGen
	excused map[string]int // the 400s to allowed requests, by the rule that explains them
}

func newWorld(t *testing.T, e *env, fc *fakeCluster) *world {
	w := &world{e: e, wallet: fc.owner.String(), excused: map[string]int{}}
	w.session = e.session(w.wallet)
	var listing struct {
		Items []struct {
			Type, Address string
			Actions       []string
		}
	}
	r := e.rest("GET", "/v1/wallet/"+w.wallet+"/assets", apiKey(e.apiKey), nil).status(200)
	if err := json.Unmarshal(r.body, &listing); err != nil || len(listing.Items) == 0 {
		t.Fatalf("listing %s: %v", r.body, err)
	}
	for _, it := range listing.Items {
		for _, a := range it.Actions {
			w.items = append(w.items, map[string]any{"type": it.Type, "address": it.Address, "action": a})
		}
	}
	addresses := rapid.SampledFrom([]any{w.wallet, newWallet(), offCurve(t), "11111111111111111111111111111111"})
	signatures := rapid.Custom(func(t *rapid.T) any {
		return solana.SignatureFromBytes(rapid.SliceOfN(rapid.Byte(), 64, 64).Draw(t, "bytes")).String()
	})
	dates := rapid.SampledFrom([]any{"2026-01-31", "2026-11-21", "2026-11-21T12:00:00Z", "2027-01-01T00:00:00+02:00"})
	w.gen = schemaGen{realistic: map[string]*rapid.Generator[any]{
		"address":       addresses,
		"walletAddress": addresses,
		"payer":         addresses,
		"signature":     signatures,
		"startDate":     dates,
		"endDate":       dates,
		"items": rapid.Custom(func(t *rapid.T) any {
			sel := rapid.SliceOfNDistinct(rapid.SampledFrom(w.items), 1, 4, func(m map[string]any) any { return m["address"] }).Draw(t, "items")
			out := make([]any, len(sel))
			for i, m := range sel {
				out[i] = m
			}
			return out
		}),
	}}
	return w
}

// request is one drawn REST request.
type request struct {
	method, path string
	pathParams   map[string]string
	query        url.Values
	header       http.Header
	body         any // nil: none
	hasBody      bool
	broken       string // what was broken, for the failure message
}

func (w *world) draw(t *rapid.T, method, path string, op *openapi3.Operation) *request {
	r := &request{method: method, path: path, pathParams: map[string]string{}, query: url.Values{}, header: http.Header{}}
	values := map[*openapi3.Parameter]any{}
	for _, p := range op.Parameters {
		pv := p.Value
		if pv.In == openapi3.ParameterInPath && pv.Name == "address" && rapid.Bool().Draw(t, "the session's wallet") {
			values[pv] = w.wallet
		} else if pv.Required || rapid.Bool().Draw(t, pv.Name+" present") {
			values[pv] = w.gen.value(t, pv.Schema.Value, pv.Name)
		}
	}
	var bodySchema *openapi3.Schema
	if op.RequestBody != nil {
		bodySchema = op.RequestBody.Value.Content.Get("application/json").Schema.Value
		r.body, r.hasBody = w.gen.value(t, bodySchema, "body"), true
	}
	if (len(op.Parameters) > 0 || bodySchema != nil) && rapid.Bool().Draw(t, "broken") {
		var sites []string
		for _, p := range op.Parameters {
			sites = append(sites, p.Value.Name)
		}
		if bodySchema != nil {
			sites = append(sites, "body", "no body")
		}
		site := rapid.SampledFrom(sites).Draw(t, "broken site")
		r.broken = site
		switch site {
		case "body":
			r.body = w.gen.mutate(t, bodySchema, r.body, "body")
		case "no body":
			r.body, r.hasBody = nil, false
		default:
			p := op.Parameters.GetByInAndName(paramIn(op, site), site)
			v, ok := values[p]
			switch {
			case ok && p.In != openapi3.ParameterInPath && rapid.Bool().Draw(t, "drop "+site):
				delete(values, p)
			case ok:
				values[p] = w.gen.mutate(t, p.Schema.Value, v, site)
			default:
				values[p] = w.gen.mutate(t, p.Schema.Value, w.gen.value(t, p.Schema.Value, site), site)
			}
		}
	}
	for p, v := range values {
		switch p.In {
		case openapi3.ParameterInPath:
			r.pathParams[p.Name] = strings.Join(wireValues(v), ",")
		case openapi3.ParameterInQuery:
			r.query[p.Name] = wireValues(v)
		case openapi3.ParameterInHeader:
			r.header.Set(p.Name, strings.Join(wireValues(v), ","))
		}
	}
	return r
}

func paramIn(op *openapi3.Operation, name string) string {
	for _, p := range op.Parameters {
		if p.Value.Name == name {
			return p.Value.In
		}
	}
	return ""
}

// wireValues is a value as a query's, a path's or a header's text (form
// style, exploded: an array is the parameter repeated).
func wireValues(v any) []string {
	switch x := v.(type) {
	case nil:
		return []string{""}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, wireValues(e)...)
		}
		return out
	case string:
		return []string{x}
	case float64:
		return []string{strconv.FormatFloat(x, 'g', -1, 64)}
	case map[string]any:
		return []string{"{}"}
	}
	return []string{fmt.Sprint(v)}
}

func (r *request) url(base string) string {
	p := r.path
	for k, v := range r.pathParams {
		p = strings.ReplaceAll(p, "{"+k+"}", url.PathEscape(v))
	}
	if len(r.query) > 0 {
		p += "?" + r.query.Encode()
	}
	return base + p
}

func (r *request) httpRequest(base string) (*http.Request, error) {
	var body io.Reader
	if r.hasBody {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), r.method, r.url(base), body)
	if err != nil {
		return nil, err
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// allowed asks the document: nil when it allows the request.
func allowed(router routers.Router, r *request) error {
	req, err := r.httpRequest("http://localhost")
	if err != nil {
		return err
	}
	return documentAllows(router, req)
}

// reply is the server's, its error body read when it has one.
type reply struct {
	status  int
	param   string
	message string
	body    []byte
}

func (w *world) send(t *rapid.T, r *request) reply {
	req, err := r.httpRequest(w.e.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if r.path == "/v1/sessions" || r.pathParams["address"] != "" && r.pathParams["address"] != w.wallet || rapid.Bool().Draw(t, "API key") {
		req.Header.Set("X-Api-Key", w.e.apiKey)
	} else {
		req.Header.Set("Authorization", "Bearer "+w.session)
	}
	resp, err := w.e.http.Do(req) // the answer itself must be one the document describes
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := reply{status: resp.StatusCode, body: b}
	var e struct{ Param, Message string }
	if resp.StatusCode >= 400 && json.Unmarshal(b, &e) == nil {
		a.param, a.message = e.Param, e.Message
	}
	return a
}

// check sends r and judges the answer; it reports whether the document
// allows r.
func (w *world) check(t *rapid.T, router routers.Router, r *request) bool {
	verdict := allowed(router, r)
	a := w.send(t, r)
	body, _ := json.Marshal(r.body)
	describe := func() string {
		return fmt.Sprintf("%s %s body %s (broken: %q)\nthe document: %v\nthe server: %d %s", r.method, r.url(""), body, r.broken, verdict, a.status, a.body)
	}
	switch {
	case a.status >= 500:
		t.Fatalf("a 5xx to a client's request:\n%s", describe())
	case verdict == nil && a.status == http.StatusBadRequest:
		name := w.inexpressible(r, a)
		if name == "" {
			t.Fatalf("the document allows it, the server refuses it:\n%s", describe())
		}
		w.excused[name]++
	case verdict == nil && (a.status == http.StatusUnauthorized || a.status == http.StatusForbidden):
		t.Fatalf("valid credentials refused:\n%s", describe())
	case verdict != nil && a.status < 300 && !nullIsUnset(router, r):
		t.Fatalf("the document forbids it, the server takes it:\n%s", describe())
	}
	return verdict == nil
}

// inexpressible names the rule OpenAPI cannot state that explains the
// server's 400 to a request the document allows, or "". Each predicate
// looks at the request itself, not at the server's words, so a 400 is
// excused only when the field the answer names does break that rule; each
// is a line of docs/decisions.md (Validation and limits).
func (w *world) inexpressible(r *request, a reply) string {
	for _, x := range []struct {
		name    string
		applies func(v any, field string) bool
	}{
		// base58 of 32 bytes: the document bounds an address's characters
		// and its length (32 to 44), not what it decodes to.
		{"an address that is not 32 bytes of base58", func(v any, field string) bool {
			return isAddressField(field) && decodedLen(v) != 32
		}},
		// A wallet (the path's, a session's) is an Ed25519 key on the curve.
		{"a wallet off the Ed25519 curve", func(v any, _ string) bool {
			s, _ := v.(string)
			k, err := solana.PublicKeyFromBase58(s)
			return (a.param == "address" || a.param == "walletAddress") && err == nil && !k.IsOnCurve()
		}},
		// A signature is base58 of 64 bytes; the document bounds its text.
		{"a signature that is not 64 bytes of base58", func(v any, field string) bool {
			return strings.HasSuffix(field, "signature") && anyValue(v, func(s any) bool { return decodedLen(s) != 64 })
		}},
		// Standard base64 (RFC 4648, padded); the document bounds the length.
		{"a transaction that is not standard base64", func(v any, field string) bool {
			s, _ := v.(string)
			_, err := base64.StdEncoding.DecodeString(s)
			return field == "transactionBase64" && err != nil
		}},
		// A cursor is one a previous page returned; the test draws none.
		{"a cursor this service did not return", func(_ any, field string) bool { return field == "cursor" }},
		// Dates are ISO 8601 days or RFC 3339 timestamps, and the start
		// comes before the end.
		{"a date not in ISO 8601 form, or after endDate", func(v any, field string) bool {
			s, _ := v.(string)
			start, okS := parseDate(r.query.Get("startDate"))
			end, okE := parseDate(r.query.Get("endDate"))
			_, ok := parseDate(s)
			return (field == "startDate" || field == "endDate") && (!ok || okS && okE && !start.Before(end))
		}},
		// An item is one the wallet holds now, as that type, taking that
		// action, and selected once; the document cannot know the chain.
		{"an item the wallet does not hold as selected, or selected twice", func(v any, field string) bool {
			it := v
			if strings.HasPrefix(a.param, "items[") && strings.Contains(a.param, ".") {
				it, _ = r.field(a.param[:strings.LastIndex(a.param, ".")])
			}
			return strings.HasPrefix(a.param, "items[") && (!w.holds(r, it) || w.selectedTwice(r, it))
		}},
		// What selectAll selects is what the wallet holds now: nothing safe
		// in the other wallets.
		{"a selectAll build of a wallet with nothing safe", func(_ any, field string) bool {
			return field == "selectAll" && r.pathParams["address"] != w.wallet
		}},
		// A build must return more than it costs: a donation near 100%
		// leaves less than the fees (the document cannot know the fees).
		{"a donation that leaves less than the fees", func(_ any, field string) bool {
			d, _ := r.field("donationPercentage")
			f, _ := strconv.ParseFloat(fmt.Sprint(d), 64)
			return (field == "selectAll" || field == "items") && f > 0.95
		}},
	} {
		if v, _ := r.field(a.param); a.param != "" && x.applies(v, lastName(a.param)) {
			return x.name
		}
	}
	return ""
}

// field is the value of the request's field named by an answer's param:
// a path or query parameter, or a JSON path into the body (items[2].type).
func (r *request) field(param string) (any, bool) {
	if v, ok := r.pathParams[param]; ok {
		return v, true
	}
	if v, ok := r.query[param]; ok {
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		if len(out) == 1 {
			return out[0], true
		}
		return out, true
	}
	cur := r.body
	for _, part := range strings.Split(param, ".") {
		name, idx, _ := strings.Cut(part, "[")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[name]; !ok {
			return nil, false
		}
		if idx != "" {
			i, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			l, ok := cur.([]any)
			if err != nil || !ok || i >= len(l) {
				return nil, false
			}
			cur = l[i]
		}
	}
	return cur, param != ""
}

func lastName(param string) string {
	name := param[strings.LastIndex(param, ".")+1:]
	name, _, _ = strings.Cut(name, "[")
	return name
}

func isAddressField(name string) bool {
	return name == "address" || name == "walletAddress" || name == "payer"
}

// decodedLen is the length of v's base58 decoding (-1: not base58 text).
func decodedLen(v any) int {
	s, ok := v.(string)
	if !ok {
		return -1
	}
	b, err := base58.Decode(s)
	if err != nil {
		return -1
	}
	return len(b)
}

func anyValue(v any, f func(any) bool) bool {
	if l, ok := v.([]any); ok {
		return slices.ContainsFunc(l, f)
	}
	return f(v)
}

// holds reports whether r's wallet is the one the world knows and holds
// item as its type with its action.
func (w *world) holds(r *request, item any) bool {
	it, ok := item.(map[string]any)
	return ok && r.pathParams["address"] == w.wallet && slices.ContainsFunc(w.items, func(m map[string]any) bool {
		return m["address"] == it["address"] && m["type"] == it["type"] && m["action"] == it["action"]
	})
}

// selectedTwice reports whether a build selects item's address twice.
func (w *world) selectedTwice(r *request, item any) bool {
	it, _ := item.(map[string]any)
	items, _ := r.field("items")
	l, _ := items.([]any)
	n := 0
	for _, x := range l {
		if m, ok := x.(map[string]any); ok && it != nil && m["address"] == it["address"] {
			n++
		}
	}
	return n > 1
}

// parseDate reads an ISO 8601 day or an RFC 3339 timestamp.
func parseDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.DateOnly, time.RFC3339Nano} {
		if d, err := time.Parse(layout, s); err == nil {
			return d, true
		}
	}
	return time.Time{}, false
}

// nullIsUnset reports whether r is allowed once its body's null fields are
// left out. The server reads a field's null as "not set", as the proto3
// JSON mapping (protojson, every Connect client) does; the document leaves
// null out, so that generated clients' types stay plain (docs/decisions.md).
func nullIsUnset(router routers.Router, r *request) bool {
	m, ok := r.body.(map[string]any)
	if !ok {
		return false
	}
	c := *r
	c.body = withoutNulls(m)
	return allowed(router, &c) == nil
}

func withoutNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutNulls(e) // null in a list is a value: refused (jsoncheck.go)
		}
		return out
	}
	return v
}
