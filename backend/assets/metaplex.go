package assets

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// Metaplex Token Metadata: one account per mint at the PDA
// ["metadata", program, mint] of metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s.
const metaplexKeyMetadataV1 = 4

// metadataAddress is the Metaplex metadata PDA of a mint.
func metadataAddress(mint solana.PublicKey) solana.PublicKey {
	addr, _, err := solana.FindTokenMetadataAddress(mint)
	if err != nil {
		// Only when no bump in 255..0 gives an off-curve point, which does not
		// happen for these seeds; an unused address then reads as "no metadata".
		return solana.PublicKey{}
	}
	return addr
}

// parseMetaplex reads a Metaplex Metadata account of mint (Borsh): key u8,
// update_authority 32, mint 32, name, symbol, uri (u32-length strings padded with
// NULs), seller_fee_basis_points u16, creators Option<Vec<{address 32, verified
// bool, share u8}>>, primary_sale_happened bool, is_mutable bool, edition_nonce
// Option<u8>, token_standard Option<u8>, collection Option<{verified bool, key
// 32}>, then fields not read. Accounts written by old program versions end
// before edition_nonce: the missing options read as None. It returns nil when
// data is not the metadata of mint.
func parseMetaplex(data []byte, mint solana.PublicKey) *tokenMetadata {
	r := borsh{b: data}
	if r.u8() != metaplexKeyMetadataV1 {
		return nil
	}
	r.skip(32)
	if r.pubkey() != mint {
		return nil
	}
	md := &tokenMetadata{name: cleanString(r.str()), symbol: cleanString(r.str()), uri: cleanString(r.str())}
	if r.err != nil {
		return nil
	}
	r.skip(2)
	if r.u8() == 1 {
		r.skip(34 * int(r.u32()))
	}
	r.skip(2)
	if r.u8() == 1 { // edition_nonce
		r.skip(1)
	}
	if r.u8() == 1 { // token_standard
		r.skip(1)
	}
	if r.u8() == 1 {
		verified := r.u8() == 1
		key := r.pubkey()
		if r.err == nil && verified {
			md.collection = &key
		}
	}
	return md
}

// cleanString drops the NUL padding Metaplex writes after names, symbols and uris,
// and replaces invalid UTF-8 (on-chain strings are arbitrary bytes; protobuf
// strings must be UTF-8).
func cleanString(s string) string {
	return strings.ToValidUTF8(strings.TrimSpace(strings.TrimRight(s, "\x00")), "\uFFFD")
}

var errShort = errors.New("account data too short")

// borsh reads little-endian Borsh values; after the first overrun every read
// returns zero values and err is set.
type borsh struct {
	b   []byte
	off int
	err error
}

func (r *borsh) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.off+n > len(r.b) {
		r.err = errShort
		return nil
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v
}

func (r *borsh) skip(n int) { r.bytes(n) }

func (r *borsh) u8() uint8 {
	if v := r.bytes(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *borsh) u32() uint32 {
	if v := r.bytes(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (r *borsh) pubkey() solana.PublicKey {
	if v := r.bytes(32); v != nil {
		return solana.PublicKeyFromBytes(v)
	}
	return solana.PublicKey{}
}

// str reads a u32-length string; a length beyond the data is an overrun.
func (r *borsh) str() string {
	n := r.u32()
	if r.err != nil || int64(n) > int64(len(r.b)-r.off) {
		r.err = errShort
		return ""
	}
	return string(r.bytes(int(n)))
}
