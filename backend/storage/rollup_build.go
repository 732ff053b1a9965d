package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// Migrate waits backfillForeground for the backfill, then leaves it to run
// in the background (reads fall back to the ledger rows until it is done); a
// background backfill that fails tries again after backfillRetry.
const (
	backfillForeground = 10 * time.Second
	backfillRetry      = 5 * time.Second
)

// backfiller is the backfill running in the background, if any.
type backfiller struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{} // closed when it returns
	err    error         // its last error
}

// runBackfill counts the legacy rows: within ctx and at most
// backfillForeground, then, if unfinished, in the background until it is
// done or the store closes. An error other than running out of time is
// returned.
func (s *core) runBackfill(ctx context.Context) error {
	fg, cancel := context.WithTimeout(ctx, backfillForeground)
	err := s.backfillRollups(fg)
	// The driver reports the deadline as an I/O timeout, at times before the
	// context's own timer has fired.
	outOfTime := fg.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded)
	cancel()
	switch {
	case err == nil:
		s.rollupsReady.Store(true)
		return nil
	case ctx.Err() != nil || !outOfTime:
		return err
	}
	s.bf.mu.Lock()
	defer s.bf.mu.Unlock()
	if s.bf.done != nil {
		return nil // already running
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.bf.cancel, s.bf.done = stop, make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		for {
			err := s.backfillRollups(bg)
			s.bf.mu.Lock()
			s.bf.err = err
			s.bf.mu.Unlock()
			if err == nil {
				s.rollupsReady.Store(true)
				return
			}
			if sleep(bg, backfillRetry) != nil {
				return
			}
		}
	}(s.bf.done)
	return nil
}

// WaitForRollups returns once the rollups count every row recorded before
// migration 9, which Migrate may leave to finish in the background (the
// reads are exact meanwhile, and as slow as before rollups), or with ctx's
// error and the backfill's last.
func (s *DB) WaitForRollups(ctx context.Context) error {
	s.bf.mu.Lock()
	done := s.bf.done
	s.bf.mu.Unlock()
	if s.rollupsReady.Load() || done == nil {
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.bf.mu.Lock()
	defer s.bf.mu.Unlock()
	if s.rollupsReady.Load() {
		return nil
	}
	return fmt.Errorf("storage: rollups not built: %w (last error: %w)", context.Cause(ctx), s.bf.err)
}

// stopBackfill stops a background backfill and waits for it.
func (s *core) stopBackfill() {
	s.bf.mu.Lock()
	cancel, done := s.bf.cancel, s.bf.done
	s.bf.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// backfillPayers is how many wallets a backfill batch counts at first; the
// batches are then resized so that one takes about backfillBatch: long
// enough to aggregate well, short enough that a confirmation of one of its
// wallets (which waits for it) is not held up for long.
const (
	backfillPayers = 500
	backfillBatch  = time.Second
)

// catchUpBatch is how many uncounted rows catchUpRollups counts per
// transaction.
const catchUpBatch = 1000

// backfillRollups counts the legacy rows (final before migration 9) in the
// rollups, project by project and, within one, by batches of wallets (in
// payer order), so that each rollup row of a wallet is written once. Each
// batch reads the cursor (reclaim_rollup_backfill, locked), adds its rows and
// moves the cursor in one transaction, so a backfill interrupted anywhere
// resumes where it stopped, and several instances backfilling at once take
// turns, counting every row once: legacy rows never change, and the rows
// confirmed meanwhile are not legacy (the confirming transaction counts them
// itself, or catchUpRollups does).
func (s *core) backfillRollups(ctx context.Context) error {
	db, release := s.maintenanceDB()
	defer release()
	batch := backfillPayers
	for {
		started := time.Now()
		var done, counted bool
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			var err error
			done, counted, err = s.backfillBatch(ctx, tx, batch)
			return err
		})
		if err != nil {
			return fmt.Errorf("backfill rollups: %w", err)
		}
		if done {
			return nil
		}
		if counted {
			took := max(time.Since(started), time.Millisecond)
			batch = min(max(int(float64(batch)*float64(backfillBatch)/float64(took)), 10), 100_000)
		}
	}
}

