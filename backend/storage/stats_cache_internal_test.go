package storage

import (
	"strconv"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// A read that began before a confirmation is not kept: it may have missed
// it, and would hide it for the time to live.
func TestStatsCacheDropsReadsOverlappingAConfirmation(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var confirms confirmations
	c := statsCache{ttl: time.Second, now: func() time.Time { return now }, confirms: &confirms, entries: map[string]statsEntry{}}

	_, read, ok := c.get("prj")
	if ok {
		t.Fatal("kept before any read")
	}
	confirms.confirmed("prj") // committed while the read ran
	c.put("prj", ledger.Stats{TotalTransactionCount: 1}, read)
	if _, _, ok := c.get("prj"); ok {
		t.Fatal("a read overlapping a confirmation was kept")
	}
	_, read, _ = c.get("prj")
	c.put("prj", ledger.Stats{TotalTransactionCount: 2}, read)
	if st, _, ok := c.get("prj"); !ok || st.TotalTransactionCount != 2 {
		t.Fatalf("a read after it: %+v %v", st, ok)
	}
	for i := range maxCachedStats + 5 {
		id := "prj_" + strconv.Itoa(i)
		_, read, _ := c.get(id)
		c.put(id, ledger.Stats{}, read)
	}
	if len(c.entries) > maxCachedStats {
		t.Fatalf("%d projects kept, at most %d", len(c.entries), maxCachedStats)
	}
}
