package ranking

import (
	"sync"
	"unsafe"
)

// What a ranking holds, in bytes of heap, and the budget all of a process's
// rankings share (RECLAIM_RANKING_MAX_BYTES). Every byte a ranking keeps is
// counted: its rows (16 bytes each, by their slices' capacity), its
// checkpoints (12 bytes per wallet and type each), its wallets (the address
// strings, their slice and their index: from about 76 bytes a wallet), and
// a fixed part per project; and, while they exist, what building and
// merging one and ranking a page take on top. TestRankingMemory checks the
// count against runtime.MemStats for both shapes of ledger: many rows of few
// wallets, and one wallet per row.

// rowBytes is a row's size in a ranking.
const rowBytes = int64(unsafe.Sizeof(rankRow{}))

// rankingOverhead is a ranking's fixed part: the ranking and its base, the
// project's slot and its entry in the rankings' map.
const rankingOverhead = 1024

// checkpointSlot is what a checkpoint takes per wallet and type: the gross
// (int64) and the count (int32).
const checkpointSlot = 8 + 4

// pageBytes is what ranking a page takes while it runs, per wallet: its
// sums (gross and count) and, at most, a candidate (wallet and gross).
const pageBytes = checkpointSlot + int64(unsafe.Sizeof(ranked{}))

// allocBytes is the heap size of an allocation of n bytes: Go rounds small
// ones up to a size class (internal/runtime/gc/sizeclasses.go, those under
// 256 bytes exactly, above that to 128 bytes) and large ones to 8 KiB pages.
func allocBytes(n int64) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= 256:
		for _, c := range smallClasses {
			if n <= c {
				return c
			}
		}
	case n <= 32<<10:
		return (n + 127) &^ 127
	}
	return (n + 8<<10 - 1) &^ (8<<10 - 1)
}

var smallClasses = [...]int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256}

// bytes is what the base holds.
func (b *rankBase) bytes() int64 {
	n := int64(cap(b.rows))*rowBytes + int64(cap(b.gross)+cap(b.count))*int64(unsafe.Sizeof([]int64{}))
	for j := range b.gross {
		n += allocBytes(int64(cap(b.gross[j])*8)) + allocBytes(int64(cap(b.count[j])*4))
	}
	return n
}

// bytes is what r holds; its caller holds r.mu.
func (r *ranking) bytes() int64 {
	return rankingOverhead + r.base.bytes() + int64(cap(r.delta))*rowBytes +
		int64(cap(r.payers))*int64(unsafe.Sizeof("")) + r.payerBytes + r.index.bytes()
}

// baseBytes is what newBase takes for n rows of wallets wallets, every rows
// between checkpoints (0: the default): its checkpoints, and (building
// them, then freed) a working copy of one. The rows themselves it takes as
// they are.
func baseBytes(n, wallets, every int) (held, working int64) {
	one := allocBytes(int64(wallets*len(slots)*8)) + allocBytes(int64(wallets*len(slots)*4))
	k := checkpoints(n, wallets, every)
	return int64(k) * (one + 2*int64(unsafe.Sizeof([]int64{}))), one
}

// budget is what the in-memory rankings may hold together: bytes, and
// rows when maxRows is not negative (RECLAIM_RANKING_MAX_ROWS, deprecated).
type budget struct {
	mu                sync.Mutex
	maxBytes, maxRows int64
	bytes, rows       int64 // held and reserved
}

// off reports whether no ranking may be held: no project is ranked in
// memory.
func (b *budget) off() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.maxBytes == 0 || b.maxRows == 0
}

// take reserves bytes and rows, and reports whether they fit; growth that
// does not fit is not taken. Negative amounts (giving back) always fit.
func (b *budget) take(bytes, rows int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bytes > 0 && b.bytes+bytes > b.maxBytes || rows > 0 && b.maxRows >= 0 && b.rows+rows > b.maxRows {
		return false
	}
	b.bytes += bytes
	b.rows += rows
	return true
}

// give returns bytes and rows taken.
func (b *budget) give(bytes, rows int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bytes -= bytes
	b.rows -= rows
}

// held returns what is held and reserved.
func (b *budget) held() (bytes, rows int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bytes, b.rows
}
