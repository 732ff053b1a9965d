package spltoken

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// Token-2022's transfer-fee extension: instruction 26, then a second byte
// for the sub-instruction.

// InitializeTransferFeeConfig (Token-2022) sets a mint's transfer fee; it
// must precede InitializeMint2 on the same uninitialized mint. Data: 26, 0,
// config authority and withdraw authority (each 0, or 1 and 32 bytes),
// basis points (u16 LE), maximum fee (u64 LE). Accounts: mint (w).
func InitializeTransferFeeConfig(mint solana.PublicKey, configAuthority, withdrawAuthority *solana.PublicKey, basisPoints uint16, maximumFee uint64) solana.Instruction {
	data := []byte{tagTransferFeeExt, transferFeeInitConfig}
	data = append(data, optionalKey(configAuthority)...)
	data = append(data, optionalKey(withdrawAuthority)...)
	data = binary.LittleEndian.AppendUint16(data, basisPoints)
	data = binary.LittleEndian.AppendUint64(data, maximumFee)
	return solana.NewInstruction(solana.Token2022ProgramID, solana.AccountMetaSlice{solana.Meta(mint).WRITE()}, data)
}

// HarvestWithheldTokensToMint (Token-2022, permissionless) moves the
// transfer fees withheld in sources into their mint. A Token-2022 account
// with withheld fees cannot be closed, so this precedes its CloseAccount.
// Data: 26, 4. Accounts: mint (w), then each source (w).
func HarvestWithheldTokensToMint(mint solana.PublicKey, sources ...solana.PublicKey) solana.Instruction {
	metas := solana.AccountMetaSlice{solana.Meta(mint).WRITE()}
	for _, s := range sources {
		metas = append(metas, solana.Meta(s).WRITE())
	}
	return solana.NewInstruction(solana.Token2022ProgramID, metas, []byte{tagTransferFeeExt, transferFeeHarvestMint})
}
