// Package storagetest gives tests a fresh, migrated store (every room of one
// storage.DB) on each
// database Reclaim runs on: SQLite in a temporary directory, and Postgres when
// RECLAIM_TEST_POSTGRES_URL names a server (scripts/testdb.sh starts one).
//
// Each Postgres store lives in a database of its own, created for the test and
// dropped after it, so tests never see each other's rows and may run in
// parallel. Without the variable the Postgres variant is skipped, unless
// CI=true: then it fails, so CI never silently tests SQLite alone.
package storagetest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/reclaim-sol/reclaim/backend/storage"
)

// EnvPostgresURL names the variable holding the Postgres server URL for tests,
// e.g. postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable.
const EnvPostgresURL = "RECLAIM_TEST_POSTGRES_URL"

// setupTimeout bounds creating, migrating and dropping a test database.
const setupTimeout = time.Minute

// Store is every room of one database, built with the options of Rooms,
// for tests that use several. Production code builds each room it needs
// (backend/cmd/reclaim).
type Store struct {
	*storage.DB
	*storage.Ledger
	*storage.Rankings
	*storage.Webhooks
	*storage.Projects
	*storage.Console
	*storage.IdempotencyKeys
}

// Options are the rooms' settings; the zero value builds each with its
// defaults.
type Options struct {
	Ledger   storage.LedgerOptions
	Rankings storage.RankingsOptions
	Webhooks storage.WebhooksOptions
}

// Rooms builds every room of db with o. Rooms of one DB share its rows: a
// test that needs a room with other options (a webhook test's Notify)
// builds a second Store of the same DB.
func Rooms(db *storage.DB, o Options) *Store {
	return &Store{
		DB:              db,
		Ledger:          storage.NewLedger(db, o.Ledger),
		Rankings:        storage.NewRankings(db, o.Rankings),
		Webhooks:        storage.NewWebhooks(db, o.Webhooks),
		Projects:        storage.NewProjects(db),
		Console:         storage.NewConsole(db),
		IdempotencyKeys: storage.NewIdempotencyKeys(db),
	}
}

// Notified is every room of s's database, with notify called after a
// transaction that wrote webhook deliveries commits (LedgerOptions.Notify,
// WebhooksOptions.Notify), as serve builds them for its delivery loop.
func Notified(s *Store, notify func()) *Store {
	return Rooms(s.DB, Options{Ledger: storage.LedgerOptions{Notify: notify}, Webhooks: storage.WebhooksOptions{Notify: notify}})
}

// Run calls fn in one subtest per backend, "sqlite" and "postgres", each with
// a fresh migrated store that is closed when the subtest ends.
func Run(t *testing.T, fn func(t *testing.T, s *Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		fn(t, SQLite(t))
	})
	t.Run("postgres", func(t *testing.T) {
		fn(t, Postgres(t))
	})
}

// SQLite returns a fresh migrated store on a SQLite file in t.TempDir().
func SQLite(t testing.TB) *Store {
	t.Helper()
	return SQLiteAt(t, t.TempDir())
}

// SQLiteAt returns a migrated store on the SQLite file of the data
// directory dir (SmallDisk's, for one), closed when the test ends.
func SQLiteAt(t testing.TB, dir string) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	s, err := storage.Open(ctx, "", dir)
	if err != nil {
		t.Fatalf("open sqlite store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate sqlite store: %v", err)
	}
	return Rooms(s, Options{})
}

// Postgres returns a fresh migrated store on a new database of the server
// named by RECLAIM_TEST_POSTGRES_URL; the database is dropped after the test.
func Postgres(t testing.TB) *Store {
	t.Helper()
	dbURL := NewPostgresDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	s, err := storage.Open(ctx, dbURL, "")
	if err != nil {
		t.Fatalf("open postgres store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate postgres store: %v", err)
	}
	return Rooms(s, Options{})
}

// PostgresURL returns RECLAIM_TEST_POSTGRES_URL. When it is empty it skips t,
// or fails it when CI=true.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvPostgresURL)
	if u != "" {
		return u
	}
	const how = `start one with: eval "$(scripts/testdb.sh)"`
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is empty and CI=true: the Postgres tests must run in CI; %s", EnvPostgresURL, how)
	}
	t.Skipf("%s is empty: skipping the Postgres variant; %s", EnvPostgresURL, how)
	return ""
}

// NewPostgresDatabase creates an empty database on the test server, drops it
// when the test ends, and returns its URL.
func NewPostgresDatabase(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	name := "reclaim_test_" + strings.TrimPrefix(storage.NewID("db"), "db_")
	dbURL, err := withDatabase(base, name)
	if err != nil {
		t.Fatalf("%s: %v", EnvPostgresURL, err)
	}
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(base)))
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		_ = admin.Close()
		t.Fatalf("create test database on %s: %v", redact(base), err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return dbURL
}

// withDatabase returns the Postgres URL u pointing at database name.
func withDatabase(u, name string) (string, error) {
	parsed, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("parse URL: %w", err)
	}
	parsed.Path = "/" + name
	parsed.RawPath = ""
	return parsed.String(), nil
}

// redact hides the password of a URL for messages.
func redact(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return parsed.Redacted()
}
