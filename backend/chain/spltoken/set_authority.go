package spltoken

import "github.com/gagliardetto/solana-go"

// AuthorityType selects the authority SetAuthority changes.
type AuthorityType uint8

// The authority types of accounts and mints (Token-2022 adds more).
const (
	AuthorityMintTokens    AuthorityType = 0
	AuthorityFreezeAccount AuthorityType = 1
	AuthorityAccountOwner  AuthorityType = 2
	AuthorityCloseAccount  AuthorityType = 3
)

// SetAuthority sets (or with nil clears) an authority of an account or mint,
// signed by the current one. Data: 6, authority type, new authority COption
// (0, or 1 and 32 bytes). Accounts: account or mint (w), current (s).
func SetAuthority(program, account, current solana.PublicKey, kind AuthorityType, newAuthority *solana.PublicKey) solana.Instruction {
	data := append([]byte{tagSetAuthority, byte(kind)}, optionalKey(newAuthority)...)
	return solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(account).WRITE(), solana.Meta(current).SIGNER()}, data)
}
