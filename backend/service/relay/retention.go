package relay

import (
	"context"
	"fmt"
	"time"
)

// DefaultRetention is how long the submission log keeps a line unless told
// otherwise (RECLAIM_ATTEMPTS_RETENTION).
const DefaultRetention = 30 * 24 * time.Hour

// Lines of the submission log older than the tracker's Retention are
// deleted once a pruneEvery, by whichever tracker sharing the ledger claims
// that pass first: pruneBatch lines a statement, at most pruneBatches
// statements a pass, so that no statement holds its locks for long and a
// backlog (a log never pruned before) goes over several passes.
const (
	pruneName    = "attempts-retention"
	pruneEvery   = time.Minute
	pruneBatch   = 1000
	pruneBatches = 20
)

// Prune deletes the submission log's lines older than Retention, up to
// pruneBatches batches of pruneBatch, and returns how many it deleted.
// With a Retention of 0 it keeps every line.
func (t *Tracker) Prune(ctx context.Context) (int, error) {
	if t.Retention <= 0 {
		return 0, nil
	}
	before := t.now().Add(-t.Retention)
	total := 0
	for range pruneBatches {
		n, err := t.store.PruneAttempts(ctx, before, pruneBatch)
		total += n
		if err != nil {
			return total, fmt.Errorf("prune the submission log: %w", err)
		}
		if n < pruneBatch {
			break
		}
	}
	return total, nil
}

// tickPrune runs Prune once per pruneEvery of the clock, when no tracker
// sharing the ledger has claimed that pass yet. A tracker asks for each
// pass once, not on every tick.
func (t *Tracker) tickPrune(ctx context.Context) error {
	if t.Retention <= 0 {
		return nil
	}
	slot := t.now().UnixNano() / int64(pruneEvery)
	if t.pruneSlot.Swap(slot) == slot {
		return nil
	}
	won, err := t.store.ClaimPass(ctx, pruneName, t.owner, slot)
	if err != nil || !won {
		return err
	}
	_, err = t.Prune(ctx)
	return err
}
