package spltoken

import "github.com/gagliardetto/solana-go"

// WithdrawExcessLamports moves every lamport of source above its rent-exempt
// minimum (under the cluster's Rent sysvar when it runs) to dest; the
// account stays open with everything else unchanged. Data: 38. Accounts:
// source (w), dest (w), authority (s): a token account's owner, or a mint's
// mint authority. Token-2022 has it; SPL Token only where the cluster runs
// p-token (SIMD-0266: PTokenFeature), the classic program refusing it
// (InvalidInstruction). Both refuse a native (wrapped SOL) account
// (NativeNotSupported), a mint without mint authority, and an account below
// its minimum (NotRentExempt); neither looks at the frozen state. p-token
// takes only accounts of exactly AccountSize or MintSize bytes, which every
// SPL Token account and mint is.
func WithdrawExcessLamports(program, source, dest, authority solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(source).WRITE(),
		solana.Meta(dest).WRITE(),
		solana.Meta(authority).SIGNER(),
	}, []byte{tagWithdrawExcessLamports})
}
