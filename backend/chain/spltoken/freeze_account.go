package spltoken

import "github.com/gagliardetto/solana-go"

// FreezeAccount freezes a token account with the mint's freeze authority.
// Data: 10. Accounts: account (w), mint, freeze authority (s).
func FreezeAccount(program, account, mint, freezeAuthority solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(),
		solana.Meta(mint),
		solana.Meta(freezeAuthority).SIGNER(),
	}, []byte{tagFreezeAccount})
}
