package spltoken

import (
	"github.com/gagliardetto/solana-go"
)

// TransferChecked moves amount base units of mint from source to dest;
// owner signs. On a transfer-fee mint the fee is withheld in dest. Data: 12,
// amount (u64 LE), decimals. Accounts: source (w), mint, dest (w), owner (s).
func TransferChecked(program, source, mint, dest, owner solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(source).WRITE(),
		solana.Meta(mint),
		solana.Meta(dest).WRITE(),
		solana.Meta(owner).SIGNER(),
	}, checkedAmount(tagTransferChecked, amount, decimals))
}
