package storage

import "context"

// MoveMemberAudit runs the data step of migration 20260521000005 again, for
// tests that write audit entries in the shape before it.
func MoveMemberAudit(ctx context.Context, s *Store) error { return moveMemberAudit(ctx, s.db) }
