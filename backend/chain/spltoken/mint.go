package spltoken

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// MintAuthorityFilter is the offset a getProgramAccounts memcmp filter
// matches a mint's authority at: the COption tag (1: Some) at 0, then the
// key; MintAuthorityBytes is what it compares.
const MintAuthorityFilter = 0

// MintAuthorityBytes are the 36 bytes a mint whose mint authority is
// authority begins with.
func MintAuthorityBytes(authority solana.PublicKey) []byte {
	return append([]byte{1, 0, 0, 0}, authority[:]...)
}

// Mint is the part of a mint that Reclaim reads.
type Mint struct {
	// MintAuthority is nil when none is set (the supply is fixed).
	MintAuthority *solana.PublicKey
	Supply        uint64
	Decimals      uint8
	// Metadata is Token-2022's TokenMetadata extension on the mint itself;
	// nil when absent or unreadable.
	Metadata *TokenMetadata
	// CloseAuthority is Token-2022's MintCloseAuthority extension: the key
	// that may close the mint once its supply is 0 (CloseAccount on the
	// mint); nil without the extension or with none set.
	CloseAuthority *solana.PublicKey
}

// ParseMint reads an initialized mint: mint_authority COption 0..36,
// supply 36..44, decimals 44, is_initialized 45, freeze_authority COption
// 46..82; Token-2022 extensions after the account-type byte at 165. A token
// account, a multisig or an uninitialized mint is ErrLayout.
func ParseMint(data []byte) (Mint, error) {
	if len(data) < MintSize || data[45] != 1 || len(data) == MultisigSize {
		return Mint{}, ErrLayout
	}
	if len(data) > AccountSize && AccountType(data[AccountSize]) != AccountTypeMint {
		return Mint{}, ErrLayout
	}
	m := Mint{Supply: binary.LittleEndian.Uint64(data[36:44]), Decimals: data[44]}
	if binary.LittleEndian.Uint32(data[0:4]) == 1 {
		pk := solana.PublicKeyFromBytes(data[4:36])
		m.MintAuthority = &pk
	}
	EachExtension(data, func(typ ExtensionType, value []byte) {
		switch {
		case typ == ExtensionTokenMetadata:
			md, err := ParseTokenMetadata(value)
			m.Metadata = nil
			if err == nil {
				m.Metadata = &md
			}
		case typ == ExtensionMintCloseAuthority && len(value) == MintCloseAuthorityLen:
			if pk := solana.PublicKeyFromBytes(value); !pk.IsZero() {
				m.CloseAuthority = &pk
			}
		}
	})
	return m, nil
}
