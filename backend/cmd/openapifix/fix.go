package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/reclaim-sol/reclaim/backend/server"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

const (
	schemaRef = "#/components/schemas/"
	pkg       = "reclaim.v1."
)

// keep are schemas no operation references that the document still
// describes: the WebSocket's messages (base.yaml).
var keep = []string{pkg + "StreamWalletAssetsResponse"}

// fix rewrites doc in place (see the package comment).
func fix(doc map[string]any) error {
	walk(doc)
	schemas := object(object(doc["components"])["schemas"])
	responses := map[string]bool{}
	for _, op := range operations(doc) {
		if err := fixOperation(op); err != nil {
			return err
		}
		if err := requireParams(op); err != nil {
			return err
		}
		if rb := object(op["requestBody"]); rb != nil {
			for _, mt := range object(rb["content"]) {
				s := object(object(mt)["schema"])
				if t, ok := s["title"].(string); ok && s["$ref"] == nil {
					if err := annotate(pkg+t, s, false); err != nil {
						return err
					}
				}
			}
		}
		for _, name := range refs(object(object(op["responses"])["200"])) {
			reach(name, responses)
		}
	}
	for _, name := range keep {
		reach(name, responses)
	}
	if err := websocketMessages(doc); err != nil {
		return err
	}
	for name, s := range schemas {
		if err := annotate(name, object(s), responses[name]); err != nil {
			return err
		}
	}
	trim(doc, schemas)
	stripTitles(doc, false)
	return nil
}

// wrapped is a line break inside a proto comment's sentence.
var wrapped = regexp.MustCompile(`\n (\S)`)

// walk fixes the 64-bit integer schemas, drops nullable everywhere, and
// rejoins the lines of the descriptions taken from proto comments.
func walk(v any) {
	switch v := v.(type) {
	case map[string]any:
		if t, ok := v["type"].([]any); ok && len(t) == 2 && t[0] == "integer" && t[1] == "string" {
			v["type"] = "integer"
		}
		delete(v, "nullable")
		if d, ok := v["description"].(string); ok {
			v["description"] = wrapped.ReplaceAllString(d, " $1")
		}
		for _, c := range v {
			walk(c)
		}
	case []any:
		for _, c := range v {
			walk(c)
		}
	}
}

// httpMethods are the keys of a path item that hold an operation (not its
// parameters, nor an x- extension such as the stream's x-websocket).
var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}

// operations returns every operation of the document.
func operations(doc map[string]any) []map[string]any {
	var out []map[string]any
	for _, item := range object(doc["paths"]) {
		for method, op := range object(item) {
			if op, ok := op.(map[string]any); ok && httpMethods[method] {
				out = append(out, op)
			}
		}
	}
	return out
}

// fixOperation declares the errors every operation answers and the
// credentials it takes. Operations the server does not serve through
// vanguard (the WebSocket, from base.yaml) are left as written.
func fixOperation(op map[string]any) error {
	id, _ := op["operationId"].(string)
	service, method, ok := strings.Cut(id, "_")
	if !ok {
		return fmt.Errorf("operation %q: want Service_Method", id)
	}
	rule, ok := server.Requirement("/" + pkg + service + "/" + method)
	if !ok {
		return nil
	}
	rs := object(op["responses"])
	ok200 := object(rs["200"])
	if ok200 == nil {
		return fmt.Errorf("operation %s: no 200 response", id)
	}
	ok200["headers"] = map[string]any{
		"RateLimit-Policy":      map[string]any{"$ref": "#/components/headers/RateLimit-Policy"},
		"RateLimit":             map[string]any{"$ref": "#/components/headers/RateLimit"},
		"X-RateLimit-Limit":     map[string]any{"$ref": "#/components/headers/X-RateLimit-Limit"},
		"X-RateLimit-Remaining": map[string]any{"$ref": "#/components/headers/X-RateLimit-Remaining"},
	}
	rs["429"] = map[string]any{"$ref": "#/components/responses/RateLimited"}
	rs["default"] = map[string]any{"$ref": "#/components/responses/Error"}
	if server.Idempotent("/" + pkg + service + "/" + method) {
		idempotent(op, ok200, rs)
	}

	var security []any
	var takes []string
	if rule.APIKey {
		security = append(security, map[string]any{"apiKey": []any{}})
		takes = append(takes, "an API key (`X-Api-Key`)")
	}
	if rule.Session {
		security = append(security, map[string]any{"session": []any{}})
		s := "a session token"
		if rule.Scope != "" {
			s += " with scope `" + rule.Scope + "`"
			if rule.OrScope != "" {
				s += " or `" + rule.OrScope + "`"
			}
		}
		if rule.BindsWallet {
			s += " bound to the path's wallet"
		}
		takes = append(takes, s)
	}
	op["security"] = security
	desc, _ := op["description"].(string)
	op["description"] = strings.TrimSpace(desc + "\n\nCredentials: " + strings.Join(takes, ", or ") + ".")
	return nil
}

