// Package borsh reads the little-endian Borsh values that Solana programs
// write into their accounts (Metaplex Token Metadata and Core, Token-2022's
// TokenMetadata extension): fixed-size integers, public keys and u32-length
// strings. It reads only what the account parsers of this module need.
package borsh

import (
	"encoding/binary"
	"errors"

	"github.com/gagliardetto/solana-go"
)

// ErrShort is a read past the end of the data.
var ErrShort = errors.New("borsh: data too short")

// Reader reads Borsh values from a byte slice in order. After the first
// overrun every read returns the zero value and Err returns ErrShort, so a
// parser reads a whole layout and checks Err once.
type Reader struct {
	b   []byte
	off int
	err error
}

// NewReader reads b from its start.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Err is ErrShort after an overrun, nil before.
func (r *Reader) Err() error { return r.err }

// Bytes reads the next n bytes (a slice of the data, not a copy).
func (r *Reader) Bytes(n int) []byte {
	if r.err != nil || n < 0 || r.off+n > len(r.b) {
		r.err = ErrShort
		return nil
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v
}

// Skip passes over n bytes.
func (r *Reader) Skip(n int) { r.Bytes(n) }

// U8 reads one byte (also a bool, and the tag of an Option).
func (r *Reader) U8() uint8 {
	if v := r.Bytes(1); v != nil {
		return v[0]
	}
	return 0
}

// U32 reads a little-endian u32.
func (r *Reader) U32() uint32 {
	if v := r.Bytes(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

// U64 reads a little-endian u64.
func (r *Reader) U64() uint64 {
	if v := r.Bytes(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// Offset is how many bytes have been read.
func (r *Reader) Offset() int { return r.off }

// Pubkey reads 32 bytes as a public key.
func (r *Reader) Pubkey() solana.PublicKey {
	if v := r.Bytes(32); v != nil {
		return solana.PublicKeyFromBytes(v)
	}
	return solana.PublicKey{}
}

// Str reads a u32-length string; a length beyond the data is an overrun.
// The bytes are returned as they are: on-chain strings need not be UTF-8.
func (r *Reader) Str() string {
	n := r.U32()
	if r.err != nil || int64(n) > int64(len(r.b)-r.off) {
		r.err = ErrShort
		return ""
	}
	return string(r.Bytes(int(n)))
}
