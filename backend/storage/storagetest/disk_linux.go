package storagetest

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/uptrace/bun/driver/sqliteshim"

	"github.com/reclaim-sol/reclaim/backend/storage"
)

// SmallDisk mounts a tmpfs of size bytes on a new directory, unmounted when
// the test ends, and returns the directory: a disk that can really be filled
// (FillDisk). Mounting needs root (CAP_SYS_ADMIN): without it the test is
// skipped, or fails when CI=true (CI runs as root).
func SmallDisk(t testing.TB, size int) string {
	t.Helper()
	dir := t.TempDir()
	opts := "size=" + strconv.Itoa(size) + ",mode=0700"
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		const why = "a small disk is a tmpfs mount, which needs root"
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount tmpfs on %s: %v; CI=true: %s", dir, err, why)
		}
		t.Skipf("mount tmpfs: %v: skipping (%s)", err, why)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// FillDisk fills the disk of the SQLite store in dir (SmallDisk) until the
// next write to the database needs space it no longer has, and returns the
// function that frees that space again. It first empties the store's
// write-ahead log (a checkpoint that truncates it, waiting for any write
// under way), so that the next write must grow the log, after having the
// log's shared-memory index written once: its pages are then allocated,
// and SQLite, which maps them, never faults on a page the full disk cannot
// give.
func FillDisk(t testing.TB, dir string) (free func()) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open(sqliteshim.ShimName, "file:"+filepath.Join(dir, storage.SQLiteFile)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	truncate := func() {
		var busy, log, done int
		if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &log, &done); err != nil || busy != 0 {
			t.Fatalf("checkpoint the log of %s: busy %d, %v", dir, busy, err)
		}
	}
	truncate()
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS fill_disk_touch (x INTEGER)",
		"INSERT INTO fill_disk_touch VALUES (1)",
		"DROP TABLE fill_disk_touch",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	truncate()
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zeros := make([]byte, 64<<10)
	for {
		if _, err := f.Write(zeros); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	// The last, partial block of what fits.
	for {
		if _, err := f.Write(zeros[:512]); err != nil {
			break
		}
	}
	return func() {
		if err := os.Remove(filler); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("free %s: %v", dir, err)
		}
	}
}
