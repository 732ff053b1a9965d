package gateway

import (
	"encoding/base64"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The one encoder of answers (JSONCodec.MarshalAppend): one pass from the
// message to the bytes, which are, byte for byte, what protojson
// (EmitDefaultValues) wrote before, rewritten where the contract differs
// (docs/decisions.md, "JSON numbers"): the answers were written by protojson,
// and those whose type holds a 64-bit integer or a json_null field anywhere
// (needsRewrite) were decoded into a tree and encoded again by encoding/json.
// So an answer comes in one of two shapes, and this encoder writes both:
//   - protojson's: fields in declaration order, strings escaped as protojson
//     escapes them;
//   - the rewritten: keys sorted at every level (encoding/json sorts a map's
//     keys), strings escaped as encoding/json escapes them (U+2028 and U+2029
//     too), 64-bit integers as bare numbers, unset json_null fields as null.
//
// Both write floats as protojson does (encoding/json kept its numbers'
// text), write every scalar field without presence, zero included, and no
// whitespace (protojson adds a space after some commas, differently in each
// build). A message with a part this encoder does not write (a well-known
// type, an enum, a oneof, a map with keys that are not strings) or a string
// that is not valid UTF-8 goes to the reference encoder (referenceMarshal):
// the error answers' google.rpc.Status with its Any details are written so.

// jsonPlans holds, per message type, how the one encoder writes it. Built
// once per type and shared by every codec (vanguard makes a codec per
// request).
type jsonPlans struct {
	mu    sync.RWMutex
	plans map[planKey]*encodePlan
	tops  map[protoreflect.FullName]topPlan
}

// NewJSONPlans returns the encoder's plans, built per message type on first use.
func NewJSONPlans() *jsonPlans {
	return &jsonPlans{plans: map[planKey]*encodePlan{}, tops: map[protoreflect.FullName]topPlan{}}
}

type planKey struct {
	name   protoreflect.FullName
	sorted bool
}

// topPlan is how an answer of a type is written: its shape, its plan, and
// whether the one encoder writes every part of it.
type topPlan struct {
	sorted bool
	plan   *encodePlan
	ok     bool
}

// encodePlan is how a message type is written in one of the two shapes.
type encodePlan struct {
	ok     bool // false: a field the one encoder does not write
	fields []encodeField
}

type encodeField struct {
	fd   protoreflect.FieldDescriptor
	name string // the key with its quotes and colon: "grossRebate":
	null bool   // json_null: written as null when unset (the rewritten shape)
	sub  *encodePlan
}

// top returns the plan of answers of type md, built on first use.
func (p *jsonPlans) top(md protoreflect.MessageDescriptor) topPlan {
	p.mu.RLock()
	t, ok := p.tops[md.FullName()]
	p.mu.RUnlock()
	if ok {
		return t
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.sorted = needsRewrite(md, map[protoreflect.FullName]bool{})
	t.plan = p.build(md, t.sorted)
	t.ok = complete(t.plan, map[*encodePlan]bool{})
	p.tops[md.FullName()] = t
	return t
}

// build makes md's plan in a shape; p.mu is held. A plan is in the map
// before its fields are built, so a message that holds itself is planned
// once.
func (p *jsonPlans) build(md protoreflect.MessageDescriptor, sorted bool) *encodePlan {
	key := planKey{md.FullName(), sorted}
	if pl, ok := p.plans[key]; ok {
		return pl
	}
	pl := &encodePlan{ok: !strings.HasPrefix(string(md.FullName()), "google.protobuf.")}
	p.plans[key] = pl
	fields := md.Fields()
	for i := range fields.Len() {
		f, ok := p.field(fields.Get(i), sorted)
		pl.ok = pl.ok && ok
		pl.fields = append(pl.fields, f)
	}
	if sorted {
		slices.SortFunc(pl.fields, func(a, b encodeField) int { return strings.Compare(a.fd.JSONName(), b.fd.JSONName()) })
	}
	return pl
}

func (p *jsonPlans) field(fd protoreflect.FieldDescriptor, sorted bool) (encodeField, bool) {
	name := strconv.Quote(fd.JSONName())
	f := encodeField{fd: fd, name: name + ":", null: sorted && jsonNull(fd)}
	if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() || fd.IsExtension() || name != `"`+fd.JSONName()+`"` {
		return f, false // none in our protos
	}
	vd := fd
	if fd.IsMap() {
		if fd.MapKey().Kind() != protoreflect.StringKind {
			return f, false // sorted as numbers by protojson, as strings by encoding/json
		}
		vd = fd.MapValue()
	}
	switch vd.Kind() {
	case protoreflect.EnumKind, protoreflect.GroupKind:
		return f, false
	case protoreflect.MessageKind:
		f.sub = p.build(vd.Message(), sorted)
	}
	return f, true
}

// complete reports whether a plan and every plan under it can be written.
func complete(pl *encodePlan, seen map[*encodePlan]bool) bool {
	if seen[pl] {
		return true
	}
	seen[pl] = true
	if !pl.ok {
		return false
	}
	for _, f := range pl.fields {
		if f.sub != nil && !complete(f.sub, seen) {
			return false
		}
	}
	return true
}

// appendJSON writes m as the one encoder does; false when m's type has a
// part it does not write or a string is not valid UTF-8 (then the
// reference encoder writes it).
func (p *jsonPlans) appendJSON(b []byte, m protoreflect.Message) ([]byte, bool) {
	t := p.top(m.Descriptor())
	if !t.ok {
		return b, false
	}
	e := jsonEncoder{sorted: t.sorted, buf: b}
	if !e.message(m, t.plan) {
		return b, false
	}
	return e.buf, true
}

// appendField writes the list field fd of m alone, as it is written within
// m (the leaderboard's bare array: response_body "entries").
func (p *jsonPlans) appendField(b []byte, m protoreflect.Message, fd protoreflect.FieldDescriptor) ([]byte, bool) {
	t := p.top(m.Descriptor())
	if !t.ok || !fd.IsList() {
		return b, false
	}
	for _, f := range t.plan.fields {
		if f.fd.Number() == fd.Number() {
			e := jsonEncoder{sorted: t.sorted, buf: b}
			if !e.list(m.Get(fd).List(), fd, f.sub) {
				return b, false
			}
			return e.buf, true
		}
	}
	return b, false
}

// jsonEncoder writes one answer in one shape.
type jsonEncoder struct {
	sorted bool
	buf    []byte
}

func (e *jsonEncoder) message(m protoreflect.Message, pl *encodePlan) bool {
	e.buf = append(e.buf, '{')
	first := true
	for i := range pl.fields {
		f := &pl.fields[i]
		fd := f.fd
		if fd.HasPresence() && !m.Has(fd) {
			if f.null {
				e.key(&first, f.name)
				e.buf = append(e.buf, "null"...)
			}
			continue
		}
		e.key(&first, f.name)
		v := m.Get(fd)
		var ok bool
		switch {
		case fd.IsList():
			ok = e.list(v.List(), fd, f.sub)
		case fd.IsMap():
			ok = e.mapValue(v.Map(), fd.MapValue(), f.sub)
		default:
			ok = e.singular(v, fd, f.sub)
		}
		if !ok {
			return false
		}
	}
	e.buf = append(e.buf, '}')
	return true
}

func (e *jsonEncoder) key(first *bool, name string) {
	if !*first {
		e.buf = append(e.buf, ',')
	}
	*first = false
	e.buf = append(e.buf, name...)
}

func (e *jsonEncoder) list(l protoreflect.List, fd protoreflect.FieldDescriptor, sub *encodePlan) bool {
	e.buf = append(e.buf, '[')
	for i := range l.Len() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if !e.singular(l.Get(i), fd, sub) {
			return false
		}
	}
	e.buf = append(e.buf, ']')
	return true
}

// mapValue writes a map with string keys in byte order, the order of both
// protojson and encoding/json.
func (e *jsonEncoder) mapValue(m protoreflect.Map, vd protoreflect.FieldDescriptor, sub *encodePlan) bool {
	keys := make([]string, 0, m.Len())
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k.String())
		return true
	})
	slices.Sort(keys)
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if !e.string(k) {
			return false
		}
		e.buf = append(e.buf, ':')
		if !e.singular(m.Get(protoreflect.ValueOfString(k).MapKey()), vd, sub) {
			return false
		}
	}
	e.buf = append(e.buf, '}')
	return true
}

