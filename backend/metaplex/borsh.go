package metaplex

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// reader reads little-endian Borsh values; after the first overrun every
// read returns zero values and err is set.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.off+n > len(r.b) {
		r.err = ErrLayout
		return nil
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v
}

func (r *reader) skip(n int) { r.bytes(n) }

func (r *reader) u8() uint8 {
	if v := r.bytes(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if v := r.bytes(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (r *reader) pubkey() solana.PublicKey {
	if v := r.bytes(32); v != nil {
		return solana.PublicKeyFromBytes(v)
	}
	return solana.PublicKey{}
}

// str reads a u32-length string; a length beyond the data is an overrun.
func (r *reader) str() string {
	n := r.u32()
	if r.err != nil || int64(n) > int64(len(r.b)-r.off) {
		r.err = ErrLayout
		return ""
	}
	return string(r.bytes(int(n)))
}
