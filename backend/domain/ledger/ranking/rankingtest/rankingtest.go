// Package rankingtest measures the heap for the tests that check what the
// in-memory rankings hold (package ranking's TestRankingMemory, storage's
// TestRankingBudget). Tests only.
package rankingtest

import "runtime"

// HeapGrowth runs f and returns by how much it grew the live heap: the heap
// allocated after a collection, before and after. The heap is the
// process's: a test that calls it does not run in parallel.
func HeapGrowth(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
