// Package headless starts Debian's chromium for browser tests, with the flags
// this machine needs (no sandbox as root, and no background networking: the
// closed network refuses it). Tests only.
package headless

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser returns a chromedp context on a fresh headless chromium, closed
// when t ends. Without chromium the test skips, or fails when CI=true: CI
// must run it. what names the test in those messages.
//
// Chromium is a tree of processes (browser, zygote, renderers, utilities)
// that keep writing into the profile after the browser process exits, so
// waiting for that one process is not enough before the profile directory
// is removed: run as root (CI), chromium starts as the first process of a PID
// namespace of its own, and the kernel ends every process of the namespace
// before its first process is reaped. The allocator's cancel waits for that,
// and the profile (t.TempDir, removed after this cleanup) is then left alone.
func Browser(t testing.TB, what string, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path(t, what)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.ModifyCmdFunc(processTree),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	ctx, cancel := chromedp.NewContext(actx)
	// A bound for a test that sets none; the sample app's runs seven flows.
	ctx, cancelTimeout := context.WithTimeout(ctx, 8*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// processTree makes chromium's process tree end with it: a PID namespace
// when running as root, and (as chromedp does) SIGKILL when the test binary
// dies.
func processTree(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWPID
	}
}

// path finds chromium: RECLAIM_CHROMIUM, else the usual names on PATH.
func path(t testing.TB, what string) string {
	t.Helper()
	if p := os.Getenv("RECLAIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "install it with: apt-get install -y chromium (or set RECLAIM_CHROMIUM)"
	if os.Getenv("CI") == "true" {
		t.Fatalf("chromium is not installed and CI=true: %s must run in CI; %s", what, how)
	}
	t.Skipf("chromium is not installed: skipping %s; %s", what, how)
	return ""
}
