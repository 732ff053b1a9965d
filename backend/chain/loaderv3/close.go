package loaderv3

import "github.com/gagliardetto/solana-go"

// Close closes a buffer: every lamport goes to recipient and the account is
// left uninitialized (the runtime then drops it); its authority signs.
// Data: u32 5. Accounts: buffer (w), recipient (w), authority (s), as
// solana-loader-v3-interface's close (close_any without a program account).
// The loader refuses a buffer without authority (Immutable), another
// signer (IncorrectAuthority), and recipient equal to the buffer.
func Close(buffer, recipient, authority solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(ProgramID, solana.AccountMetaSlice{
		solana.Meta(buffer).WRITE(),
		solana.Meta(recipient).WRITE(),
		solana.Meta(authority).SIGNER(),
	}, tag(tagClose))
}
