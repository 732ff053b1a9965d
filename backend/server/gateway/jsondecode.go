package gateway

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// decodeJSON is the one decoder of request bodies: in one pass it checks and
// decodes a body that the request check (checkJSON) and protojson both
// accept, into the message protojson would make of it. For anything else it
// reports false, having decoded a part of the body into m (reset it): a
// malformed body, and the valid forms it leaves to the reference path
// (escaped surrogates, numbers in strings for floats, well-known types,
// enums, bytes, oneofs). The reference path (checkJSON, then protojson)
// words every refusal, so a refusal's message is the check's, whichever
// path saw the body first; FuzzDecodeMatchesReference holds the two paths to
// the same messages.
func decodeJSON(data []byte, m protoreflect.Message) bool {
	d := jsonDecoder{data: data}
	d.space()
	if !d.object(m, 0) {
		return false
	}
	d.space()
	return d.i == len(d.data)
}

// maxDecodeDepth bounds nesting (protojson's limit is 10,000; our requests
// nest three deep).
const maxDecodeDepth = 64

type jsonDecoder struct {
	data []byte
	i    int
}

func (d *jsonDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte consumes c, after white space.
func (d *jsonDecoder) byte(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *jsonDecoder) literal(s string) bool {
	d.space()
	if d.ahead(s) {
		d.i += len(s)
		return true
	}
	return false
}

// ahead reports whether the input at d.i starts with s.
func (d *jsonDecoder) ahead(s string) bool {
	return len(d.data)-d.i >= len(s) && string(d.data[d.i:d.i+len(s)]) == s
}

// object decodes a JSON object into m: every key names a field once (by its
// JSON name or its name in the .proto file, as protojson finds it).
func (d *jsonDecoder) object(m protoreflect.Message, depth int) bool {
	if depth > maxDecodeDepth || !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return true
	}
	fields := m.Descriptor().Fields()
	var seen []bool
	for {
		d.space()
		key, ok := d.string()
		if !ok || !d.byte(':') {
			return false
		}
		fd := fields.ByJSONName(key)
		if fd == nil {
			fd = fields.ByTextName(key)
		}
		if fd == nil || fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic() {
			return false
		}
		if seen == nil {
			seen = make([]bool, fields.Len())
		}
		if seen[fd.Index()] {
			return false // twice, or by both its names
		}
		seen[fd.Index()] = true
		// null leaves a field unset, as protojson reads it.
		if !d.literal("null") && !d.field(m, fd, depth) {
			return false
		}
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

func (d *jsonDecoder) field(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) bool {
	switch {
	case fd.IsList():
		return d.list(m.Mutable(fd).List(), fd, depth)
	case fd.IsMap():
		return d.mapValue(m.Mutable(fd).Map(), fd, depth)
	case fd.Kind() == protoreflect.MessageKind:
		return !wellKnown(fd.Message()) && d.object(m.Mutable(fd).Message(), depth+1)
	}
	v, ok := d.scalar(fd)
	if ok {
		m.Set(fd, v)
	}
	return ok
}

func wellKnown(md protoreflect.MessageDescriptor) bool {
	return strings.HasPrefix(string(md.FullName()), "google.protobuf.")
}

// list decodes an array; null is no element (checkJSON refuses it).
func (d *jsonDecoder) list(l protoreflect.List, fd protoreflect.FieldDescriptor, depth int) bool {
	if !d.byte('[') {
		return false
	}
	if d.byte(']') {
		return true
	}
	for {
		if fd.Kind() == protoreflect.MessageKind {
			if wellKnown(fd.Message()) {
				return false
			}
			v := l.NewElement()
			if !d.object(v.Message(), depth+1) {
				return false
			}
			l.Append(v)
		} else {
			v, ok := d.scalar(fd)
			if !ok {
				return false
			}
			l.Append(v)
		}
		if d.byte(']') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

// mapValue decodes a map with string keys and scalar values, each key once.
func (d *jsonDecoder) mapValue(mp protoreflect.Map, fd protoreflect.FieldDescriptor, depth int) bool {
	if fd.MapKey().Kind() != protoreflect.StringKind || fd.MapValue().Kind() == protoreflect.MessageKind || depth > maxDecodeDepth {
		return false
	}
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return true
	}
	for {
		d.space()
		key, ok := d.string()
		if !ok || !d.byte(':') {
			return false
		}
		k := protoreflect.ValueOfString(key).MapKey()
		if mp.Has(k) {
			return false
		}
		v, ok := d.scalar(fd.MapValue())
		if !ok {
			return false
		}
		mp.Set(k, v)
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

// scalar decodes a string, a bool, an integer (a number or a string holding
// one, no fraction or exponent) or a double (a number).
func (d *jsonDecoder) scalar(fd protoreflect.FieldDescriptor) (protoreflect.Value, bool) {
	d.space()
	switch fd.Kind() {
	case protoreflect.StringKind:
		s, ok := d.string()
		return protoreflect.ValueOfString(s), ok
	case protoreflect.BoolKind:
		if d.literal("true") {
			return protoreflect.ValueOfBool(true), true
		}
		return protoreflect.ValueOfBool(false), d.literal("false")
	case protoreflect.DoubleKind:
		raw, _, ok := d.number()
		if !ok {
			return protoreflect.Value{}, false
		}
		f, err := strconv.ParseFloat(raw, 64)
		return protoreflect.ValueOfFloat64(f), err == nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return d.integer(fd.Kind())
	}
	return protoreflect.Value{}, false
}

func (d *jsonDecoder) integer(kind protoreflect.Kind) (protoreflect.Value, bool) {
	var raw string
	if d.i < len(d.data) && d.data[d.i] == '"' {
		s, ok := d.string()
		if !ok || !isInteger(s) {
			return protoreflect.Value{}, false
		}
		raw = s
	} else {
		var whole, ok bool
		raw, whole, ok = d.number()
		if !ok || !whole {
			return protoreflect.Value{}, false
		}
	}
	switch kind {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		n, err := strconv.ParseInt(raw, 10, 32)
		return protoreflect.ValueOfInt32(int32(n)), err == nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		n, err := strconv.ParseInt(raw, 10, 64)
		return protoreflect.ValueOfInt64(n), err == nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, err := strconv.ParseUint(raw, 10, 32)
		return protoreflect.ValueOfUint32(uint32(n)), err == nil
	}
	n, err := strconv.ParseUint(raw, 10, 64)
	return protoreflect.ValueOfUint64(n), err == nil
}

// isInteger reports whether s is a JSON number without fraction or exponent.
func isInteger(s string) bool {
	d := jsonDecoder{data: []byte(s)}
	_, whole, ok := d.number()
	return ok && whole && d.i == len(s)
}

// number reads a JSON number: its text, and whether it has neither fraction
// nor exponent.
func (d *jsonDecoder) number() (raw string, whole, ok bool) {
	start := d.i
	if d.i < len(d.data) && d.data[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.data) && d.data[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return "", false, false
	}
	whole = true
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return "", false, false
		}
		whole = false
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return "", false, false
		}
		whole = false
	}
	return string(d.data[start:d.i]), whole, true
}

func (d *jsonDecoder) digits() int {
	start := d.i
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// string reads a JSON string: valid UTF-8, no control characters, escapes
// other than lone surrogates (protojson refuses them, encoding/json does
// not).
func (d *jsonDecoder) string() (string, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", false
	}
	d.i++
	start := d.i
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			s := string(d.data[start:d.i])
			d.i++
			return s, true
		case c == '\\':
			return d.escaped(start)
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, n := utf8.DecodeRune(d.data[d.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			d.i += n
		}
	}
	return "", false
}

// escaped reads the rest of a string that has an escape at d.i.
func (d *jsonDecoder) escaped(start int) (string, bool) {
	out := append([]byte(nil), d.data[start:d.i]...)
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), true
		case c == '\\':
			if d.i+1 >= len(d.data) {
				return "", false
			}
			e := d.data[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					if !d.ahead(`\u`) {
						return "", false
					}
					d.i += 2
					low, ok := d.hex4()
					if r = utf16.DecodeRune(r, low); !ok || r == utf8.RuneError {
						return "", false
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", false
			}
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, n := utf8.DecodeRune(d.data[d.i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			out = append(out, d.data[d.i:d.i+n]...)
			d.i += n
		}
	}
	return "", false
}

func (d *jsonDecoder) hex4() (rune, bool) {
	if d.i+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	d.i += 4
	return r, true
}
