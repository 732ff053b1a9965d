package storage

import "context"

// MoveMemberAudit runs the data step of migration 20260521000005 again, for
// tests that write audit entries in the shape before it.
func MoveMemberAudit(ctx context.Context, s *DB) error { return moveMemberAudit(ctx, s.db) }

// ForgetPromises zeroes every entry's promise, as entries recorded before
// migration 20260521000006 were; BackfillPromises runs that migration's
// data step again.
func ForgetPromises(ctx context.Context, s *DB) error {
	q := s.db.NewUpdate().Model((*transactionV1)(nil)).Where("1 = 1")
	for _, c := range promisedColumns {
		q = q.Set("promised_" + c + " = 0")
	}
	_, err := q.Exec(ctx)
	return err
}

// BackfillPromises runs the data step of migration 20260521000006 again.
func BackfillPromises(ctx context.Context, s *DB) error { return backfillPromised(ctx, s.db) }
