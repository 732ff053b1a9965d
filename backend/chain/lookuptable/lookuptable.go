// Package lookuptable speaks to the Address Lookup Table program: a table's
// layout, whether it can be closed now, and the two instructions that give
// its lamports back (DeactivateLookupTable, then CloseLookupTable). Layouts
// follow solana-address-lookup-table-interface (state.rs) and the program's
// instruction.rs and processor.rs: bincode, u32 enum tags.
//
// Layout: ProgramState u32 (0 Uninitialized, 1 LookupTable), then the
// LookupTableMeta: deactivation_slot u64 at 4 (u64::MAX while active),
// last_extended_slot u64 at 12, last_extended_slot_start_index u8 at 20,
// authority Option<Pubkey> (tag u8 at 21, key 22..54), padding u16; the
// 56-byte header is followed by the addresses, 32 bytes each.
package lookuptable

import (
	"encoding/binary"
	"errors"

	"github.com/gagliardetto/solana-go"
)

// ProgramID is the Address Lookup Table program.
var ProgramID = solana.MustPublicKeyFromBase58("AddressLookupTab1e1111111111111111111111111")

// Layout constants.
const (
	// MetaSize is LOOKUP_TABLE_META_SIZE: the header before the addresses.
	MetaSize = 56
	// AuthorityOffset is where a getProgramAccounts memcmp finds the
	// authority's key of a table that has one (its Option tag is at 21).
	AuthorityOffset = 22
	// MaxAddresses is LOOKUP_TABLE_MAX_ADDRESSES.
	MaxAddresses = 256
	// Active is the deactivation slot of a table not deactivated.
	Active = ^uint64(0)
)

// ErrNotTable is data that is not an initialized lookup table.
var ErrNotTable = errors.New("lookuptable: not an initialized lookup table")

// Table is a lookup table's header.
type Table struct {
	// DeactivationSlot is the slot DeactivateLookupTable ran in; Active
	// while the table is in use.
	DeactivationSlot uint64
	// Authority may extend, deactivate and close the table; nil for a
	// frozen table, which can never be closed.
	Authority *solana.PublicKey
	// Addresses is how many addresses the table holds.
	Addresses int
}

// Parse reads a lookup table's data.
func Parse(data []byte) (Table, error) {
	if len(data) < MetaSize || (len(data)-MetaSize)%32 != 0 {
		return Table{}, ErrNotTable
	}
	if binary.LittleEndian.Uint32(data[0:4]) != 1 {
		return Table{}, ErrNotTable
	}
	t := Table{DeactivationSlot: binary.LittleEndian.Uint64(data[4:12]), Addresses: (len(data) - MetaSize) / 32}
	switch data[21] {
	case 0:
	case 1:
		k := solana.PublicKeyFromBytes(data[AuthorityOffset : AuthorityOffset+32])
		t.Authority = &k
	default:
		return Table{}, ErrNotTable
	}
	return t, nil
}

// Data lays out a table as the program writes it (bincode of
// ProgramState::LookupTable, zero-padded to MetaSize, then the
// addresses): what tests and fixtures put on a cluster.
func Data(deactivationSlot uint64, authority *solana.PublicKey, addresses []solana.PublicKey) []byte {
	d := make([]byte, MetaSize, MetaSize+32*len(addresses))
	binary.LittleEndian.PutUint32(d[0:4], 1)
	binary.LittleEndian.PutUint64(d[4:12], deactivationSlot)
	if authority != nil {
		d[21] = 1
		copy(d[AuthorityOffset:], authority[:])
	}
	for _, a := range addresses {
		d = append(d, a[:]...)
	}
	return d
}
