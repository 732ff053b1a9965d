// Package npmci installs the pinned npm packages of a folder of JS (the
// local validator, the JS clients the tests compare with), once, however
// many test binaries and tests ask at the same time.
package npmci

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

// mu serializes the callers of one process; the file lock those of several
// (go test runs packages' test binaries at once, and they share directories).
var mu sync.Mutex

// Installed tells whether npm ci finished in dir: npm writes
// node_modules/.package-lock.json last, so a node_modules that another
// npm ci is still filling does not count.
func Installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	return err == nil
}

// Ensure runs `npm ci` in dir unless its packages are installed, under an
// exclusive lock on dir/.npm-ci.lock: one npm ci must never delete what
// another caller is about to use. It returns npm's output when it ran.
func Ensure(ctx context.Context, dir string) ([]byte, error) {
	if Installed(dir) {
		return nil, nil
	}
	mu.Lock()
	defer mu.Unlock()
	f, err := os.OpenFile(filepath.Join(dir, ".npm-ci.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck // released on close anyway
	if Installed(dir) {
		return nil, nil // another caller installed them while we waited
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out)
	}
	return out, nil
}
