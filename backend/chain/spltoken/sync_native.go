package spltoken

import "github.com/gagliardetto/solana-go"

// SyncNative sets a wrapped SOL account's token amount to its lamports above
// the rent reserve. Data: 17. Accounts: account (w).
func SyncNative(program, account solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(account).WRITE()}, []byte{tagSyncNative})
}
