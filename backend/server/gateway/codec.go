package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"connectrpc.com/vanguard"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// JSONCodec is the one JSON encoding of every body, for Connect and REST alike.
// It differs from plain protojson in what the contract requires:
//   - 64-bit integers (lamports, counts) are JSON numbers, not strings;
//   - scalar fields without presence are always written, zero included;
//   - a field marked (reclaim.v1.json_null) is written as null when unset.
//
// Unknown request fields are rejected, so a misspelt field gets a 400 rather
// than being silently ignored.
type JSONCodec struct {
	plans     *jsonPlans
	marshal   protojson.MarshalOptions
	unmarshal protojson.UnmarshalOptions
}

// NewJSONCodec returns the codec; plans are shared by every codec.
func NewJSONCodec(res vanguard.TypeResolver, plans *jsonPlans) *JSONCodec {
	return &JSONCodec{
		plans:     plans,
		marshal:   protojson.MarshalOptions{EmitDefaultValues: true, Resolver: res},
		unmarshal: protojson.UnmarshalOptions{Resolver: res},
	}
}

// Name implements vanguard.Codec.
func (c *JSONCodec) Name() string { return "json" }

// IsBinary implements vanguard.StableCodec.
func (c *JSONCodec) IsBinary() bool { return false }

// Unmarshal implements vanguard.Codec. An empty body is the empty message
// (the handlers then say which field is required). The one decoder
// (decodeJSON) decodes a body in one pass; what it leaves, the reference path
// checks (checkJSON) and decodes (protojson): a body that does not fit the
// message is an invalid_argument naming the field, never protojson's own
// words: vanguard decodes the bodies that reach it with this codec, and
// reports any other error as a 500.
func (c *JSONCodec) Unmarshal(data []byte, msg proto.Message) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if decodeJSON(data, msg.ProtoReflect()) {
		return nil
	}
	proto.Reset(msg)
	err := checkJSON(data, msg.ProtoReflect().Descriptor())
	if err == nil {
		if err = c.unmarshal.Unmarshal(data, msg); err != nil {
			err = decodeError(err)
		}
	}
	var f *fault.Error
	if errors.As(err, &f) {
		return connectOf(f)
	}
	return err
}

// connectCodec is JSONCodec for connect-go, whose Codec takes any.
type connectCodec struct{ json *JSONCodec }

// Connect is c as connect-go's codec.
func (c *JSONCodec) Connect() connectCodec { return connectCodec{json: c} }

// Name implements connect.Codec.
func (c connectCodec) Name() string { return "json" }

// Marshal implements connect.Codec.
func (c connectCodec) Marshal(v any) ([]byte, error) {
	msg, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("marshal %T: not a proto message", v)
	}
	return c.json.MarshalAppend(nil, msg)
}

// MarshalStable implements connect's stable codec (Connect GET requests).
func (c connectCodec) MarshalStable(v any) ([]byte, error) { return c.Marshal(v) }

// IsBinary implements connect's stable codec.
func (c connectCodec) IsBinary() bool { return false }

// Unmarshal implements connect.Codec: the one decoder, or protojson for
// what it leaves. The request check (requestCheck) has checked the body's
// shape already, so connect-go (which prefixes "unmarshal message: ") rarely
// words an error of ours.
func (c connectCodec) Unmarshal(data []byte, v any) error {
	msg, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("unmarshal %T: not a proto message", v)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if decodeJSON(data, msg.ProtoReflect()) {
		return nil
	}
	proto.Reset(msg)
	if err := c.json.unmarshal.Unmarshal(data, msg); err != nil {
		return decodeError(err)
	}
	return nil
}

// MarshalAppend implements vanguard.Codec: the one encoder (jsonencode.go).
func (c *JSONCodec) MarshalAppend(base []byte, msg proto.Message) ([]byte, error) {
	if out, ok := c.plans.appendJSON(base, msg.ProtoReflect()); ok {
		return out, nil
	}
	return c.referenceMarshal(base, msg)
}