// backfillBatch counts the next batch of wallets, or moves the cursor to the
// next project; done reports that the backfill is over, counted that rows
// were counted.
func (s *core) backfillBatch(ctx context.Context, tx bun.Tx, batch int) (done, counted bool, err error) {
	var project, after string
	q := tx.NewSelect().TableExpr("reclaim_rollup_backfill").ColumnExpr("project_id, payer, done").Where("id = 1")
	if s.postgres {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx, &project, &after, &done); err != nil || done {
		return done, false, err
	}
	var last string // the batch's last wallet
	if project != "" {
		err := tx.NewSelect().TableExpr("(?) AS batch", tx.NewSelect().TableExpr("reclaim_transactions").
			ColumnExpr("DISTINCT payer").Where("project_id = ?", project).Where("payer > ?", after).
			OrderExpr("payer ASC").Limit(batch)).
			ColumnExpr("COALESCE(MAX(payer), '')").Scan(ctx, &last)
		if err != nil {
			return false, false, err
		}
	}
	if last == "" {
		done, err := s.nextBackfillProject(ctx, tx, project)
		return done, false, err
	}
	err = s.addToRollups(ctx, tx, 0, "project_id = ? AND payer > ? AND payer <= ? AND rollup_state = ?", project, after, last, rollupLegacy)
	if err != nil {
		return false, false, err
	}
	_, err = tx.ExecContext(ctx, "UPDATE reclaim_rollup_backfill SET payer = ? WHERE id = 1", last)
	return false, true, err
}

// nextBackfillProject moves the backfill's cursor past project: to the next
// project, or, after the last, recounts every project's wallets and marks the
// backfill done.
func (s *core) nextBackfillProject(ctx context.Context, tx bun.Tx, project string) (done bool, err error) {
	var next string
	err = tx.NewSelect().TableExpr("projects").ColumnExpr("id").Where("id > ?", project).
		OrderExpr("id ASC").Limit(1).Scan(ctx, &next)
	if errors.Is(err, sql.ErrNoRows) {
		if err := s.countWallets(ctx, tx, nil); err != nil {
			return false, err
		}
		_, err = tx.ExecContext(ctx, "UPDATE reclaim_rollup_backfill SET done = TRUE WHERE id = 1")
		return err == nil, err
	}
	if err != nil {
		return false, err
	}
	_, err = tx.ExecContext(ctx, "UPDATE reclaim_rollup_backfill SET project_id = ?, payer = '' WHERE id = 1", next)
	return false, err
}

// catchUpRollups counts the rows that a version without rollups confirmed
// (rollup_state 0): it runs at every start, and finds none unless older
// instances confirmed entries since the last. The per-wallet totals of all
// time already count them: that version kept them.
func (s *core) catchUpRollups(ctx context.Context) error {
	for {
		var n int
		err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			var rows []struct {
				ID        string `bun:"id"`
				ProjectID string `bun:"project_id"`
			}
			q := tx.NewSelect().TableExpr("reclaim_transactions").ColumnExpr("id, project_id").
				Where("status = 'confirmed' AND rollup_state = 0").
				OrderExpr("id ASC").Limit(catchUpBatch)
			if s.postgres {
				q = q.For("UPDATE")
			}
			if err := q.Scan(ctx, &rows); err != nil {
				return err
			}
			if n = len(rows); n == 0 {
				return nil
			}
			ids, projects := make([]string, n), []string{}
			seen := map[string]bool{}
			for i, r := range rows {
				ids[i] = r.ID
				if !seen[r.ProjectID] {
					seen[r.ProjectID] = true
					projects = append(projects, r.ProjectID)
				}
			}
			if err := s.addToRollups(ctx, tx, 0, "id IN (?)", bun.List(ids)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "UPDATE reclaim_transactions SET rollup_state = ? WHERE id IN (?)", rollupCounted, bun.List(ids)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, stampRanked+"id IN (?)", bun.List(ids)); err != nil {
				return err
			}
			return s.countWallets(ctx, tx, projects)
		})
		if err != nil {
			return fmt.Errorf("catch up rollups: %w", err)
		}
		if n < catchUpBatch {
			return nil
		}
	}
}

