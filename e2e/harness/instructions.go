package harness

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// Instruction encoders for SPL Token and Token-2022 (their shared instructions have the
// same layout), the Token-2022 transfer-fee extension, the Associated Token Account
// program and the compute budget. Byte layouts follow the programs' instruction
// unpackers; solana-go's token builders are bound to the Token program id, so these
// take the program as a parameter.

// Token instruction tags.
const (
	tagCloseAccount        = 9
	tagFreezeAccount       = 10
	tagTransferChecked     = 12
	tagMintToChecked       = 14
	tagBurnChecked         = 15
	tagSyncNative          = 17
	tagInitializeMint2     = 20
	tagTransferFeeExt      = 26
	transferFeeInitConfig  = 0
	transferFeeHarvestMint = 4
)

// Sizes of mint accounts.
const (
	// MintSize is a Token (or extension-less Token-2022) mint.
	MintSize = 82
	// MintWithTransferFeeSize is a Token-2022 mint with TransferFeeConfig: the base
	// padded to 165 bytes, the account-type byte, then a 4-byte TLV header and 108 bytes.
	MintWithTransferFeeSize = 165 + 1 + 4 + 108
)

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func optPubkey(pk *solana.PublicKey) []byte {
	if pk == nil {
		return []byte{0}
	}
	return append([]byte{1}, pk[:]...)
}

// InitializeMint2 initializes a mint account created beforehand.
func InitializeMint2(program, mint solana.PublicKey, decimals uint8, authority solana.PublicKey, freeze *solana.PublicKey) solana.Instruction {
	data := append([]byte{tagInitializeMint2, decimals}, authority[:]...)
	data = append(data, optPubkey(freeze)...)
	return solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(mint).WRITE()}, data)
}

// InitializeTransferFeeConfig (Token-2022) sets a mint's transfer fee; it must precede
// InitializeMint2 on the same uninitialized mint.
func InitializeTransferFeeConfig(mint solana.PublicKey, configAuthority, withdrawAuthority *solana.PublicKey, basisPoints uint16, maximumFee uint64) solana.Instruction {
	data := []byte{tagTransferFeeExt, transferFeeInitConfig}
	data = append(data, optPubkey(configAuthority)...)
	data = append(data, optPubkey(withdrawAuthority)...)
	data = binary.LittleEndian.AppendUint16(data, basisPoints)
	data = append(data, le64(maximumFee)...)
	return solana.NewInstruction(solana.Token2022ProgramID, solana.AccountMetaSlice{solana.Meta(mint).WRITE()}, data)
}

// HarvestWithheldTokensToMint (Token-2022, permissionless) moves the fees withheld in
// token accounts into their mint.
func HarvestWithheldTokensToMint(mint solana.PublicKey, sources ...solana.PublicKey) solana.Instruction {
	metas := solana.AccountMetaSlice{solana.Meta(mint).WRITE()}
	for _, s := range sources {
		metas = append(metas, solana.Meta(s).WRITE())
	}
	return solana.NewInstruction(solana.Token2022ProgramID, metas, []byte{tagTransferFeeExt, transferFeeHarvestMint})
}

// MintToChecked mints amount to a token account.
func MintToChecked(program, mint, dest, authority solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	data := append(append([]byte{tagMintToChecked}, le64(amount)...), decimals)
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(mint).WRITE(), solana.Meta(dest).WRITE(), solana.Meta(authority).SIGNER(),
	}, data)
}

// TransferChecked moves tokens between accounts of one mint (on a transfer-fee mint
// the fee is withheld in the destination).
func TransferChecked(program, source, mint, dest, owner solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	data := append(append([]byte{tagTransferChecked}, le64(amount)...), decimals)
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(source).WRITE(), solana.Meta(mint), solana.Meta(dest).WRITE(), solana.Meta(owner).SIGNER(),
	}, data)
}

// BurnChecked burns tokens from an account.
func BurnChecked(program, account, mint, owner solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	data := append(append([]byte{tagBurnChecked}, le64(amount)...), decimals)
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(), solana.Meta(mint).WRITE(), solana.Meta(owner).SIGNER(),
	}, data)
}

// FreezeAccount freezes a token account with the mint's freeze authority.
func FreezeAccount(program, account, mint, freezeAuthority solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(), solana.Meta(mint), solana.Meta(freezeAuthority).SIGNER(),
	}, []byte{tagFreezeAccount})
}

// CloseAccount closes a token account, sending its lamports to dest.
func CloseAccount(program, account, dest, owner solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(), solana.Meta(dest).WRITE(), solana.Meta(owner).SIGNER(),
	}, []byte{tagCloseAccount})
}

// SyncNative updates a wrapped-SOL account's token amount to its lamports.
func SyncNative(program, account solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(account).WRITE()}, []byte{tagSyncNative})
}

// AssociatedTokenAddress derives the associated token account of owner for mint under
// a token program (Token or Token-2022).
func AssociatedTokenAddress(owner, mint, program solana.PublicKey) solana.PublicKey {
	addr, _, err := solana.FindProgramAddress([][]byte{owner[:], program[:], mint[:]}, solana.SPLAssociatedTokenAccountProgramID)
	if err != nil {
		panic(err) // only for seeds no real owner/mint produce
	}
	return addr
}

// CreateAssociatedTokenAccount creates owner's associated token account for mint
// (CreateIdempotent when idempotent is set).
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

// SetComputeUnitLimit caps the compute units of a transaction.
func SetComputeUnitLimit(units uint32) solana.Instruction {
	return solana.NewInstruction(solana.ComputeBudget, nil, binary.LittleEndian.AppendUint32([]byte{2}, units))
}

// SetComputeUnitPrice sets the priority fee in micro-lamports per compute unit.
func SetComputeUnitPrice(microLamports uint64) solana.Instruction {
	return solana.NewInstruction(solana.ComputeBudget, nil, append([]byte{3}, le64(microLamports)...))
}
