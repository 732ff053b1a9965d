package assets

import (
	"encoding/binary"
	"errors"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/borsh"
)

// Byte layouts of SPL Token and Token-2022 state, read from base64 account data so a
// real cluster and the local validator (whose jsonParsed may differ) read the same.
const (
	tokenAccountSize = 165 // SPL Token account; Token-2022 extensions follow it
	mintSize         = 82  // SPL Token mint; Token-2022 pads it to 165 before extensions
	multisigSize     = 355 // never a Token-2022 account or mint with extensions

	accountTypeMint    = 1 // Token-2022 account-type byte at offset 165
	accountTypeAccount = 2

	extTransferFeeAmount = 2  // account: withheld_amount u64
	extTokenMetadata     = 19 // mint: variable-length TokenMetadata

	stateInitialized = 1
	stateFrozen      = 2
)

var errNotTokenAccount = errors.New("not a token account")

// tokenAccount is the part of a token account's state that classification needs.
type tokenAccount struct {
	mint, owner    solana.PublicKey
	amount         uint64
	frozen         bool
	native         bool
	closeAuthority *solana.PublicKey
	withheld       uint64
}

// parseTokenAccount reads an initialized SPL Token or Token-2022 account:
// mint 0..32, owner 32..64, amount 64..72, delegate COption 72..108, state 108,
// is_native COption<u64> 109..121, delegated_amount 121..129, close_authority
// COption 129..165, then (Token-2022) the account-type byte and TLV extensions.
func parseTokenAccount(data []byte) (tokenAccount, error) {
	if len(data) < tokenAccountSize || len(data) == multisigSize {
		return tokenAccount{}, errNotTokenAccount
	}
	if len(data) > tokenAccountSize && data[tokenAccountSize] != accountTypeAccount {
		return tokenAccount{}, errNotTokenAccount
	}
	state := data[108]
	if state != stateInitialized && state != stateFrozen {
		return tokenAccount{}, errNotTokenAccount
	}
	a := tokenAccount{
		mint:   solana.PublicKeyFromBytes(data[0:32]),
		owner:  solana.PublicKeyFromBytes(data[32:64]),
		amount: binary.LittleEndian.Uint64(data[64:72]),
		frozen: state == stateFrozen,
		native: binary.LittleEndian.Uint32(data[109:113]) == 1,
	}
	if binary.LittleEndian.Uint32(data[129:133]) == 1 {
		pk := solana.PublicKeyFromBytes(data[133:165])
		a.closeAuthority = &pk
	}
	eachExtension(data, func(typ uint16, value []byte) {
		if typ == extTransferFeeAmount && len(value) >= 8 {
			a.withheld = binary.LittleEndian.Uint64(value)
		}
	})
	return a, nil
}

// foreignCloseAuthority reports a close authority other than the owner: then only
// that authority can close the account.
func (a tokenAccount) foreignCloseAuthority() bool {
	return a.closeAuthority != nil && !a.closeAuthority.Equals(a.owner)
}

// mintState is the part of a mint that classification and display need.
type mintState struct {
	supply   uint64
	decimals uint8
	// metadata is Token-2022's TokenMetadata extension on the mint itself; nil
	// when absent.
	metadata *tokenMetadata
}

// tokenMetadata is the display metadata from either metadata standard.
type tokenMetadata struct {
	name, symbol, uri string
	// collection is the verified Metaplex collection mint; nil when none.
	collection *solana.PublicKey
}

// parseMint reads an initialized mint: mint_authority COption 0..36, supply 36..44,
// decimals 44, is_initialized 45, freeze_authority COption 46..82; Token-2022
// extensions after the account-type byte at 165.
func parseMint(data []byte) (mintState, bool) {
	if len(data) < mintSize || data[45] != 1 || len(data) == multisigSize {
		return mintState{}, false
	}
	if len(data) > tokenAccountSize && data[tokenAccountSize] != accountTypeMint {
		return mintState{}, false
	}
	m := mintState{supply: binary.LittleEndian.Uint64(data[36:44]), decimals: data[44]}
	eachExtension(data, func(typ uint16, value []byte) {
		if typ == extTokenMetadata {
			m.metadata = parseTokenMetadata(value)
		}
	})
	return m, true
}

// parseTokenMetadata reads the TokenMetadata extension: update_authority 32,
// mint 32, name, symbol, uri (u32-length strings), additional_metadata (unread).
func parseTokenMetadata(value []byte) *tokenMetadata {
	r := borsh.NewReader(value)
	r.Skip(64)
	md := &tokenMetadata{name: cleanString(r.Str()), symbol: cleanString(r.Str()), uri: cleanString(r.Str())}
	if r.Err() != nil {
		return nil
	}
	return md
}

// eachExtension walks Token-2022's TLV entries ([u16 type, u16 length, value]...)
// after the account-type byte; it stops at an uninitialized entry (zero padding)
// or at one that overruns the data.
func eachExtension(data []byte, fn func(typ uint16, value []byte)) {
	off := tokenAccountSize + 1
	for off+4 <= len(data) {
		typ := binary.LittleEndian.Uint16(data[off:])
		n := int(binary.LittleEndian.Uint16(data[off+2:]))
		if typ == 0 || off+4+n > len(data) {
			return
		}
		fn(typ, data[off+4:off+4+n])
		off += 4 + n
	}
}
