package spltoken

import "github.com/gagliardetto/solana-go"

// The Associated Token Account program derives each wallet's account of a
// mint under either token program.

// AssociatedTokenAddress is owner's associated token account of mint under
// program (SPL Token or Token-2022): the PDA [owner, program, mint] of the
// Associated Token Account program. solana-go's FindAssociatedTokenAddress
// knows only SPL Token.
func AssociatedTokenAddress(owner, mint, program solana.PublicKey) solana.PublicKey {
	addr, _, err := solana.FindProgramAddress([][]byte{owner[:], program[:], mint[:]}, solana.SPLAssociatedTokenAccountProgramID)
	if err != nil {
		// Only when no bump gives an off-curve point, which no real owner
		// and mint produce.
		panic(err)
	}
	return addr
}

// CreateAssociatedTokenAccount creates owner's associated token account of
// mint, paid by payer; with idempotent it is CreateIdempotent, which
// succeeds when the account exists. Data: none (Create) or 1. Accounts:
// payer (w, s), the account (w), owner, mint, system program, token program.
func CreateAssociatedTokenAccount(payer, owner, mint, program solana.PublicKey, idempotent bool) solana.Instruction {
	var data []byte
	if idempotent {
		data = []byte{1}
	}
	return solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(),
		solana.Meta(AssociatedTokenAddress(owner, mint, program)).WRITE(),
		solana.Meta(owner),
		solana.Meta(mint),
		solana.Meta(solana.SystemProgramID),
		solana.Meta(program),
	}, data)
}
