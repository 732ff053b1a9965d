package storage

import (
	"time"
)

// Condition is condition: ledger.ErrStorageFull, ledger.ErrReadOnly or nil.
func Condition(err error) error { return condition(err) }

// WriteFailed has s handle err as the error of one of its writes.
func WriteFailed(s *DB, err error) error { return s.writeErr(err) }

// ConditionAt is what Ready would report of s's writes at now, on Postgres.
func ConditionAt(s *DB, now time.Time) error { return s.health.current(now) }

// FullHold is fullHold.
const FullHold = fullHold
