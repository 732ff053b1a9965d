package lookuptable

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// The instruction tags (AddressLookupTableInstruction's u32 enum index).
const (
	tagDeactivate = 3
	tagClose      = 4
)

// Deactivate is DeactivateLookupTable: the table can no longer be extended
// or used, and becomes closable once its deactivation slot has left the
// SlotHashes sysvar. Data: u32 3. Accounts: table (w), authority (s).
func Deactivate(table, authority solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(ProgramID, solana.AccountMetaSlice{
		solana.Meta(table).WRITE(),
		solana.Meta(authority).SIGNER(),
	}, binary.LittleEndian.AppendUint32(nil, tagDeactivate))
}