// rebuildPayerTotals recomputes the per-wallet totals of all time from the
// confirmed rows, as migration 2 first did (payerTotalsV2), with every
// type's count.
var rebuildPayerTotals = `
INSERT INTO reclaim_payer_totals (project_id, payer, type, ` + commaList(figureColumns()) + `)
SELECT project_id, payer, t, SUM(gross_rebate), SUM(net_rebate), COUNT(*),
	` + commaList(typeCountsOf()) + `,
	SUM(donation_amount), COUNT(CASE WHEN donation_amount > 0 THEN 1 END), SUM(service_fee)
FROM (
	SELECT project_id, payer, type, type AS t, gross_rebate, net_rebate, donation_amount, service_fee
	FROM reclaim_transactions WHERE status = 'confirmed'
	UNION ALL
	SELECT project_id, payer, type, '' AS t, gross_rebate, net_rebate, donation_amount, service_fee
	FROM reclaim_transactions WHERE status = 'confirmed'
) AS confirmed
GROUP BY project_id, payer, t`

// rollupTablesByName are the tables a rebuild empties and fills again.
var rollupTablesByName = []string{"reclaim_payer_totals", "reclaim_rollup_days", "reclaim_rollup_periods",
	"reclaim_project_days", "reclaim_project_totals"}

// RebuildPayerTotals recomputes, in one transaction, the per-wallet totals
// of all time and every rollup that Stats, Leaderboard and DailyTotals read,
// from the confirmed ledger rows. The store keeps them current itself; this
// repairs them after rows were changed behind its back (a manual fix, a bulk
// import). On Postgres it blocks writes to the ledger while it runs, which on
// a ledger of millions of rows takes minutes, and ctx alone bounds it.
func (s *DB) RebuildPayerTotals(ctx context.Context) error {
	db, done := s.maintenanceDB()
	defer done()
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range s.rebuildStatements() {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("rebuild payer totals: %w", err)
	}
	return nil
}

// rebuildStatements are the statements of RebuildPayerTotals.
func (s *core) rebuildStatements() []string {
	var qs []string
	if s.postgres {
		qs = append(qs, "LOCK TABLE reclaim_transactions IN SHARE MODE")
	}
	for _, t := range rollupTablesByName {
		if t == "reclaim_project_totals" {
			// Emptied, not deleted: its version goes on rising (migration 10).
			qs = append(qs, `UPDATE reclaim_project_totals SET gross_rebate = 0, net_rebate = 0, transaction_count = 0,
	wallet_count = 0, donation_count = 0, donation_amount = 0, rent_rebate = 0, own_balance_rebate = 0, version = version + 1`)
			continue
		}
		qs = append(qs, "DELETE FROM "+t)
	}
	b := s.buckets()
	for _, q := range []string{addToRollupDays, addToRollupPeriods, addToProjectDays} {
		qs = append(qs, fmt.Sprintf(q, "TRUE", b.day, b.month, b.year))
	}
	return append(qs,
		rebuildPayerTotals,
		fmt.Sprintf(addToProjectTotals, "TRUE", 0),
		"UPDATE reclaim_transactions SET rollup_state = 2 WHERE status = 'confirmed' AND rollup_state = 0",
		recountWallets+"TRUE",
		"UPDATE reclaim_rollup_backfill SET done = TRUE WHERE id = 1",
	)
}
