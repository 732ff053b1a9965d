package lookuptable

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// Close is CloseLookupTable: every lamport of a deactivated table goes to
// recipient, and its data is dropped. Data: u32 4. Accounts: table (w),
// authority (s), recipient (w).
func Close(table, authority, recipient solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(ProgramID, solana.AccountMetaSlice{
		solana.Meta(table).WRITE(),
		solana.Meta(authority).SIGNER(),
		solana.Meta(recipient).WRITE(),
	}, binary.LittleEndian.AppendUint32(nil, tagClose))
}
