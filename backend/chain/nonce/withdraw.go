package nonce

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// tagWithdraw is SystemInstruction::WithdrawNonceAccount.
const tagWithdraw = 5

// Withdraw moves lamports from a nonce account to to; its authority signs.
// Withdrawing the whole balance closes the account (it is left
// uninitialized, then dropped); less must leave its rent-exempt minimum.
// Data: u32 5, lamports u64. Accounts: nonce (w), to (w), the
// RecentBlockhashes sysvar, the Rent sysvar, authority (s). The System
// program refuses to empty an account in the block whose blockhash it
// stores (NonceBlockhashNotExpired): not in the block it was initialized or
// advanced in.
func Withdraw(account, to, authority solana.PublicKey, lamports uint64) solana.Instruction {
	data := binary.LittleEndian.AppendUint32(nil, tagWithdraw)
	return solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(),
		solana.Meta(to).WRITE(),
		solana.Meta(solana.SysVarRecentBlockHashesPubkey),
		solana.Meta(solana.SysVarRentPubkey),
		solana.Meta(authority).SIGNER(),
	}, binary.LittleEndian.AppendUint64(data, lamports))
}
