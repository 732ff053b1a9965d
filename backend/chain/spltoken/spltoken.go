// Package spltoken speaks to SPL Token (Tokenkeg...) and Token-2022
// (TokenzQd...): the byte layouts of their accounts and mints, Token-2022's
// extensions, and the instructions Reclaim and its tests send. The two
// programs share the layout of every instruction and state used here, so each
// encoder takes the program id; solana-go's token builders are bound to the
// Token program id. Layouts follow the programs' pack and unpack code
// (spl-token's state.rs and instruction.rs, spl-token-2022's extension
// modules) and are pinned byte for byte in the tests, against solana-go's
// encoders where it has them.
//
// State is read from base64 account data, so a real cluster and the local
// validator (whose jsonParsed may differ) read the same.
package spltoken

import (
	"errors"

	"github.com/gagliardetto/solana-go"
)

// Programs are the token programs, SPL Token first.
var Programs = []solana.PublicKey{solana.TokenProgramID, solana.Token2022ProgramID}

// PTokenFeature is the feature gate of SIMD-0266 ("Efficient Token
// program"): once active, the SPL Token program is p-token, which has
// WithdrawExcessLamports as Token-2022 does.
var PTokenFeature = solana.MustPublicKeyFromBase58("ptokFjwyJtrwCa9Kgo9xoDS59V4QccBGEaRFnRPnSdP")

// WithdrawsExcess reports whether program takes WithdrawExcessLamports on a
// cluster where PTokenFeature is active (pToken) or not: Token-2022 always,
// SPL Token only as p-token.
func WithdrawsExcess(program solana.PublicKey, pToken bool) bool {
	return program.Equals(solana.Token2022ProgramID) || pToken && program.Equals(solana.TokenProgramID)
}

// IsProgram reports whether program is SPL Token or Token-2022.
func IsProgram(program solana.PublicKey) bool {
	return program.Equals(solana.TokenProgramID) || program.Equals(solana.Token2022ProgramID)
}

// Sizes of the base layouts. Token-2022 accounts and mints with extensions
// are longer: the base (a mint padded to AccountSize), the account-type
// byte, then TLV extensions.
const (
	// AccountSize is a token account.
	AccountSize = 165
	// MintSize is a mint.
	MintSize = 82
	// MultisigSize is a multisig account: never a Token-2022 account or
	// mint with extensions, so that length alone tells it apart.
	MultisigSize = 355
)

// AccountType is Token-2022's account-type byte, at offset AccountSize of
// an account or mint with extensions.
type AccountType uint8

// The account types.
const (
	AccountTypeMint    AccountType = 1
	AccountTypeAccount AccountType = 2
)

// ErrLayout is data that is not the initialized account or mint expected.
var ErrLayout = errors.New("spltoken: not the expected account")

// Instruction tags: the first data byte of every token instruction.
const (
	tagSetAuthority           = 6
	tagCloseAccount           = 9
	tagFreezeAccount          = 10
	tagTransferChecked        = 12
	tagMintToChecked          = 14
	tagBurnChecked            = 15
	tagSyncNative             = 17
	tagInitializeAccount3     = 18
	tagInitializeMint2        = 20
	tagMintCloseAuthority     = 25
	tagTransferFeeExt         = 26
	tagWithdrawExcessLamports = 38
	tagMetadataPointerExt     = 39
	transferFeeInitConfig     = 0
	transferFeeHarvestMint    = 4
	metadataPointerInit       = 0
)
