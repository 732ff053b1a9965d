package spltoken

import "github.com/gagliardetto/solana-go"

// InitializeMetadataPointer (Token-2022) points a mint's metadata at
// metadata; it must precede InitializeMint2. Data: 39, 0, authority 32,
// metadata 32 (the zero key means none: OptionalNonZeroPubkey). Accounts:
// mint (w).
func InitializeMetadataPointer(mint, authority, metadata solana.PublicKey) solana.Instruction {
	data := []byte{tagMetadataPointerExt, metadataPointerInit}
	data = append(append(data, authority[:]...), metadata[:]...)
	return solana.NewInstruction(solana.Token2022ProgramID, solana.AccountMetaSlice{solana.Meta(mint).WRITE()}, data)
}
