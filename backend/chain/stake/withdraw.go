package stake

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// tagWithdraw is StakeInstruction::Withdraw.
const tagWithdraw = 4

// Withdraw moves lamports from a stake account to recipient; its withdraw
// authority signs. Withdrawing every lamport closes the account (it is
// left uninitialized, then dropped), which the program allows once nothing
// is staked (Account.Staked) and no lockup is in force. Data: u32 4,
// lamports u64. Accounts: stake (w), recipient (w), the Clock sysvar, the
// StakeHistory sysvar, withdrawer (s), as solana-stake-interface's
// withdraw without a custodian.
func Withdraw(account, recipient, withdrawer solana.PublicKey, lamports uint64) solana.Instruction {
	data := binary.LittleEndian.AppendUint32(nil, tagWithdraw)
	return solana.NewInstruction(ProgramID, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(),
		solana.Meta(recipient).WRITE(),
		solana.Meta(solana.SysVarClockPubkey),
		solana.Meta(solana.SysVarStakeHistoryPubkey),
		solana.Meta(withdrawer).SIGNER(),
	}, binary.LittleEndian.AppendUint64(data, lamports))
}
