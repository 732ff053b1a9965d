package main

import (
	"fmt"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// alwaysSent are response fields with presence (optional in the proto, so
// that the Go code can tell them unset) that the server always writes.
var alwaysSent = map[protoreflect.FullName]bool{
	pkg + "WalletItem.lamports": true,
}

// either states the proto's either/or CEL rules (buf.validate message
// rules, which the plugin only quotes in the description) as anyOf. A JSON
// Schema `required` means the key is present, where protovalidate's means
// set and not zero; so each branch also bounds the other field.
var either = map[protoreflect.FullName][]any{
	// build.items_or_select_all, build.items_and_select_all
	pkg + "BuildTransactionsRequest": {
		map[string]any{
			"required":   []any{"items"},
			"properties": map[string]any{"items": map[string]any{"minItems": 1}, "selectAll": map[string]any{"const": false}},
		},
		map[string]any{
			"required":   []any{"selectAll"},
			"properties": map[string]any{"selectAll": map[string]any{"const": true}, "items": map[string]any{"maxItems": 0}},
		},
	},
	// signed.transaction_or_signature, signed.transaction_and_signature
	pkg + "SignedTransaction": {
		map[string]any{
			"required":   []any{"transactionBase64"},
			"properties": map[string]any{"transactionBase64": map[string]any{"minLength": 1}},
			"not":        map[string]any{"required": []any{"signature"}, "properties": map[string]any{"signature": map[string]any{}}},
		},
		map[string]any{
			"required":   []any{"signature"},
			"properties": map[string]any{"signature": map[string]any{"minLength": 1}, "transactionBase64": map[string]any{"maxLength": 0}},
		},
	},
}

// refusesZero reports whether a request field's rules refuse its zero value
// (a string under min_len or outside an `in` list, a list under
// min_items): a key the request must carry.
func refusesZero(fd protoreflect.FieldDescriptor) bool {
	rules, _ := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
	switch {
	case rules == nil || fd.HasPresence():
		return false
	case rules.GetRequired():
		return true
	case fd.IsList():
		return rules.GetRepeated().GetMinItems() > 0
	case rules.GetString() != nil:
		r := rules.GetString()
		return r.GetMinLen() > 0 || len(r.GetIn()) > 0 && !contains(r.GetIn(), "")
	}
	return false
}

// unsigned reports whether a field of kind k never holds a negative value.
func unsigned(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return true
	}
	return false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// requireParams marks required the query parameters whose rules refuse
// their zero value (the plugin marks only the `required` rule's), and
// bounds the unsigned ones below by 0, as annotate does a body's fields
// (the plugin states only the rules' bounds: offset=-1 was allowed).
func requireParams(op map[string]any) error {
	id, _ := op["operationId"].(string)
	service, method, _ := strings.Cut(id, "_")
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(pkg + service))
	if err != nil {
		return nil //nolint:nilerr // not a reclaim.v1 service: nothing to mark
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok || sd.Methods().ByName(protoreflect.Name(method)) == nil {
		return fmt.Errorf("operation %s: no such method", id)
	}
	in := sd.Methods().ByName(protoreflect.Name(method)).Input()
	params, _ := op["parameters"].([]any)
	for _, p := range params {
		p := object(p)
		if p["in"] != "query" {
			continue
		}
		name, _ := p["name"].(string)
		fd := in.Fields().ByJSONName(name)
		if fd == nil {
			continue
		}
		if refusesZero(fd) {
			p["required"] = true
		}
		if schema := object(p["schema"]); schema != nil && unsigned(fd.Kind()) && schema["minimum"] == nil {
			schema["minimum"] = 0
		}
	}
	return nil
}

// websocketMessages names the schemas of the stream's events in its
// x-websocket extension (base.yaml).
func websocketMessages(doc map[string]any) error {
	ws := object(object(object(doc["paths"])["/v1/wallet/{address}/stream"])["x-websocket"])
	if ws == nil {
		return fmt.Errorf("the stream's path has no x-websocket (base.yaml)")
	}
	ws["messages"] = map[string]any{
		"streamWalletAssets": map[string]any{"$ref": schemaRef + pkg + "StreamWalletAssetsResponse"},
		"error":              map[string]any{"$ref": schemaRef + "Error"},
	}
	return nil
}
