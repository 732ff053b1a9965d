package spltoken

import (
	"encoding/binary"
)

// Mint is the part of a mint that Reclaim reads.
type Mint struct {
	Supply   uint64
	Decimals uint8
	// Metadata is Token-2022's TokenMetadata extension on the mint itself;
	// nil when absent or unreadable.
	Metadata *TokenMetadata
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
	EachExtension(data, func(typ ExtensionType, value []byte) {
		if typ == ExtensionTokenMetadata {
			md, err := ParseTokenMetadata(value)
			m.Metadata = nil
			if err == nil {
				m.Metadata = &md
			}
		}
	})
	return m, nil
}
