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

// Expiring is another kind of row the tracker deletes in its pruning
// pass, once older than Keep: idempotency keys, webhook deliveries done.
type Expiring struct {
	// Name says what is pruned, in errors.
	Name string
	Keep time.Duration
	// Prune deletes up to limit rows from before before, and says how many.
	Prune func(ctx context.Context, before time.Time, limit int) (int, error)
}

// Prune deletes the submission log's lines older than Retention, and the
// Expiring rows older than their Keep, up to pruneBatches batches of
// pruneBatch each, and returns how many it deleted. With a Retention of 0
// it keeps every line of the log.
func (t *Tracker) Prune(ctx context.Context) (int, error) {
	total := 0
	if t.Retention > 0 {
		n, err := pruneBatched(ctx, t.now().Add(-t.Retention), t.store.PruneAttempts)
		total += n
		if err != nil {
			return total, fmt.Errorf("prune the submission log: %w", err)
		}
	}
	for _, e := range t.Expiring {
		n, err := pruneBatched(ctx, t.now().Add(-e.Keep), e.Prune)
		total += n
		if err != nil {
			return total, fmt.Errorf("prune %s: %w", e.Name, err)
		}
	}
	return total, nil
}

// pruneBatched runs prune until it deletes less than a batch, at most
// pruneBatches times.
func pruneBatched(ctx context.Context, before time.Time, prune func(context.Context, time.Time, int) (int, error)) (int, error) {
	total := 0
	for range pruneBatches {
		n, err := prune(ctx, before, pruneBatch)
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
	return total, nil
}

// tickPrune runs Prune once per pruneEvery of the clock, when no tracker
// sharing the ledger has claimed that pass yet. A tracker asks for each
// pass once, not on every tick.
func (t *Tracker) tickPrune(ctx context.Context) error {
	if t.Retention <= 0 && len(t.Expiring) == 0 {
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