// referenceMarshal is how answers were written before the one encoder, and
// how it writes what the one encoder leaves: protojson, and for types that
// need it (needsRewrite) a tree decoded from its output, rewritten and
// encoded again by encoding/json.
func (c *JSONCodec) referenceMarshal(base []byte, msg proto.Message) ([]byte, error) {
	raw, err := c.marshal.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if !needsRewrite(msg.ProtoReflect().Descriptor(), map[protoreflect.FullName]bool{}) {
		return append(base, raw...), nil
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	tree = rewriteMessage(tree, msg.ProtoReflect())
	buf := bytes.NewBuffer(base)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// MarshalAppendStable implements vanguard.StableCodec.
func (c *JSONCodec) MarshalAppendStable(base []byte, msg proto.Message) ([]byte, error) {
	return c.MarshalAppend(base, msg)
}

// MarshalAppendField implements vanguard.RESTCodec: it writes one field of a
// message as the whole body (the leaderboard's bare array).
func (c *JSONCodec) MarshalAppendField(base []byte, msg proto.Message, field protoreflect.FieldDescriptor) ([]byte, error) {
	if out, ok := c.plans.appendField(base, msg.ProtoReflect(), field); ok {
		return out, nil
	}
	if field.Message() != nil && !field.IsList() && !field.IsMap() {
		return c.MarshalAppend(base, msg.ProtoReflect().Get(field).Message().Interface())
	}
	whole, err := c.MarshalAppend(nil, msg)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(whole, &obj); err != nil {
		return nil, err
	}
	val, ok := obj[field.JSONName()]
	if !ok {
		return nil, fmt.Errorf("marshal field %s: missing from the encoded message", field.JSONName())
	}
	return append(base, val...), nil
}

// UnmarshalField implements vanguard.RESTCodec.
func (c *JSONCodec) UnmarshalField(data []byte, msg proto.Message, field protoreflect.FieldDescriptor) error {
	if field.Message() != nil && !field.IsList() && !field.IsMap() {
		return c.unmarshal.Unmarshal(data, msg.ProtoReflect().Mutable(field).Message().Interface())
	}
	name, err := json.Marshal(field.JSONName())
	if err != nil {
		return err
	}
	wrapped := make([]byte, 0, len(data)+len(name)+3)
	wrapped = append(append(append(append(wrapped, '{'), name...), ':'), data...)
	wrapped = append(wrapped, '}')
	return c.unmarshal.Unmarshal(wrapped, msg)
}

func is64(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.Int64Kind, protoreflect.Uint64Kind, protoreflect.Sint64Kind,
		protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return true
	}
	return false
}

func jsonNull(fd protoreflect.FieldDescriptor) bool {
	v, _ := proto.GetExtension(fd.Options(), reclaimv1.E_JsonNull).(bool)
	return v
}

// needsRewrite reports whether a message (or one it contains) has a field the
// plain protojson output gets wrong for us.
func needsRewrite(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if is64(fd) || jsonNull(fd) {
			return true
		}
		if fd.Message() != nil && needsRewrite(fd.Message(), seen) {
			return true
		}
	}
	return false
}

func rewriteMessage(node any, msg protoreflect.Message) any {
	obj, ok := node.(map[string]any)
	if !ok {
		return node // well-known types with special JSON forms
	}
	fields := msg.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		name := fd.JSONName()
		val, present := obj[name]
		if !present {
			if jsonNull(fd) && !msg.Has(fd) {
				obj[name] = nil
			}
			continue
		}
		obj[name] = rewriteField(val, fd, msg)
	}
	return obj
}

func rewriteField(val any, fd protoreflect.FieldDescriptor, msg protoreflect.Message) any {
	switch {
	case fd.IsMap():
		m, ok := val.(map[string]any)
		if !ok {
			return val
		}
		vd := fd.MapValue()
		pm := msg.Get(fd).Map()
		for k, v := range m {
			switch {
			case is64(vd):
				m[k] = number(v)
			case vd.Message() != nil:
				mk := protoreflect.ValueOfString(k).MapKey()
				if pv := pm.Get(mk); pv.IsValid() {
					m[k] = rewriteMessage(v, pv.Message())
				}
			}
		}
		return m
	case fd.IsList():
		arr, ok := val.([]any)
		if !ok {
			return val
		}
		list := msg.Get(fd).List()
		for j := range arr {
			switch {
			case is64(fd):
				arr[j] = number(arr[j])
			case fd.Message() != nil && j < list.Len():
				arr[j] = rewriteMessage(arr[j], list.Get(j).Message())
			}
		}
		return arr
	case is64(fd):
		return number(val)
	case fd.Message() != nil:
		return rewriteMessage(val, msg.Get(fd).Message())
	}
	return val
}

// number turns protojson's quoted 64-bit integer into a bare JSON number.
func number(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(s)
	}
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return json.Number(s)
	}
	return v
}
