// Package loaderv3 speaks to the upgradeable BPF loader
// (BPFLoaderUpgradeab1e11111111111111111111111, Agave's loader v3): the
// layout of its buffer accounts, which hold a program's bytes while it is
// deployed or upgraded and keep their lamports when a deploy fails or is
// abandoned, and the instructions that make and close them. Layouts follow
// solana-loader-v3-interface (state.rs, instruction.rs): account states and
// instructions are bincode, a u32 enum tag first.
package loaderv3

import (
	"encoding/binary"
	"errors"

	"github.com/gagliardetto/solana-go"
)

// ProgramID is the upgradeable BPF loader.
var ProgramID = solana.BPFLoaderUpgradeableProgramID

// The states of UpgradeableLoaderState (its u32 tag).
const (
	StateUninitialized uint32 = 0
	StateBuffer        uint32 = 1
	StateProgram       uint32 = 2
	StateProgramData   uint32 = 3
)

// BufferMetadataSize is the bytes a buffer's state takes before the
// program's bytes: the tag, then authority_address, an Option<Pubkey> (a 1
// tag byte, then the key when Some).
const BufferMetadataSize = 37

// ErrNotBuffer is data that is not a buffer's.
var ErrNotBuffer = errors.New("loaderv3: not a buffer account")

// Buffer is a buffer account's state.
type Buffer struct {
	// Authority may write and close the buffer; nil when none is set (the
	// buffer is then immutable and can never be closed).
	Authority *solana.PublicKey
}

// ParseBuffer reads a buffer account's data.
func ParseBuffer(data []byte) (Buffer, error) {
	if len(data) < 5 || binary.LittleEndian.Uint32(data) != StateBuffer {
		return Buffer{}, ErrNotBuffer
	}
	switch data[4] {
	case 0:
		return Buffer{}, nil
	case 1:
		if len(data) < BufferMetadataSize {
			return Buffer{}, ErrNotBuffer
		}
		pk := solana.PublicKeyFromBytes(data[5:37])
		return Buffer{Authority: &pk}, nil
	}
	return Buffer{}, ErrNotBuffer
}

// AuthorityFilter is what a getProgramAccounts memcmp at offset 0 compares
// to find the buffers of authority (as the Solana CLI's `program show
// --buffers` does): the Buffer tag, Some, the key.
func AuthorityFilter(authority solana.PublicKey) []byte {
	return append([]byte{byte(StateBuffer), 0, 0, 0, 1}, authority[:]...)
}

// Instruction tags (UpgradeableLoaderInstruction, a u32).
const (
	tagInitializeBuffer uint32 = 0
	tagWrite            uint32 = 1
	tagClose            uint32 = 5
)

func tag(t uint32) []byte { return binary.LittleEndian.AppendUint32(nil, t) }
