package spltoken

import "github.com/gagliardetto/solana-go"

// InitializeMint2 initializes a mint account created beforehand (no Rent
// sysvar account). Data: 20, decimals, mint authority 32, freeze authority
// COption (0, or 1 and 32 bytes). Accounts: mint (w).
func InitializeMint2(program, mint solana.PublicKey, decimals uint8, authority solana.PublicKey, freeze *solana.PublicKey) solana.Instruction {
	data := append([]byte{tagInitializeMint2, decimals}, authority[:]...)
	return solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(mint).WRITE()}, append(data, optionalKey(freeze)...))
}

// InitializeAccount3 initializes a token account created beforehand for
// owner. Data: 18, owner 32. Accounts: account (w), mint.
func InitializeAccount3(program, account, mint, owner solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(account).WRITE(), solana.Meta(mint)},
		append([]byte{tagInitializeAccount3}, owner[:]...))
}

// optionalKey is the one-byte-tag option of a key the token instructions
// use (COption in instruction data): 0, or 1 and the key.
func optionalKey(pk *solana.PublicKey) []byte {
	if pk == nil {
		return []byte{0}
	}
	return append([]byte{1}, pk[:]...)
}

// InitializeMintCloseAuthority sets Token-2022's MintCloseAuthority
// extension on a mint account created beforehand with room for it, before
// InitializeMint2. Data: 25, close authority COption (0, or 1 and 32
// bytes). Accounts: mint (w).
func InitializeMintCloseAuthority(mint solana.PublicKey, closeAuthority *solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(solana.Token2022ProgramID, solana.AccountMetaSlice{solana.Meta(mint).WRITE()},
		append([]byte{tagMintCloseAuthority}, optionalKey(closeAuthority)...))
}