func (e *jsonEncoder) singular(v protoreflect.Value, fd protoreflect.FieldDescriptor, sub *encodePlan) bool {
	switch fd.Kind() {
	case protoreflect.MessageKind:
		return e.message(v.Message(), sub)
	case protoreflect.StringKind:
		return e.string(v.String())
	case protoreflect.BytesKind:
		e.buf = append(e.buf, '"')
		e.buf = base64.StdEncoding.AppendEncode(e.buf, v.Bytes())
		e.buf = append(e.buf, '"')
	case protoreflect.BoolKind:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		e.quote()
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
		e.quote()
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		e.quote()
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
		e.quote()
	case protoreflect.FloatKind:
		e.buf = appendProtoFloat(e.buf, v.Float(), 32)
	case protoreflect.DoubleKind:
		e.buf = appendProtoFloat(e.buf, v.Float(), 64)
	default:
		return false
	}
	return true
}

// quote writes the quote around a 64-bit integer in protojson's shape (the
// rewritten shape has none; no type in protojson's shape has one either).
func (e *jsonEncoder) quote() {
	if !e.sorted {
		e.buf = append(e.buf, '"')
	}
}

func (e *jsonEncoder) string(s string) bool {
	var ok bool
	e.buf, ok = appendJSONString(e.buf, s, e.sorted)
	return ok
}

