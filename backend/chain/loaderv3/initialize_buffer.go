package loaderv3

import "github.com/gagliardetto/solana-go"

// InitializeBuffer makes an uninitialized account of the loader (created
// with at least BufferMetadataSize bytes, in the same transaction) a buffer
// whose authority is authority. Data: u32 0. Accounts: buffer (w),
// authority (read-only, not a signer). Tests use it to make buffers.
func InitializeBuffer(buffer, authority solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(ProgramID, solana.AccountMetaSlice{
		solana.Meta(buffer).WRITE(),
		solana.Meta(authority),
	}, tag(tagInitializeBuffer))
}
