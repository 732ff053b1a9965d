package spltoken

import "github.com/gagliardetto/solana-go"

// CloseAccount closes a token account, sending all its lamports to dest;
// owner (the close authority) signs. Data: 9. Accounts: account (w), dest
// (w), owner (s). The program refuses a non-native account with a balance,
// and (Token-2022) one with withheld transfer fees.
func CloseAccount(program, account, dest, owner solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(),
		solana.Meta(dest).WRITE(),
		solana.Meta(owner).SIGNER(),
	}, []byte{tagCloseAccount})
}
