//go:build unix

package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path, waiting as long as ctx allows.
// The kernel drops the lock if the process dies, so a crash never leaves the
// migrations locked.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open migration lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("take migration lock: %w", err)
		}
		if err := sleep(ctx, lockPoll); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("wait for migration lock: %w", err)
		}
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
