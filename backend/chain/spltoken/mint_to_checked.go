package spltoken

import (
	"github.com/gagliardetto/solana-go"
)

// MintToChecked mints amount base units of mint to dest; the mint authority
// signs. Data: 14, amount (u64 LE), decimals. Accounts: mint (w), dest (w),
// authority (s).
func MintToChecked(program, mint, dest, authority solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(mint).WRITE(),
		solana.Meta(dest).WRITE(),
		solana.Meta(authority).SIGNER(),
	}, checkedAmount(tagMintToChecked, amount, decimals))
}
