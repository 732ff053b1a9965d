package stake

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// SysvarOwner owns the sysvar accounts.
var SysvarOwner = solana.MustPublicKeyFromBase58("Sysvar1111111111111111111111111111111111111")

// Clock is the part of the Clock sysvar the stake program's Withdraw reads.
// Layout: slot u64, epoch_start_timestamp i64, epoch u64,
// leader_schedule_epoch u64, unix_timestamp i64.
type Clock struct {
	Slot          uint64
	Epoch         uint64
	UnixTimestamp int64
}

// ParseClock reads the Clock sysvar account a (nil when not served); ok is
// false when it is not one.
func ParseClock(a *rpc.Account) (Clock, bool) {
	if a == nil || a.Data == nil || !a.Owner.Equals(SysvarOwner) {
		return Clock{}, false
	}
	d := a.Data.GetBinary()
	if len(d) < 40 {
		return Clock{}, false
	}
	return Clock{
		Slot:          binary.LittleEndian.Uint64(d[0:8]),
		Epoch:         binary.LittleEndian.Uint64(d[16:24]),
		UnixTimestamp: int64(binary.LittleEndian.Uint64(d[32:40])),
	}, true
}

// HistoryEntry is the cluster's stake in one epoch.
type HistoryEntry struct {
	Effective, Activating, Deactivating uint64
}

// History is the StakeHistory sysvar: the cluster's stake per past epoch
// (the last 512).
type History map[uint64]HistoryEntry

// ParseHistory reads the StakeHistory sysvar account a (nil when not
// served): a bincode Vec of (epoch u64, effective u64, activating u64,
// deactivating u64), newest first. ok is false when it is not one.
func ParseHistory(a *rpc.Account) (History, bool) {
	if a == nil || a.Data == nil || !a.Owner.Equals(SysvarOwner) {
		return nil, false
	}
	d := a.Data.GetBinary()
	if len(d) < 8 {
		return nil, false
	}
	n := binary.LittleEndian.Uint64(d)
	if n > uint64(len(d)-8)/32 {
		return nil, false
	}
	h := make(History, n)
	for i := range n {
		e := d[8+32*i:]
		h[binary.LittleEndian.Uint64(e)] = HistoryEntry{
			Effective:    binary.LittleEndian.Uint64(e[8:]),
			Activating:   binary.LittleEndian.Uint64(e[16:]),
			Deactivating: binary.LittleEndian.Uint64(e[24:]),
		}
	}
	return h, true
}