// idempotent declares an operation's Idempotency-Key: the header, the
// replayed answer's header, and the refusals of a key.
func idempotent(op, ok200, rs map[string]any) {
	params, _ := op["parameters"].([]any)
	op["parameters"] = append(params, map[string]any{"$ref": "#/components/parameters/IdempotencyKey"})
	object(ok200["headers"])["Idempotent-Replayed"] = map[string]any{"$ref": "#/components/headers/Idempotent-Replayed"}
	rs["409"] = map[string]any{"$ref": "#/components/responses/IdempotencyKeyInUse"}
	rs["422"] = map[string]any{"$ref": "#/components/responses/IdempotencyKeyReused"}
}

// refs lists the reclaim.v1 schemas a value references.
func refs(v any) []string {
	var out []string
	var visit func(any)
	visit = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"].(string); ok && strings.HasPrefix(r, schemaRef) {
				out = append(out, strings.TrimPrefix(r, schemaRef))
			}
			for _, c := range v {
				visit(c)
			}
		case []any:
			for _, c := range v {
				visit(c)
			}
		}
	}
	visit(v)
	return out
}

// reach adds message name and every message its fields hold to set.
func reach(name string, set map[string]bool) {
	if set[name] {
		return
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	md, ok := d.(protoreflect.MessageDescriptor)
	if err != nil || !ok {
		return
	}
	set[name] = true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if m := fd.Message(); m != nil {
			reach(string(m.FullName()), set)
		}
	}
}

// annotate uses the message's descriptor for what the schema cannot tell:
// unsigned fields, (reclaim.v1.json_null) fields, and, in a response
// message, the fields the codec always writes.
func annotate(name string, s map[string]any, response bool) error {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		if strings.HasPrefix(name, pkg) {
			return fmt.Errorf("schema %s: %w", name, err)
		}
		return nil // Error and the other hand-written schemas
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil
	}
	props := object(s["properties"])
	var required []string
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		p := object(props[fd.JSONName()])
		if p == nil {
			continue
		}
		null, _ := proto.GetExtension(fd.Options(), reclaimv1.E_JsonNull).(bool)
		if response && (!fd.HasPresence() || null || alwaysSent[fd.FullName()]) || !response && refusesZero(fd) {
			required = append(required, fd.JSONName())
		}
		target, kind := p, fd.Kind()
		switch {
		case fd.IsMap():
			target, kind = object(p["additionalProperties"]), fd.MapValue().Kind()
		case fd.IsList():
			target = object(p["items"])
		}
		if target != nil {
			if unsigned(kind) {
				target["minimum"] = 0
			}
		}
		if null {
			if t, ok := p["type"].(string); ok {
				p["type"] = []any{t, "null"}
			}
		}
	}
	if len(required) > 0 {
		sort.Strings(required)
		s["required"] = toAny(required)
	}
	if alt, ok := either[md.FullName()]; ok && !response {
		s["anyOf"] = alt
	}
	return nil
}

// trim drops the schemas nothing references (request messages, whose
// fields are parameters or inline bodies, and map entries), keeping those
// of keep and the hand-written ones.
func trim(doc, schemas map[string]any) {
	used := map[string]bool{}
	var queue []string
	for k, v := range doc {
		if k != "components" {
			queue = append(queue, refs(v)...)
		}
	}
	for k, v := range object(doc["components"]) {
		if k != "schemas" {
			queue = append(queue, refs(v)...)
		}
	}
	queue = append(queue, keep...)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if used[name] {
			continue
		}
		used[name] = true
		queue = append(queue, refs(schemas[name])...)
	}
	for name := range schemas {
		if strings.HasPrefix(name, pkg) && !used[name] {
			delete(schemas, name)
		}
	}
}

// stripTitles drops the proto field names that the plugin writes as the
// title of every property and parameter (renderers show them beside the
// JSON name); message titles stay.
func stripTitles(v any, field bool) {
	switch v := v.(type) {
	case map[string]any:
		if field {
			delete(v, "title")
		}
		for k, c := range v {
			switch k {
			case "properties":
				for _, p := range object(c) {
					stripTitles(p, true)
				}
				continue
			case "items", "additionalProperties":
				stripTitles(c, true)
				continue
			case "schema":
				// a parameter's, or a response_body field's (a bare array)
				if m := object(c); m["type"] != "object" {
					stripTitles(c, true)
					continue
				}
			}
			stripTitles(c, false)
		}
	case []any:
		for _, c := range v {
			stripTitles(c, false)
		}
	}
}

func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
