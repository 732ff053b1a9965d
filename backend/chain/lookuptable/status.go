package lookuptable

import (
	"encoding/binary"
	"errors"
)

// SlotHashesEntries is MAX_ENTRIES of the SlotHashes sysvar: the window a
// deactivation slot must leave before the table can be closed.
const SlotHashesEntries = 512

// SlotHashesAddress is the SlotHashes sysvar.
const SlotHashesAddress = "SysvarS1otHashes111111111111111111111111111"

// ErrNotSlotHashes is data that is not the SlotHashes sysvar.
var ErrNotSlotHashes = errors.New("lookuptable: not the SlotHashes sysvar")

// SlotHashes is the slots of the SlotHashes sysvar, newest first.
type SlotHashes []uint64

// ParseSlotHashes reads the SlotHashes sysvar's data: a u64 count, then
// (slot u64, hash [32]u8) per entry, newest first.
func ParseSlotHashes(data []byte) (SlotHashes, error) {
	if len(data) < 8 {
		return nil, ErrNotSlotHashes
	}
	n := binary.LittleEndian.Uint64(data)
	if n > SlotHashesEntries || uint64(len(data)-8) < n*40 {
		return nil, ErrNotSlotHashes
	}
	out := make(SlotHashes, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(data[8+40*i:])
	}
	return out, nil
}

// position is where slot is in h (newest first), as the program's
// binary search finds it; ok is false when it is not there.
func (h SlotHashes) position(slot uint64) (int, bool) {
	lo, hi := 0, len(h)
	for lo < hi {
		mid := (lo + hi) / 2
		switch {
		case h[mid] == slot:
			return mid, true
		case h[mid] > slot:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// Status is where a table is on its way to being closable.
type Status int

// The statuses of LookupTableStatus.
const (
	// StatusActive: DeactivateLookupTable has not run.
	StatusActive Status = iota
	// StatusDeactivating: deactivated, its slot still in SlotHashes.
	StatusDeactivating
	// StatusDeactivated: CloseLookupTable would succeed.
	StatusDeactivated
)

// StatusAt is the table's status at slot under h, as the program decides
// it (get_lookup_table_status), with the blocks left until it is
// deactivated (remaining_blocks) while deactivating.
func (t Table) StatusAt(slot uint64, h SlotHashes) (Status, uint64) {
	switch t.DeactivationSlot {
	case Active:
		return StatusActive, 0
	case slot:
		return StatusDeactivating, SlotHashesEntries + 1
	}
	if p, ok := h.position(t.DeactivationSlot); ok {
		return StatusDeactivating, uint64(SlotHashesEntries - p)
	}
	return StatusDeactivated, 0
}
