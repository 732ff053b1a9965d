package assets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// jsonScan reads JSON text in place, for the few answers whose size makes a
// generic decoder the cost (tokenaccounts.go): strings without escapes are
// found with bytes.IndexByte and returned as slices of the text, values not
// wanted are skipped without being decoded. It checks the structure it
// walks (objects, arrays, members, literals), not every character of a
// string or a number: an answer malformed there fails where its value is
// used (a base58 key, base64 data, an unsigned integer).
type jsonScan struct {
	b   []byte
	pos int
	buf []byte // decoded data, reused from one value to the next
}

var errJSONSyntax = errors.New("malformed JSON")

func (s *jsonScan) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errJSONSyntax, what, s.pos)
}

func (s *jsonScan) space() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (s *jsonScan) peek() byte {
	s.space()
	if s.pos >= len(s.b) {
		return 0
	}
	return s.b[s.pos]
}

func (s *jsonScan) expect(c byte) error {
	if s.peek() != c {
		return s.fail("want " + strconv.QuoteRune(rune(c)))
	}
	s.pos++
	return nil
}

// null consumes a null and reports whether there was one.
func (s *jsonScan) null() bool {
	if s.peek() == 'n' && bytes.HasPrefix(s.b[s.pos:], []byte("null")) {
		s.pos += 4
		return true
	}
	return false
}

// str reads a string. Without escapes it is a slice of the text (valid
// until the text changes); with them, a decoded copy.
func (s *jsonScan) str() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start := s.pos
	end := bytes.IndexByte(s.b[start:], '"')
	if end < 0 {
		return nil, s.fail("unterminated string")
	}
	raw := s.b[start : start+end]
	if bytes.IndexByte(raw, '\\') < 0 {
		s.pos = start + end + 1
		return raw, nil
	}
	// An escape: find the closing quote past escaped ones, let
	// encoding/json decode.
	i := start
	for {
		if i >= len(s.b) {
			return nil, s.fail("unterminated string")
		}
		switch s.b[i] {
		case '\\':
			i += 2
			continue
		case '"':
		default:
			i++
			continue
		}
		break
	}
	var out string
	if err := json.Unmarshal(s.b[start-1:i+1], &out); err != nil {
		return nil, s.fail("bad string")
	}
	s.pos = i + 1
	return []byte(out), nil
}

// uint reads a non-negative integer.
func (s *jsonScan) uint() (uint64, error) {
	s.space()
	start := s.pos
	for s.pos < len(s.b) && s.b[s.pos] >= '0' && s.b[s.pos] <= '9' {
		s.pos++
	}
	n, err := strconv.ParseUint(string(s.b[start:s.pos]), 10, 64)
	if err != nil {
		return 0, s.fail("want an unsigned integer")
	}
	return n, nil
}

// object calls field for each member of an object, positioned at its value,
// which field must consume (skip does).
func (s *jsonScan) object(field func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.fail("want ',' or '}'")
		}
	}
}

// array calls elem for each element of an array, positioned at it.
func (s *jsonScan) array(elem func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.fail("want ',' or ']'")
		}
	}
}

// skip consumes one value of any kind.
func (s *jsonScan) skip() error {
	switch c := s.peek(); {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{':
		return s.object(func([]byte) error { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == 't' || c == 'f' || c == 'n':
		for _, word := range [...]string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.pos:], []byte(word)) {
				s.pos += len(word)
				return nil
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		start := s.pos
		for s.pos < len(s.b) && isNumberByte(s.b[s.pos]) {
			s.pos++
		}
		if _, err := strconv.ParseFloat(string(s.b[start:s.pos]), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return s.fail("bad number")
		}
		return nil
	}
	return s.fail("want a value")
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// raw consumes one value and returns its text.
func (s *jsonScan) raw() ([]byte, error) {
	s.space()
	start := s.pos
	if err := s.skip(); err != nil {
		return nil, err
	}
	return s.b[start:s.pos], nil
}
