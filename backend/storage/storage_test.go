package storage_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// ctxT bounds a storage test: 90 s, as TestRollupsEqualRows on Postgres
// takes 31-34 s on a 2-core machine at load 12 (10 s alone).
func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "before"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if err := s.Migrate(ctx); err != nil {
				t.Fatalf("migrate again (#%d): %v", i+1, err)
			}
		}
		got, err := s.GetProject(ctx, p.ID)
		if err != nil || got.Name != "before" {
			t.Fatalf("after re-migrating, GetProject = %+v, %v; want the row kept", got, err)
		}
	})
}

// TestMigrateConcurrently starts several stores on one database at once, as
// several processes (server replicas, the CLI) do: all must succeed.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	backends := []struct {
		name string
		open func(t *testing.T) (url, dir string)
	}{
		{name: "sqlite", open: func(t *testing.T) (string, string) { return "", t.TempDir() }},
		{name: "postgres", open: func(t *testing.T) (string, string) { return storagetest.NewPostgresDatabase(t), "" }},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := ctxT(t)
			dbURL, dir := b.open(t)
			const n = 4
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Go(func() {
					s, err := storage.Open(ctx, dbURL, dir)
					if err != nil {
						errs[i] = err
						return
					}
					defer s.Close()
					errs[i] = s.Migrate(ctx)
				})
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("process %d: %v", i, err)
				}
			}
		})
	}
}

// TestSQLiteTwoWriters writes from two stores on one file at once, as the CLI
// does while the server runs.
func TestSQLiteTwoWriters(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	dir := filepath.Join(t.TempDir(), "data") // Open creates it
	var stores [2]*storagetest.Store
	for i := range stores {
		s, err := storage.Open(ctx, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		stores[i] = storagetest.Rooms(s, storagetest.Options{})
	}
	const perStore = 50
	var wg sync.WaitGroup
	errs := make(chan error, 2*perStore)
	for _, s := range stores {
		wg.Go(func() {
			for range perStore {
				if _, err := s.CreateProject(ctx, project.Project{Name: "p"}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent write: %v", err)
	}
	if info, err := os.Stat(filepath.Join(dir, storage.SQLiteFile+"-wal")); err != nil || info.Size() == 0 {
		t.Errorf("no WAL file beside the database (%v): journal_mode=WAL not applied", err)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode = %v, %v; want 0700", info.Mode().Perm(), err)
	}
}

func TestOpenRejectsUnknownScheme(t *testing.T) {
	t.Parallel()
	_, err := storage.Open(t.Context(), "mysql://root@localhost/reclaim", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `unsupported database URL scheme "mysql"`) {
		t.Fatalf("Open(mysql://) error = %v, want unsupported scheme", err)
	}
}

// TestOpenKeepsAnUnparsableURLSecret: a DATABASE_URL that does not parse
// is refused without quoting it (pgdriver would panic and print it,
// password and all).
func TestOpenKeepsAnUnparsableURLSecret(t *testing.T) {
	t.Parallel()
	_, err := storage.Open(t.Context(), "postgres://reclaim:s3cr3t pw@db:5432/reclaim", t.TempDir())
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("Open error = %v", err)
	}
}

// TestPostgresThatDoesNotAnswer dials a server that accepts connections and
// never replies: Open must give up when the caller's deadline passes.
func TestPostgresThatDoesNotAnswer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	}()

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = storage.Open(ctx, "postgres://postgres@"+ln.Addr().String()+"/reclaim?sslmode=disable", "")
	if err == nil {
		t.Fatal("Open succeeded against a silent server")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Open took %v against a silent server, want about the 300ms deadline", d)
	}
}

func TestCanceledContext(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := s.Stats(ctx, "prj_x"); !errors.Is(err, context.Canceled) {
			t.Errorf("Stats with a canceled context = %v, want context.Canceled", err)
		}
	})
}

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := storage.NewID("prj")
		if len(id) != len("prj_")+26 || !strings.HasPrefix(id, "prj_") || strings.ToLower(id) != id {
			t.Fatalf("NewID = %q, want prj_ and 26 lowercase base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
}

// CheckSchema, which serve runs instead of migrating under
// RECLAIM_SKIP_MIGRATIONS, refuses an empty database and one an older
// version migrated, writes nothing, and passes once Migrate ran.
func TestCheckSchema(t *testing.T) {
	t.Parallel()
	backends := []struct {
		name string
		open func(t *testing.T) (url, dir string)
	}{
		{name: "sqlite", open: func(t *testing.T) (string, string) { return "", t.TempDir() }},
		{name: "postgres", open: func(t *testing.T) (string, string) { return storagetest.NewPostgresDatabase(t), "" }},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := ctxT(t)
			dbURL, dir := b.open(t)
			s, err := storage.Open(ctx, dbURL, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for range 2 { // the first check created nothing
				if err := s.CheckSchema(ctx); err == nil || !strings.Contains(err.Error(), "reclaim migrate") {
					t.Fatalf("empty database: %v; want a refusal naming reclaim migrate", err)
				}
			}
			if err := storage.MigrateBefore(ctx, s, storage.LatestMigration()); err != nil {
				t.Fatal(err)
			}
			if err := s.CheckSchema(ctx); err == nil || !strings.Contains(err.Error(), "1 of its") {
				t.Fatalf("one migration behind: %v; want a refusal counting it", err)
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.CheckSchema(ctx); err != nil {
				t.Fatalf("migrated: %v", err)
			}
		})
	}
}
