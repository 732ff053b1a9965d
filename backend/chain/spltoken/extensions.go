package spltoken

import "encoding/binary"

// ExtensionType is the type of a Token-2022 TLV entry.
type ExtensionType uint16

// The extensions Reclaim reads or its tests create.
const (
	ExtensionTransferFeeConfig ExtensionType = 1
	// ExtensionTransferFeeAmount (account): withheld_amount u64.
	ExtensionTransferFeeAmount ExtensionType = 2
	// ExtensionMintCloseAuthority (mint): close_authority, a key that is
	// all zeros for none (MaybeNull).
	ExtensionMintCloseAuthority ExtensionType = 3
	ExtensionImmutableOwner     ExtensionType = 7
	// ExtensionMetadataPointer (mint): authority, metadata address.
	ExtensionMetadataPointer ExtensionType = 18
	// ExtensionTokenMetadata (mint): variable-length TokenMetadata.
	ExtensionTokenMetadata ExtensionType = 19
)

// Lengths of fixed-size extension values (without the 4-byte TLV header).
const (
	TransferFeeConfigLen  = 108
	MetadataPointerLen    = 64
	MintCloseAuthorityLen = 32
)

// ExtendedSize is the size of a Token-2022 account or mint with extensions
// of these value lengths: the base padded to AccountSize, the account-type
// byte, then each extension with its 4-byte TLV header.
func ExtendedSize(valueLens ...int) int {
	n := AccountSize + 1
	for _, l := range valueLens {
		n += 4 + l
	}
	return n
}

// EachExtension walks Token-2022's TLV entries ([u16 type, u16 length,
// value]...) after the account-type byte; it stops at an uninitialized
// entry (zero padding) or at one that overruns the data.
func EachExtension(data []byte, fn func(typ ExtensionType, value []byte)) {
	off := AccountSize + 1
	for off+4 <= len(data) {
		typ := ExtensionType(binary.LittleEndian.Uint16(data[off:]))
		n := int(binary.LittleEndian.Uint16(data[off+2:]))
		if typ == 0 || off+4+n > len(data) {
			return
		}
		fn(typ, data[off+4:off+4+n])
		off += 4 + n
	}
}
