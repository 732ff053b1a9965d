package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// A database that cannot write must not pass for ready, and its callers
// must learn why: storage full or read-only, not "did not answer".
//
// Every write the ledger depends on goes through writeErr, which turns the
// drivers' errors for a full or read-only database into ledger.ErrStorageFull
// or ledger.ErrReadOnly (wrapping the driver's error, for the log). Ready
// is the readiness check:
//
//   - On SQLite it commits a write (probeRow): in WAL mode every write,
//     however small, appends to the log, so the probe fails exactly when the
//     disk (or the file's quota) is too full for ledger writes, or the file
//     is read-only, and passes again as soon as space is freed.
//   - On Postgres a small probe would fit in a page that has room while the
//     ledger's tables cannot grow, so Ready reports what writes met: a write
//     refused for want of space in the last fullHold, unless a ledger insert
//     succeeded since; and the session's transaction_read_only (a standby,
//     or default_transaction_read_only).

// fullHold is how long a Postgres store that refused a write for want of
// space reports itself full, without a ledger insert succeeding since:
// then it lets traffic try again.
const fullHold = 30 * time.Second

// SQLite's primary result codes for a full and a read-only database.
const (
	sqliteFull     = 13 // SQLITE_FULL
	sqliteReadOnly = 8  // SQLITE_READONLY
)

// condition is ledger.ErrStorageFull or ledger.ErrReadOnly when err is a
// database's refusal for want of space or of write access, or nil.
func condition(err error) error {
	if err == nil {
		return nil
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		switch pgErr.Field('C') {
		case "53100": // disk_full
			return ledger.ErrStorageFull
		case "25006": // read_only_sql_transaction
			return ledger.ErrReadOnly
		}
		return nil
	}
	var coded interface{ Code() int } // modernc.org/sqlite
	if errors.As(err, &coded) {
		switch coded.Code() & 0xff {
		case sqliteFull:
			return ledger.ErrStorageFull
		case sqliteReadOnly:
			return ledger.ErrReadOnly
		}
		return nil
	}
	// SQLite's own messages, whatever the driver.
	switch msg := err.Error(); {
	case strings.Contains(msg, "database or disk is full"):
		return ledger.ErrStorageFull
	case strings.Contains(msg, "attempt to write a readonly database"):
		return ledger.ErrReadOnly
	}
	return nil
}

// writeErr is err, from a write, marked with its condition (full,
// read-only) when it has one; a condition is remembered for Ready.
func (s *core) writeErr(err error) error {
	c := condition(err)
	if c == nil {
		return err
	}
	s.health.saw(c, time.Now())
	return fmt.Errorf("%w: %w", c, err)
}

// health is what the store's writes met lately (Postgres's readiness).
type health struct {
	mu   sync.Mutex
	cond error     // the last condition a write met, or nil
	at   time.Time // when
}

func (h *health) saw(cond error, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cond, h.at = cond, at
}

// wrote records a ledger insert that succeeded: the database had room.
func (h *health) wrote() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cond = nil
}

// current is the condition writes met within fullHold of now, or nil.
func (h *health) current(now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cond == nil || now.Sub(h.at) >= fullHold {
		return nil
	}
	return fmt.Errorf("%w: a write was refused %s ago", h.cond, now.Sub(h.at).Round(time.Millisecond))
}

// probeRow is SQLite's readiness probe: one row, rewritten by every check.
type probeRow struct {
	bun.BaseModel `bun:"table:storage_probe"`

	Name string `bun:"name,pk"`
	At   int64  `bun:"at,notnull"`
}

// Ready reports whether the database answers and can write:
// ledger.ErrStorageFull or ledger.ErrReadOnly (wrapped) when it cannot
// write, another error when it does not answer within ctx.
func (s *DB) Ready(ctx context.Context) error {
	if !s.postgres {
		row := probeRow{Name: "readiness", At: time.Now().UnixMicro()}
		_, err := s.db.NewInsert().Model(&row).On("CONFLICT (name) DO UPDATE").Set("at = EXCLUDED.at").Exec(ctx)
		if c := condition(err); c != nil {
			return fmt.Errorf("%w: %w", c, err)
		}
		return err
	}
	var readOnly string
	if err := s.db.QueryRowContext(ctx, "SELECT current_setting('transaction_read_only')").Scan(&readOnly); err != nil {
		return err
	}
	if readOnly == "on" {
		return fmt.Errorf("%w: transaction_read_only is on", ledger.ErrReadOnly)
	}
	return s.health.current(time.Now())
}