// appendJSONString writes s as protojson does: control characters, '"' and
// '\\' escaped, everything else as it is; with separators, as encoding/json
// does without HTML escaping: U+2028 and U+2029 escaped too. False for a
// string that is not valid UTF-8 (protojson refuses it).
func appendJSONString(out []byte, s string, separators bool) ([]byte, bool) {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return out, false
			}
			if separators && (r == '\u2028' || r == '\u2029') {
				out = append(out, s[start:i]...)
				out = append(out, `\u202`...)
				out = append(out, "0123456789abcdef"[r&0xF])
				start = i + n
			}
			i += n
			continue
		}
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		out = append(out, s[start:i]...)
		out = appendEscape(out, c)
		i++
		start = i
	}
	out = append(out, s[start:]...)
	return append(out, '"'), true
}

// appendEscape writes an ASCII byte both encoders escape, as both do.
func appendEscape(out []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(out, '\\', c)
	case '\b':
		return append(out, '\\', 'b')
	case '\f':
		return append(out, '\\', 'f')
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	out = append(out, `\u`...)
	out = append(out, "0000"[1+(bits.Len32(uint32(c))-1)/4:]...)
	return strconv.AppendUint(out, uint64(c), 16)
}

// appendProtoFloat writes a float as protojson does (its
// internal/encoding/json appendFloat): NaN and the infinities as strings,
// exponents from 1e21 and below 1e-6, one exponent digit where one suffices.
func appendProtoFloat(out []byte, n float64, bitSize int) []byte {
	switch {
	case math.IsNaN(n):
		return append(out, `"NaN"`...)
	case math.IsInf(n, +1):
		return append(out, `"Infinity"`...)
	case math.IsInf(n, -1):
		return append(out, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(n); abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	out = strconv.AppendFloat(out, n, format, -1, bitSize)
	if format == 'e' {
		n := len(out)
		if n >= 4 && out[n-4] == 'e' && out[n-3] == '-' && out[n-2] == '0' {
			out[n-2] = out[n-1]
			out = out[:n-1]
		}
	}
	return out
}
