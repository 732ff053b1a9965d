//go:build !linux

package storagetest

import (
	"os"
	"testing"
)

// SmallDisk is a tmpfs mount (disk_linux.go): Linux only. Elsewhere the
// test is skipped, or fails when CI=true.
func SmallDisk(t testing.TB, size int) string {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal("a small disk is a tmpfs mount: Linux only, and CI=true")
	}
	t.Skip("a small disk is a tmpfs mount: Linux only")
	return ""
}

// FillDisk fills SmallDisk's disk: Linux only.
func FillDisk(t testing.TB, dir string) (free func()) {
	t.Helper()
	t.Skip("a small disk is a tmpfs mount: Linux only")
	return func() {}
}
