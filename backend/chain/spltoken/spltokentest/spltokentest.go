// Package spltokentest lays out SPL Token and Token-2022 accounts and mints
// as the programs write them, for tests of code that reads them.
package spltokentest

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// Account describes a token account to lay out: the state ParseAccount
// reads back (Native makes is_native Some(rent reserve); WithheldAmount
// above 0 adds Token-2022's TransferFeeAmount extension).
type Account struct {
	spltoken.Account
	// Token2022 adds the account-type byte and ImmutableOwner, as a
	// Token-2022 associated account has.
	Token2022 bool
}

// Bytes lays out the 165-byte account, then Token-2022's extensions. A
// random delegate is set: it changes nothing Reclaim reads.
func (a Account) Bytes() []byte {
	d := append(append([]byte{}, a.Mint[:]...), a.Owner[:]...)
	d = binary.LittleEndian.AppendUint64(d, a.Amount)
	delegate := solana.NewWallet().PublicKey()
	d = append(d, COption(&delegate)...)
	state := spltoken.StateInitialized
	if a.Frozen {
		state = spltoken.StateFrozen
	}
	d = append(d, byte(state))
	if a.Native {
		d = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32(d, 1), 2_039_280)
	} else {
		d = append(d, make([]byte, 12)...)
	}
	d = binary.LittleEndian.AppendUint64(d, 0) // delegated_amount
	d = append(d, COption(a.CloseAuthority)...)
	if a.Token2022 || a.WithheldAmount > 0 {
		d = append(d, byte(spltoken.AccountTypeAccount))
		d = append(d, TLV(spltoken.ExtensionImmutableOwner, nil)...)
		if a.WithheldAmount > 0 {
			d = append(d, TLV(spltoken.ExtensionTransferFeeAmount, binary.LittleEndian.AppendUint64(nil, a.WithheldAmount))...)
		}
	}
	return d
}

// Mint lays out an initialized mint with a random mint authority and no
// freeze authority; with md, a Token-2022 mint whose MetadataPointer points
// at itself (self) and whose TokenMetadata extension holds md and one
// additional (key, value) pair.
func Mint(self solana.PublicKey, decimals uint8, supply uint64, md *spltoken.TokenMetadata) []byte {
	auth := solana.NewWallet().PublicKey()
	return MintOf(&auth, self, decimals, supply, md)
}

// MintOf is Mint with the given mint authority (nil: none).
func MintOf(authority *solana.PublicKey, self solana.PublicKey, decimals uint8, supply uint64, md *spltoken.TokenMetadata) []byte {
	auth := solana.NewWallet().PublicKey()
	if authority != nil {
		auth = *authority
	}
	d := COption(authority)
	d = binary.LittleEndian.AppendUint64(d, supply)
	d = append(d, decimals, 1)
	d = append(d, COption(nil)...)
	if md == nil {
		return d
	}
	d = append(d, make([]byte, spltoken.AccountSize-spltoken.MintSize)...)
	d = append(d, byte(spltoken.AccountTypeMint))
	d = append(d, TLV(spltoken.ExtensionMetadataPointer, append(append([]byte{}, auth[:]...), self[:]...))...)
	v := append(append([]byte{}, auth[:]...), self[:]...)
	for _, s := range []string{md.Name, md.Symbol, md.URI} {
		v = append(binary.LittleEndian.AppendUint32(v, uint32(len(s))), s...)
	}
	v = binary.LittleEndian.AppendUint32(v, 1)
	for _, s := range []string{"k", "v"} {
		v = append(binary.LittleEndian.AppendUint32(v, uint32(len(s))), s...)
	}
	return append(d, TLV(spltoken.ExtensionTokenMetadata, v)...)
}

// TLV is one Token-2022 extension entry: type, length, value.
func TLV(typ spltoken.ExtensionType, value []byte) []byte {
	d := binary.LittleEndian.AppendUint16(nil, uint16(typ))
	return append(binary.LittleEndian.AppendUint16(d, uint16(len(value))), value...)
}

// COption is the 36-byte COption<Pubkey> of account state: u32 tag, key.
func COption(pk *solana.PublicKey) []byte {
	if pk == nil {
		return make([]byte, 36)
	}
	return append(binary.LittleEndian.AppendUint32(nil, 1), pk[:]...)
}

// ClosableMint lays out a Token-2022 mint with the given mint authority
// (nil: none), supply and MintCloseAuthority extension (closeAuthority nil:
// the extension with none set), as InitializeMintCloseAuthority then
// InitializeMint write it.
func ClosableMint(authority, closeAuthority *solana.PublicKey, decimals uint8, supply uint64) []byte {
	d := COption(authority)
	d = binary.LittleEndian.AppendUint64(d, supply)
	d = append(d, decimals, 1)
	d = append(d, COption(nil)...)
	d = append(d, make([]byte, spltoken.AccountSize-spltoken.MintSize)...)
	d = append(d, byte(spltoken.AccountTypeMint))
	var ca solana.PublicKey
	if closeAuthority != nil {
		ca = *closeAuthority
	}
	return append(d, TLV(spltoken.ExtensionMintCloseAuthority, ca[:])...)
}
