package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// checkJSON reports, for a person, what is wrong with a JSON request body for
// a message of type md: its syntax with line and column, or the first field
// whose value cannot be one of md's (unknown field, wrong JSON type, null in a
// list, a number out of range), named by its JSON path (items[0].type). It
// checks shapes only; protojson still decodes, and the handlers validate
// meaning. A nil error means protojson will accept the shapes.
func checkJSON(data []byte, md protoreflect.MessageDescriptor) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if !utf8.Valid(data) {
		return Invalidf("", "request body is not valid UTF-8")
	}
	// encoding/json words syntax errors best (with the offset of the bad
	// byte); the second pass keeps numbers exact and finds repeated keys.
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		return syntaxError(data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tree, err := readValue(dec, "")
	if err != nil {
		var f *fault.Error
		if errors.As(err, &f) {
			return err
		}
		return syntaxError(data, err)
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return Invalidf("", "request body must be a JSON object, got %s", jsonKind(tree))
	}
	return checkObject("", obj, md)
}

// readValue decodes one JSON value token by token, as encoding/json would
// into an any, but refusing an object that names a key twice (protojson
// refuses it too, in its own words).
func readValue(dec *json.Decoder, path string) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			if _, dup := obj[key]; dup {
				return nil, InvalidParam(join(path, key), "field %q is given twice: give it once", join(path, key))
			}
			v, err := readValue(dec, join(path, key))
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		_, err := dec.Token() // '}'
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			v, err := readValue(dec, path+"["+strconv.Itoa(len(arr))+"]")
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token() // ']'
		return arr, err
	}
	return tok, nil
}

// syntaxError words a JSON syntax error with its line and column.
func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se) && se.Error() == "unexpected end of JSON input":
		line, col := position(data, int64(len(data))+1)
		return Invalidf("", "request body is not valid JSON (line %d, column %d): it ends before the value is complete", line, col)
	case errors.As(err, &se):
		line, col := position(data, se.Offset)
		return Invalidf("", "request body is not valid JSON (line %d, column %d): %s", line, col, se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		line, col := position(data, int64(len(data))+1)
		return Invalidf("", "request body is not valid JSON (line %d, column %d): it ends before the value is complete", line, col)
	}
	return Invalidf("", "request body is not valid JSON: %s", err.Error())
}

// position turns the offset encoding/json reports (the count of bytes read,
// the bad one included) into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	at := int(offset) - 1
	if at < 0 {
		at = 0
	}
	if at > len(data) {
		at = len(data)
	}
	before := data[:at]
	line = 1 + bytes.Count(before, []byte{'\n'})
	return line, at - bytes.LastIndexByte(before, '\n')
}

func checkObject(path string, obj map[string]any, md protoreflect.MessageDescriptor) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same error for the same body, whatever the map order
	for _, k := range keys {
		fd := fieldByJSONKey(md, k)
		if fd == nil {
			return InvalidParam(join(path, k), "unknown field %q: %s takes %s", join(path, k), describe(path), fieldNames(md))
		}
		if err := checkField(join(path, fd.JSONName()), obj[k], fd); err != nil {
			return err
		}
	}
	return nil
}

// fieldByJSONKey finds a field as protojson does: by JSON name, or by its
// name in the .proto file.
func fieldByJSONKey(md protoreflect.MessageDescriptor, key string) protoreflect.FieldDescriptor {
	if fd := md.Fields().ByJSONName(key); fd != nil {
		return fd
	}
	if fd := md.Fields().ByTextName(key); fd != nil {
		return fd
	}
	return nil
}

func checkField(path string, v any, fd protoreflect.FieldDescriptor) error {
	if v == nil {
		return nil // protojson reads null as "not set"
	}
	switch {
	case fd.IsMap():
		obj, ok := v.(map[string]any)
		if !ok {
			return Invalidf(path, "must be an object, got %s", jsonKind(v))
		}
		for k, mv := range obj {
			if err := checkMapKey(path, k, fd.MapKey()); err != nil {
				return err
			}
			if err := checkElement(path+"["+strconv.Quote(k)+"]", mv, fd.MapValue()); err != nil {
				return err
			}
		}
		return nil
	case fd.IsList():
		arr, ok := v.([]any)
		if !ok {
			return Invalidf(path, "must be an array, got %s", jsonKind(v))
		}
		for i, ev := range arr {
			if err := checkElement(path+"["+strconv.Itoa(i)+"]", ev, fd); err != nil {
				return err
			}
		}
		return nil
	}
	return checkValue(path, v, fd)
}

// checkElement checks a list element or map value: null is no value there.
func checkElement(path string, v any, fd protoreflect.FieldDescriptor) error {
	if v == nil {
		return Invalidf(path, "must be %s, got null", want(fd))
	}
	return checkValue(path, v, fd)
}

func checkMapKey(path, key string, fd protoreflect.FieldDescriptor) error {
	if fd.Kind() == protoreflect.StringKind {
		return nil
	}
	return checkValue(path+"["+strconv.Quote(key)+"]", key, fd)
}

