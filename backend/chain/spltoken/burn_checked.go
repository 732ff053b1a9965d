package spltoken

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// BurnChecked burns amount base units of mint from account; owner signs.
// Data: 15, amount (u64 LE), decimals. Accounts: account (w), mint (w),
// owner (s). The decimals check makes a stale or forged amount fail instead
// of burning the wrong quantity.
func BurnChecked(program, account, mint, owner solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(),
		solana.Meta(mint).WRITE(),
		solana.Meta(owner).SIGNER(),
	}, checkedAmount(tagBurnChecked, amount, decimals))
}

// checkedAmount is the data of the Checked instructions: tag, amount (u64
// LE), decimals. The program refuses decimals other than the mint's.
func checkedAmount(tag byte, amount uint64, decimals uint8) []byte {
	return append(binary.LittleEndian.AppendUint64([]byte{tag}, amount), decimals)
}
