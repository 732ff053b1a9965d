package ranking

import (
	"cmp"
	"errors"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// A ranking holds a project's confirmed rows in confirmation order (the
// base), with checkpoints: every so many rows, each wallet's gross and count
// per type of the rows before. The rows of [from, to) are a range of the
// base; each wallet's sums over them are those of two checkpoints, corrected
// by the rows between each checkpoint and the range's ends (at most half the
// rows between two checkpoints), or, for a short range, the range's rows
// themselves. Rows counted after the base was built wait in a delta, read
// whole by every page, until a merge (in the background) makes a new base
// of both.

// rankRow is one confirmed row: when (µs since 1970) and, packed, its
// gross, wallet and type.
type rankRow struct {
	at int64
	v  uint64 // gross<<rowGrossShift | wallet<<rowSlotBits | slot
}

const (
	rowSlotBits   = 3                           // a type: ledger.Types (8 of 8)
	rowWalletBits = 25                          // 33 million wallets
	rowGrossShift = rowSlotBits + rowWalletBits // 36 bits of gross: 68 SOL a row
	rowMaxGross   = 1<<(64-rowGrossShift) - 1
	rowMaxWallet  = 1<<rowWalletBits - 1
)

// errUnranked is a row the packing cannot hold: the project is not ranked
// in memory (the store ranks it in SQL).
var errUnranked = errors.New("a row outside the in-memory ranking's limits")

func packRow(wallet, slot int, gross int64) (uint64, error) {
	if gross < 0 || gross > rowMaxGross || wallet > rowMaxWallet || slot >= 1<<rowSlotBits {
		return 0, errUnranked
	}
	return uint64(gross)<<rowGrossShift | uint64(wallet)<<rowSlotBits | uint64(slot), nil
}

func (r rankRow) gross() int64 { return int64(r.v >> rowGrossShift) }
func (r rankRow) wallet() int  { return int(r.v >> rowSlotBits & rowMaxWallet) }
func (r rankRow) slot() int    { return int(r.v & (1<<rowSlotBits - 1)) }

// slots are the types a row's slot stands for.
var slots = ledger.Types

// rankBase is the immutable part of a ranking.
type rankBase struct {
	rows    []rankRow // by time
	wallets int       // wallets the checkpoints cover
	every   int       // rows between checkpoints
	// gross[j] and count[j] are, per wallet and slot (w*len(slots)+slot),
	// the sums of rows[:(j+1)*every].
	gross [][]int64
	count [][]int32
}

// Checkpoints: at most maxCheckpoints, at least minEvery rows apart.
const (
	maxCheckpoints = 16
	minEvery       = 1 << 16
)

// spacing is the rows between checkpoints of n rows: every, or by default
// as many as keeps them under maxCheckpoints.
func spacing(n, every int) int {
	if every > 0 {
		return every
	}
	return max(minEvery, (n+maxCheckpoints-1)/maxCheckpoints)
}

// checkpoints is how many newBase takes of n rows of wallets wallets. By
// default it takes none when there are as many wallets as rows between two
// checkpoints: one would take at least three times the memory of the rows
// it spares reading (12 bytes a wallet and type, against 16 a row), and
// reading it (every wallet's sums) would cost as much as reading them.
func checkpoints(n, wallets, every int) int {
	e := spacing(n, every)
	if n == 0 || every == 0 && wallets >= e {
		return 0
	}
	return (n - 1) / e
}

// newBase sorts rows by time and takes their checkpoints, for wallets
// wallets; every is 0 for the default spacing.
func newBase(rows []rankRow, wallets, every int) *rankBase {
	slices.SortFunc(rows, func(a, b rankRow) int { return cmp.Compare(a.at, b.at) })
	b := &rankBase{rows: rows, wallets: wallets, every: spacing(len(rows), every)}
	if checkpoints(len(rows), wallets, every) == 0 {
		return b
	}
	every = b.every
	g := make([]int64, wallets*len(slots))
	c := make([]int32, wallets*len(slots))
	for i, r := range rows {
		k := r.wallet()*len(slots) + r.slot()
		g[k] += r.gross()
		c[k]++
		if (i+1)%every == 0 && i+1 < len(rows) {
			b.gross = append(b.gross, slices.Clone(g))
			b.count = append(b.count, slices.Clone(c))
		}
	}
	return b
}

// lowerBound is the index of the first row at or after at.
func (b *rankBase) lowerBound(at int64) int {
	lo, hi := 0, len(b.rows)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b.rows[m].at < at {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// sums accumulates per-wallet gross and count of a range.
type sums struct {
	slot  int // -1: every type
	gross []int64
	count []int32
}

func (s *sums) addRows(rows []rankRow, sign int64) {
	for _, r := range rows {
		if s.slot >= 0 && r.slot() != s.slot {
			continue
		}
		w := r.wallet()
		s.gross[w] += sign * r.gross()
		s.count[w] += int32(sign)
	}
}

// addBefore adds sign times the sums of the base's rows before p: the
// nearest checkpoint's, corrected by the rows between it and p.
func (s *sums) addBefore(b *rankBase, p int, sign int64) {
	j := (p+b.every/2)/b.every - 1 // checkpoint j covers rows[:(j+1)*every]
	j = min(j, len(b.gross)-1)
	at := 0
	if j >= 0 {
		at = (j + 1) * b.every
		g, c := b.gross[j], b.count[j]
		n := len(slots)
		for w := range b.wallets {
			if s.slot >= 0 {
				s.gross[w] += sign * g[w*n+s.slot]
				s.count[w] += int32(sign) * c[w*n+s.slot]
				continue
			}
			for k := w * n; k < w*n+n; k++ {
				s.gross[w] += sign * g[k]
				s.count[w] += int32(sign) * c[k]
			}
		}
	}
	if p >= at {
		s.addRows(b.rows[at:p], sign)
	} else {
		s.addRows(b.rows[p:at], -sign)
	}
}

// ranking is one project's in-memory ranking at a version of its source.
type ranking struct {
	mu      sync.RWMutex
	version int64 // the source's version it counts up to
	count   int64 // confirmed rows it counted, those without time included
	payers  []string
	index   walletIndex // of payers
	base    *rankBase
	delta   []rankRow // counted since base, in no order
	merging bool
	// every and mergeAt, when set (tests), replace the checkpoints'
	// spacing and the delta's size that starts a merge.
	every, mergeAt int
	// payerBytes is the heap the payers' strings take.
	payerBytes int64
	// charged and chargedRows are what the budget holds for r; dropped, r
	// is no longer a project's, and has given them back.
	charged, chargedRows int64
	dropped              bool
}

func newRanking() *ranking {
	return &ranking{base: &rankBase{}, index: walletIndex{seed: maphash.MakeSeed()}}
}

// walletIndex finds a wallet's number by its address: open addressing over
// the wallets' numbers (plus one: 0 is a free slot), probed linearly from
// the address's hash, in a table at most half full. It takes 8 to 16 bytes
// a wallet, exactly known; a map's size depends on its history of growth.
type walletIndex struct {
	seed  maphash.Seed
	slots []uint32
}

// find returns the number of the wallet payer among payers.
func (x *walletIndex) find(payers []string, payer string) (int, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for i := maphash.String(x.seed, payer) & mask; ; i = (i + 1) & mask {
		switch w := x.slots[i]; {
		case w == 0:
			return 0, false
		case payers[w-1] == payer:
			return int(w - 1), true
		}
	}
}

// add indexes wallet w, the last of payers.
func (x *walletIndex) add(payers []string, w int) {
	if 2*(w+1) > len(x.slots) {
		old := x.slots
		x.slots = make([]uint32, max(16, 2*len(old)))
		for _, v := range old {
			if v != 0 {
				x.put(payers[v-1], v)
			}
		}
	}
	x.put(payers[w], uint32(w+1))
}

func (x *walletIndex) put(payer string, v uint32) {
	mask := uint64(len(x.slots) - 1)
	i := maphash.String(x.seed, payer) & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = v
}

func (x *walletIndex) bytes() int64 { return int64(cap(x.slots)) * 4 }

// add counts one confirmed row (at < 0: without confirmation time) in the
// delta.
func (r *ranking) add(payer, typ string, at, gross int64) error {
	r.count++
	if at < 0 {
		return nil
	}
	slot := slices.Index(slots, typ)
	if slot < 0 {
		return errUnranked
	}
	w, ok := r.index.find(r.payers, payer)
	if !ok {
		w = len(r.payers)
		r.payers = append(r.payers, payer)
		r.payerBytes += allocBytes(int64(len(payer)))
		r.index.add(r.payers, w)
	}
	v, err := packRow(w, slot, gross)
	if err != nil {
		return err
	}
	r.delta = append(r.delta, rankRow{at: at, v: v})
	return nil
}

// needsMerge reports whether the delta has grown enough to merge, and
// marks the merge started; the caller holds r.mu.
func (r *ranking) needsMerge() bool {
	limit := r.mergeAt
	if limit == 0 {
		limit = max(4096, len(r.base.rows)/64)
	}
	if r.merging || len(r.delta) < limit {
		return false
	}
	r.merging = true
	return true
}

// finish makes the base of the rows read by add.
func (r *ranking) finish() {
	r.base, r.delta = newBase(r.delta, len(r.payers), r.every), nil
}

// merge makes a new base of the base and the delta as they are now; rows
// added meanwhile stay in the delta.
func (r *ranking) merge() {
	r.mu.RLock()
	old, n, wallets := r.base, len(r.delta), len(r.payers)
	rows := make([]rankRow, 0, len(old.rows)+n)
	rows = append(append(rows, old.rows...), r.delta[:n]...)
	r.mu.RUnlock()
	b := newBase(rows, wallets, r.every)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.base = b
	r.delta = slices.Clone(r.delta[n:])
	r.merging = false
}

// ranked is a wallet and its gross in a range.
type ranked struct {
	wallet int
	gross  int64
}

// page returns the wallets ranked offset to offset+limit-1 among those with
// rows of typ ("" for every type) confirmed in [from, to) (microseconds), by
// gross descending then payer byte-wise, as the leaderboard ranks them. The
// memory it takes while it runs (pageBytes a wallet) comes out of b, if not
// nil: ok is false when b has not that much left.
func (r *ranking) page(from, to int64, typ string, offset, limit int, b *budget) (payers []string, gross []int64, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if cost := int64(len(r.payers)) * pageBytes; b != nil {
		if !b.take(cost, 0) {
			return nil, nil, false
		}
		defer b.give(cost, 0)
	}
	s := sums{slot: -1, gross: make([]int64, len(r.payers)), count: make([]int32, len(r.payers))}
	if typ != "" {
		if s.slot = slices.Index(slots, typ); s.slot < 0 {
			return nil, nil, true
		}
	}
	base := r.base
	p1, p2 := base.lowerBound(from), base.lowerBound(to)
	p2 = max(p1, p2) // a range that ends before it starts holds no row
	if len(base.gross) == 0 || p2-p1 <= base.every {
		s.addRows(base.rows[p1:p2], 1)
	} else {
		s.addBefore(base, p2, 1)
		s.addBefore(base, p1, -1)
	}
	for _, d := range r.delta {
		if d.at >= from && d.at < to && (s.slot < 0 || d.slot() == s.slot) {
			s.gross[d.wallet()] += d.gross()
			s.count[d.wallet()]++
		}
	}
	active := 0
	for _, c := range s.count {
		if c > 0 {
			active++
		}
	}
	cands := make([]ranked, 0, active)
	for w, c := range s.count {
		if c > 0 {
			cands = append(cands, ranked{wallet: w, gross: s.gross[w]})
		}
	}
	better := func(a, b ranked) bool {
		return a.gross > b.gross || a.gross == b.gross && r.payers[a.wallet] < r.payers[b.wallet]
	}
	if offset >= len(cands) {
		return nil, nil, true
	}
	top := cands[:selectBest(cands, offset+limit, better)]
	pg := top[selectBest(top, offset, better):]
	slices.SortFunc(pg, func(a, b ranked) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	for _, e := range pg {
		payers = append(payers, r.payers[e.wallet])
		gross = append(gross, e.gross)
	}
	return payers, gross, true
}

// selectBest moves the k best of a (by better, a strict order) to a[:k], in
// no order, and returns min(k, len(a)): a quickselect, linear on average.
func selectBest(a []ranked, k int, better func(a, b ranked) bool) int {
	if k >= len(a) {
		return len(a)
	}
	if k <= 0 {
		return 0
	}
	lo, hi := 0, len(a)
	for hi-lo > 12 {
		m := lo + (hi-lo)/2
		// The median of three as the pivot, moved to hi-1.
		if better(a[m], a[lo]) {
			a[m], a[lo] = a[lo], a[m]
		}
		if better(a[hi-1], a[lo]) {
			a[hi-1], a[lo] = a[lo], a[hi-1]
		}
		if better(a[m], a[hi-1]) {
			a[m], a[hi-1] = a[hi-1], a[m]
		}
		p, i := a[hi-1], lo
		for j := lo; j < hi-1; j++ {
			if better(a[j], p) {
				a[i], a[j] = a[j], a[i]
				i++
			}
		}
		a[i], a[hi-1] = a[hi-1], a[i]
		// a[lo:i] better than p, a[i] = p, a[i+1:hi] worse.
		switch {
		case k == i || k == i+1:
			return k
		case k < i:
			hi = i
		default:
			lo = i + 1
		}
	}
	slices.SortFunc(a[lo:hi], func(x, y ranked) int {
		if better(x, y) {
			return -1
		}
		return 1
	})
	return k
}