// checkValue checks one singular value against its field's kind.
func checkValue(path string, v any, fd protoreflect.FieldDescriptor) error {
	bad := func() error { return Invalidf(path, "must be %s, got %s", want(fd), jsonKind(v)) }
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		md := fd.Message()
		if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
			return nil // well-known types have JSON forms of their own: protojson decides
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		return checkObject(path, obj, md)
	case protoreflect.StringKind, protoreflect.BytesKind:
		if _, ok := v.(string); !ok {
			return bad()
		}
	case protoreflect.BoolKind:
		if _, ok := v.(bool); !ok {
			return bad()
		}
	case protoreflect.EnumKind:
		switch ev := v.(type) {
		case string:
			if fd.Enum().Values().ByName(protoreflect.Name(ev)) == nil {
				return Invalidf(path, "unknown value %q", ev)
			}
		case json.Number:
			if _, err := ev.Int64(); err != nil {
				return bad()
			}
		default:
			return bad()
		}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return checkFloat(path, v, fd)
	default:
		return checkInteger(path, v, fd)
	}
	return nil
}

func checkFloat(path string, v any, fd protoreflect.FieldDescriptor) error {
	var s string
	switch fv := v.(type) {
	case json.Number:
		s = fv.String()
	case string:
		if fv == "NaN" || fv == "Infinity" || fv == "-Infinity" {
			return nil
		}
		if !numberString(fv) {
			return Invalidf(path, "must be %s, got %s", want(fd), strconv.Quote(fv))
		}
		s = fv
	default:
		return Invalidf(path, "must be %s, got %s", want(fd), jsonKind(v))
	}
	bits := 64
	if fd.Kind() == protoreflect.FloatKind {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil || math.IsInf(f, 0) {
		return Invalidf(path, "must be %s, got %s", want(fd), s)
	}
	return nil
}

// checkInteger accepts what protojson accepts for integer kinds: a JSON
// number or a decimal string whose value is a whole number within range.
func checkInteger(path string, v any, fd protoreflect.FieldDescriptor) error {
	var s string
	switch iv := v.(type) {
	case json.Number:
		s = iv.String()
	case string:
		if !numberString(iv) {
			return Invalidf(path, "must be %s, got %s", want(fd), strconv.Quote(iv))
		}
		s = iv
	default:
		return Invalidf(path, "must be %s, got %s", want(fd), jsonKind(v))
	}
	f, ok := new(big.Float).SetPrec(200).SetString(s)
	if !ok || !f.IsInt() {
		return Invalidf(path, "must be %s, got %s", want(fd), strconv.Quote(s))
	}
	n, _ := f.Int(nil)
	lo, hi := integerRange(fd.Kind())
	if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return outOfRange(path, s, fd)
	}
	return nil
}

// numberString reports whether a quoted number is one protojson reads: a
// JSON number and nothing else, no space around it.
func numberString(s string) bool {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) || strings.TrimSpace(s) != s {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// namedRange is the range a message names for an integer field: the one
// its rules declare in the proto ("limit must be a whole number from 1 to
// 1000", not "from 0 to 4294967295", uint32's range, which no client can
// use), or the field type's.
func namedRange(fd protoreflect.FieldDescriptor) (lo, hi *big.Int) {
	if lo, hi, ok := ruleRangeInts(fd); ok {
		return lo, hi
	}
	return integerRange(fd.Kind())
}

// outOfRange is the refusal of a whole number beyond its field's type: the
// rules' one message for the range when they declare one (waitSeconds=-1
// is told what waitSeconds=31 is), else the type's range.
func outOfRange(path, got string, fd protoreflect.FieldDescriptor) error {
	if lo, hi, ok := ruleRangeInts(fd); ok {
		return rangeMistake(path, lo.String(), hi.String(), got)
	}
	lo, hi := integerRange(fd.Kind())
	return Invalidf(path, "must be %s from %s to %s, got %s", want(fd), lo, hi, got)
}

func integerRange(k protoreflect.Kind) (lo, hi *big.Int) {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return big.NewInt(0), big.NewInt(math.MaxUint32)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64)
	}
	return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
}

// want says what JSON a field's values take.
func want(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "an object"
	case protoreflect.StringKind:
		return "a string"
	case protoreflect.BytesKind:
		return "a base64 string"
	case protoreflect.BoolKind:
		return "true or false"
	case protoreflect.EnumKind:
		return "one of the enum's names"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "a number"
	}
	return "a whole number"
}

// jsonKind names a decoded JSON value's type for a message.
func jsonKind(v any) string {
	switch tv := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return strconv.FormatBool(tv)
	case json.Number:
		return tv.String()
	}
	return fmt.Sprintf("%T", v)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(path string) string {
	if path == "" {
		return "this request"
	}
	return path
}

// fieldNames lists a message's fields by JSON name.
func fieldNames(md protoreflect.MessageDescriptor) string {
	fields := md.Fields()
	if fields.Len() == 0 {
		return "no fields"
	}
	names := make([]string, fields.Len())
	for i := range names {
		names[i] = fields.Get(i).JSONName()
	}
	return strings.Join(names, ", ")
}

// protojsonError words an error of protojson's that checkJSON let through
// (a duplicate field, invalid UTF-8, bad base64) without its "proto:" prefix.
// (protobuf puts a space or a no-break space after "proto:" at random, so that
// nobody depends on its wording.)
var protojsonError = regexp.MustCompile(`^proto:[\s\x{00a0}]*(?:\(line (\d+):(\d+)\):[\s\x{00a0}]*)?`)

func decodeError(err error) error {
	msg := err.Error()
	if m := protojsonError.FindStringSubmatch(msg); m != nil {
		rest := msg[len(m[0]):]
		if m[1] != "" {
			return Invalidf("", "request body (line %s, column %s): %s", m[1], m[2], rest)
		}
		return Invalidf("", "request body: %s", rest)
	}
	return Invalidf("", "request body: %s", msg)
}
