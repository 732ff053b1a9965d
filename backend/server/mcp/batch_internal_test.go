package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzPeekJSON: whatever the body and however it arrives, peekJSON finds
// its first byte that is not JSON whitespace (an array's '[' for every
// valid batch), and what it read followed by the rest is the body, byte
// for byte.
func FuzzPeekJSON(f *testing.F) {
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`), false)
	f.Add([]byte(" \r\n\t[]"), true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), false)
	f.Add(bytes.Repeat([]byte(" "), 1500), true)
	f.Add([]byte(""), false)
	f.Add([]byte("\v["), false)
	f.Fuzz(func(t *testing.T, body []byte, oneByte bool) {
		var r io.Reader = bytes.NewReader(body)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		read, first, err := peekJSON(r)
		i := bytes.IndexFunc(body, func(c rune) bool { return !isJSONSpace(byte(c)) || c >= 0x80 })
		switch {
		case i < 0 && (first != 0 || err != io.EOF):
			t.Fatalf("a body of whitespace: first %q, err %v", first, err)
		case i >= 0 && (first != body[i] || err != nil):
			t.Fatalf("first %q, err %v; want %q", first, err, body[i])
		}
		rest, _ := io.ReadAll(r)
		if got := append(append([]byte{}, read...), rest...); !bytes.Equal(got, body) {
			t.Fatalf("read %q then %q: not the body %q", read, rest, body)
		}
		var v any
		if json.Unmarshal(body, &v) == nil {
			if _, isArray := v.([]any); isArray != (first == '[') {
				t.Fatalf("a valid JSON %T whose first byte is %q", v, first)
			}
		}
	})
}
