//go:build !unix

package storage

import "context"

// lockFile is a no-op where flock is unavailable: concurrent first starts of
// several processes on one SQLite file are then not serialized.
func lockFile(context.Context, string) (unlock func(), err error) {
	return func() {}, nil
}
