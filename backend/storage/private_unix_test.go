//go:build unix

package storage_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// The SQLite database holds password hashes, key HMACs and sealed webhook
// secrets: in a data directory that exists already (0755), under the usual
// umask (022), the database and every journal beside it are 0600, and a
// database left 0644 by an older version is made 0600 when it is opened.
// Not parallel: the umask is the process's.
func TestSQLiteFilesArePrivate(t *testing.T) { //nolint:paralleltest // it sets the process's umask
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	ctx := ctxT(t)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	open := func() *storagetest.Store {
		t.Helper()
		s, err := storage.Open(ctx, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		rooms := storagetest.Rooms(s, storagetest.Options{})
		if _, err := rooms.CreateProject(ctx, project.Project{Name: "p"}); err != nil {
			t.Fatal(err)
		}
		return rooms
	}
	files := func() map[string]os.FileMode {
		t.Helper()
		modes := map[string]os.FileMode{}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			info, err := os.Stat(filepath.Join(dir, storage.SQLiteFile+suffix))
			if err != nil {
				t.Fatalf("%s%s after a write: %v", storage.SQLiteFile, suffix, err)
			}
			modes[storage.SQLiteFile+suffix] = info.Mode().Perm()
		}
		return modes
	}
	s := open()
	defer s.Close()
	for name, mode := range files() { // the store is open: the journals exist
		if mode != 0o600 {
			t.Errorf("new database: %s is %#o, want 0600", name, mode)
		}
	}

	// An older version's files, readable by everyone, open in another
	// process (here the first store), and a rollback journal beside them.
	journal := filepath.Join(dir, storage.SQLiteFile+"-journal")
	if err := os.WriteFile(journal, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{storage.SQLiteFile, storage.SQLiteFile + "-wal", storage.SQLiteFile + "-shm", storage.SQLiteFile + "-journal"} {
		if err := os.Chmod(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	again := open()
	defer again.Close()
	for name, mode := range files() {
		if mode != 0o600 {
			t.Errorf("a 0644 database opened again: %s is %#o, want 0600", name, mode)
		}
	}
	if info, err := os.Stat(journal); err == nil && info.Mode().Perm() != 0o600 {
		t.Errorf("a 0644 rollback journal: %#o after open, want 0600", info.Mode().Perm())
	}
}
