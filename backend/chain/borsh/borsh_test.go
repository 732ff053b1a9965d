package borsh_test

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/borsh"
)

func TestReaderReadsInOrder(t *testing.T) {
	t.Parallel()
	key := solana.MustPublicKeyFromBase58("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s")
	data := append([]byte{7, 0xff, 0xee}, key[:]...)
	data = append(data, 0x04, 0x03, 0x02, 0x01)
	data = append(data, 3, 0, 0, 0, 'a', 'b', 0xff)
	data = append(data, 8, 7, 6, 5, 4, 3, 2, 1)
	r := borsh.NewReader(data)
	if v := r.U8(); v != 7 {
		t.Errorf("U8 = %d", v)
	}
	r.Skip(2)
	if v := r.Pubkey(); v != key {
		t.Errorf("Pubkey = %s", v)
	}
	if v := r.U32(); v != 0x01020304 {
		t.Errorf("U32 = %#x", v)
	}
	if v := r.Str(); v != "ab\xff" {
		t.Errorf("Str = %q", v)
	}
	if v := r.U64(); v != 0x0102030405060708 || r.Offset() != len(data) {
		t.Errorf("U64 = %#x at offset %d", v, r.Offset())
	}
	if r.Err() != nil {
		t.Fatalf("Err = %v", r.Err())
	}
}

func TestReaderOverrunSticks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		data []byte
		read func(*borsh.Reader)
	}{
		{"u8 of nothing", nil, func(r *borsh.Reader) { r.U8() }},
		{"u32 of 3 bytes", []byte{1, 2, 3}, func(r *borsh.Reader) { r.U32() }},
		{"pubkey of 31 bytes", make([]byte, 31), func(r *borsh.Reader) { r.Pubkey() }},
		{"string longer than the data", []byte{5, 0, 0, 0, 'a'}, func(r *borsh.Reader) { r.Str() }},
		{"string length of 2^32-1", []byte{0xff, 0xff, 0xff, 0xff}, func(r *borsh.Reader) { r.Str() }},
		{"negative bytes", []byte{1}, func(r *borsh.Reader) { r.Bytes(-1) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := borsh.NewReader(tc.data)
			tc.read(r)
			if !errors.Is(r.Err(), borsh.ErrShort) {
				t.Fatalf("Err = %v, want ErrShort", r.Err())
			}
			// Every later read is a zero value, even one the data could serve.
			if r.U8() != 0 || r.Str() != "" || !r.Pubkey().IsZero() {
				t.Error("a read after an overrun returned data")
			}
		})
	}
}
