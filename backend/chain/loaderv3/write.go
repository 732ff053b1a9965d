package loaderv3

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// Write writes bytes into a buffer's program bytes at offset (counted after
// BufferMetadataSize); its authority signs. Data: u32 1, offset u32, bytes
// as a bincode Vec<u8> (u64 length, then the bytes). Accounts: buffer (w),
// authority (s). Tests use it to fill buffers.
func Write(buffer, authority solana.PublicKey, offset uint32, bytes []byte) solana.Instruction {
	data := binary.LittleEndian.AppendUint32(tag(tagWrite), offset)
	data = binary.LittleEndian.AppendUint64(data, uint64(len(bytes)))
	return solana.NewInstruction(ProgramID, solana.AccountMetaSlice{
		solana.Meta(buffer).WRITE(),
		solana.Meta(authority).SIGNER(),
	}, append(data, bytes...))
}
