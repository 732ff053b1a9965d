package storage_test

import (
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// attempt is a line of the submission log for p: a ledger write.
func attempt(p string) ledger.Attempt {
	return ledger.Attempt{ProjectID: p, Payer: "P", Status: "failed", Code: "INVALID_TICKET", Message: "m", CreatedAt: time.Now()}
}

// A SQLite ledger on a disk that fills up: its writes fail as
// ledger.ErrStorageFull, Ready says so, and both recover once space is
// freed.
func TestStorageFull(t *testing.T) {
	dir := storagetest.SmallDisk(t, 8<<20)
	ctx := ctxT(t)
	s := storagetest.SQLiteAt(t, dir)
	p, err := s.CreateProject(ctx, project.Project{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("ready with room: %v", err)
	}
	free := storagetest.FillDisk(t, dir)
	if err := s.Ready(ctx); !errors.Is(err, ledger.ErrStorageFull) {
		t.Fatalf("ready on a full disk: %v, want ErrStorageFull", err)
	}
	if err := s.LogAttempt(ctx, attempt(p.ID)); !errors.Is(err, ledger.ErrStorageFull) {
		t.Fatalf("log on a full disk: %v, want ErrStorageFull", err)
	}
	claim := ledger.Entry{ProjectID: p.ID, Payer: "P", Type: ledger.TypeTokenAccountClosure, Signature: "sig", TicketJTI: "jti", CreatedAt: time.Now()}
	if err := s.ClaimTicket(ctx, claim); !errors.Is(err, ledger.ErrStorageFull) {
		t.Fatalf("claim on a full disk: %v, want ErrStorageFull", err)
	}
	free()
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("ready once space is freed: %v", err)
	}
	if err := s.ClaimTicket(ctx, claim); err != nil {
		t.Fatalf("claim once space is freed: %v", err)
	}
}

// A Postgres database made read-only (default_transaction_read_only, as on
// a standby): Ready says so, and writes fail as ledger.ErrReadOnly.
func TestStorageReadOnly(t *testing.T) {
	dbURL := storagetest.NewPostgresDatabase(t)
	ctx := ctxT(t)
	open := func() *storagetest.Store {
		s, err := storage.Open(ctx, dbURL, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return storagetest.Rooms(s, storagetest.Options{})
	}
	s := open()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := s.CreateProject(ctx, project.Project{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("ready: %v", err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(storagetest.PostgresURL(t))))
	defer admin.Close()
	name := u.Path[1:]
	if _, err := admin.ExecContext(ctx, `ALTER DATABASE "`+name+`" SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	ro := open() // sessions opened from now on are read-only
	if err := ro.Ready(ctx); !errors.Is(err, ledger.ErrReadOnly) {
		t.Fatalf("ready on a read-only database: %v, want ErrReadOnly", err)
	}
	if err := ro.LogAttempt(ctx, attempt(p.ID)); !errors.Is(err, ledger.ErrReadOnly) {
		t.Fatalf("log on a read-only database: %v, want ErrReadOnly", err)
	}
	if _, err := admin.ExecContext(ctx, `ALTER DATABASE "`+name+`" RESET default_transaction_read_only`); err != nil {
		t.Fatal(err)
	}
	if err := open().Ready(ctx); err != nil {
		t.Fatalf("ready once writable again: %v", err)
	}
}

// The drivers' errors for a full or read-only database, produced by the
// real engines, map to ledger.ErrStorageFull and ledger.ErrReadOnly; other
// errors to nothing. On Postgres, a write refused for want of space makes
// Ready report the store full until a ledger insert succeeds, or for
// FullHold.
func TestStorageConditions(t *testing.T) {
	ctx := ctxT(t)
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open(sqliteshim.ShimName, "file:"+filepath.Join(t.TempDir(), "c.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1) // the pragmas below are the connection's
		for _, q := range []string{"CREATE TABLE t (b BLOB)", "INSERT INTO t VALUES (zeroblob(10))"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		exec := func(q string) error { _, err := db.ExecContext(ctx, q); return err }
		_ = exec("PRAGMA query_only = 1")
		readOnly := exec("INSERT INTO t VALUES (zeroblob(10))")
		_ = exec("PRAGMA query_only = 0")
		_ = exec("PRAGMA max_page_count = 1") // no more pages than it has: as a full disk
		full := exec("INSERT INTO t VALUES (zeroblob(100000))")
		unique := exec("CREATE TABLE t (b BLOB)")
		checkConditions(t, full, readOnly, unique)
	})
	t.Run("postgres", func(t *testing.T) {
		s := storagetest.Postgres(t)
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(storagetest.PostgresURL(t))))
		defer db.Close()
		raise := func(code string) error {
			_, err := db.ExecContext(ctx, "DO $$ BEGIN RAISE EXCEPTION 'raised' USING ERRCODE = '"+code+"'; END $$")
			return err
		}
		full := raise("disk_full") // 53100, as "could not extend file"
		checkConditions(t, full, raise("read_only_sql_transaction"), raise("unique_violation"))

		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		var pgErr pgdriver.Error
		if err := storage.WriteFailed(s.DB, full); !errors.Is(err, ledger.ErrStorageFull) || !errors.As(err, &pgErr) {
			t.Fatalf("write error %v", err)
		}
		if err := s.Ready(ctx); !errors.Is(err, ledger.ErrStorageFull) {
			t.Fatalf("ready after a write refused for want of space: %v", err)
		}
		if err := storage.ConditionAt(s.DB, time.Now().Add(storage.FullHold)); err != nil {
			t.Fatalf("still full %v later: %v", storage.FullHold, err)
		}
		if err := s.LogAttempt(ctx, attempt(p.ID)); err != nil {
			t.Fatal(err)
		}
		if err := s.Ready(ctx); err != nil {
			t.Fatalf("ready after a ledger insert succeeded: %v", err)
		}
	})
}

func checkConditions(t *testing.T, full, readOnly, other error) {
	t.Helper()
	for _, c := range []struct {
		err, want error
	}{{full, ledger.ErrStorageFull}, {readOnly, ledger.ErrReadOnly}, {other, nil}} {
		if c.err == nil {
			t.Fatalf("no error where %v was expected", c.want)
		}
		if got := storage.Condition(c.err); !errors.Is(got, c.want) || (c.want == nil && got != nil) {
			t.Errorf("%v: condition %v, want %v", c.err, got, c.want)
		}
	}
}
