package relay_test

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// TestUndecodableTransactionSaysWhy: bytes that are not a signed
// transaction fail INVALID_TRANSACTION with what is wrong in the wire
// format's terms, never the decoder library's.
func TestUndecodableTransactionSaysWhy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, tok := f.build(t)
	sig := bytes.Repeat([]byte{9}, 64)
	const prefix = "transactionBase64 is not a serialized VersionedTransaction: "
	const suffix = "; send the bytes of the transaction the wallet signed"
	cases := []struct {
		name string
		raw  []byte
		why  string
	}{
		{"three bytes", []byte{1, 2, 3}, "it declares 1 signature of 64 bytes and a message after them, but only 2 bytes follow the signature count"},
		{"signatures cut short", append([]byte{2}, sig...), "it declares 2 signatures of 64 bytes and a message after them, but only 64 bytes follow the signature count"},
		{"no signature count", []byte{0x80, 0x80, 0x80, 0x80}, "it does not start with a signature count (a compact-u16)"},
		{"message cut short", append(append([]byte{1}, sig...), 0x80, 1, 2), "its message (header, account keys, recent blockhash, instructions) is cut short or malformed"},
		{"v0 over a packet", append(append([]byte{1}, sig...), bytes.Repeat([]byte{0x80}, 1233-65)...), "it is 1233 bytes, but a legacy or v0 transaction is at most 1232 (only a v1 one, first byte 0x81, may reach 4096)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.submit(t, base64.StdEncoding.EncodeToString(tc.raw), tok)
			if r.Status != relay.StatusFailed || r.Code != relay.CodeInvalidTransaction || r.Message != prefix+tc.why+suffix {
				t.Fatalf("got %+v, want INVALID_TRANSACTION saying %q", r, tc.why)
			}
			for _, internal := range []string{"numSignatures", "remaining bytes", "decode", "unmarshal"} {
				if strings.Contains(r.Message, internal) {
					t.Errorf("message %q names the decoder's %q", r.Message, internal)
				}
			}
		})
	}
}
