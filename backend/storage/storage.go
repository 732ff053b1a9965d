// Package storage persists projects, API keys and the reclaim ledger with bun,
// on SQLite (the default: one file under the data directory) or on Postgres
// (when DATABASE_URL is a postgres:// URL).
//
// Its rooms implement the stores the tiers below declare, each built from
// the one database handle Open returns (rooms.go). Every method is
// bounded by its context: a database that does not answer returns an error
// instead of hanging. Missing rows are reported as project.ErrNotFound or
// ledger.ErrNotFound, duplicates as project.ErrConflict or ledger.ErrDuplicate.
package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"

	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
)

// SQLiteFile is the name of the SQLite database inside the data directory.
const SQLiteFile = "reclaim.db"

// Postgres socket timeouts. A caller's context deadline, when sooner, wins;
// these bound calls made without one, so a silent server cannot hang a caller.
const (
	pgDialTimeout  = 5 * time.Second
	pgReadTimeout  = 30 * time.Second
	pgWriteTimeout = 10 * time.Second
)

// sqliteBusyTimeout is how long a SQLite writer waits for another writer (for
// instance the reclaim CLI while the server runs) before giving up.
const sqliteBusyTimeout = 5 * time.Second

// DB is the database every room shares: the connection pool, the schema
// (Migrate, CheckSchema), readiness (Ready) and observation (Pool, Trace).
// Open returns it; the rooms (NewLedger, NewRankings, NewWebhooks,
// NewProjects, NewConsole, NewIdempotency) are built from it, each with its
// options. It is safe for concurrent use.
type DB struct{ *core }

// core is what the rooms share: each room embeds it, for its unexported
// fields and helpers alone (it has no exported methods).
type core struct {
	db       *bun.DB
	postgres bool
	// lockPath is the file locked around SQLite migrations.
	lockPath string
	// pgURL is the Postgres database's, for maintenanceDB.
	pgURL string
	// rollupsReady is set once the rollups count every legacy row (see
	// rollupsUsable); bf is their backfill when it runs in the background.
	rollupsReady atomic.Bool
	bf           backfiller
	// health is what writes met lately, for Ready (health.go).
	health health
	// noOutbox, set by benchmarks, writes no webhook deliveries.
	noOutbox bool
	// confirms counts each project's confirmations, for the stats that
	// Rankings keep (stats_cache.go).
	confirms confirmations
	// closers run when the database closes (the rankings' builds).
	closeMu sync.Mutex
	closers []func()
}

// onClose has f run when the database closes, before the pool does.
func (c *core) onClose(f func()) {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	c.closers = append(c.closers, f)
}

// Open connects to databaseURL when it is a postgres:// or postgresql:// URL,
// and otherwise, when databaseURL is empty, opens (creating it if needed) the
// SQLite file <dataDir>/reclaim.db. It checks the connection but does not
// migrate: call Migrate.
func Open(ctx context.Context, databaseURL, dataDir string, opts ...Option) (*DB, error) {
	var db *DB
	var err error
	switch {
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		db, err = openPostgres(ctx, databaseURL)
	case databaseURL == "":
		db, err = openSQLite(ctx, dataDir)
	default:
		scheme, _, _ := strings.Cut(databaseURL, ":")
		return nil, fmt.Errorf("storage: unsupported database URL scheme %q (use postgres:// or leave it empty for SQLite)", scheme)
	}
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(db.core)
	}
	return db, nil
}

func openPostgres(ctx context.Context, databaseURL string) (*DB, error) {
	// pgdriver panics on a URL it cannot parse, printing it, password
	// included.
	if _, err := url.Parse(databaseURL); err != nil {
		return nil, fmt.Errorf("storage: DATABASE_URL: %w", redact.Error(err))
	}
	connector := pgdriver.NewConnector(
		pgdriver.WithDSN(databaseURL),
		pgdriver.WithDialTimeout(pgDialTimeout),
		pgdriver.WithReadTimeout(pgReadTimeout),
		pgdriver.WithWriteTimeout(pgWriteTimeout),
		pgdriver.WithApplicationName("reclaim"),
	)
	sqldb := sql.OpenDB(connector)
	// As many idle connections as open ones: with fewer, every query above
	// that concurrency opened a connection (a server process and a SCRAM
	// exchange) and closed it after; through the compose topology that
	// halved the requests a second and quadrupled the p99.
	sqldb.SetMaxOpenConns(20)
	sqldb.SetMaxIdleConns(20)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	s := &DB{&core{db: bun.NewDB(sqldb, pgdialect.New()), postgres: true, pgURL: databaseURL}}
	if err := s.db.PingContext(ctx); err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("storage: connect to postgres: %w", err)
	}
	return s, nil
}

func openSQLite(ctx context.Context, dataDir string) (*DB, error) {
	if dataDir == "" {
		return nil, errors.New("storage: no data directory for the SQLite database")
	}
	if strings.ContainsAny(dataDir, "?#") {
		return nil, fmt.Errorf("storage: data directory %q must not contain '?' or '#'", dataDir)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("storage: create data directory: %w", err)
	}
	path := filepath.Join(dataDir, SQLiteFile)
	if err := privateSQLite(path); err != nil {
		return nil, err
	}
	// The pragmas apply to every pooled connection. WAL lets readers run
	// beside one writer; busy_timeout makes a second writer (another process)
	// wait instead of failing; _txlock=immediate takes the write lock at BEGIN,
	// so two transactions never deadlock upgrading a read lock.
	dsn := "file:" + path +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	sqldb, err := sql.Open(sqliteshim.ShimName, dsn)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	sqldb.SetMaxOpenConns(8)
	sqldb.SetMaxIdleConns(8)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	s := &DB{&core{db: bun.NewDB(sqldb, sqlitedialect.New()), lockPath: path + ".migrate.lock"}}
	if err := pingSQLite(ctx, s.db); err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	return s, nil
}

// privateSQLite makes the database at path readable by this user alone,
// whatever the directory's mode and the process's umask: it holds password
// hashes, API keys' HMACs and sealed webhook secrets. It creates the file
// 0600 when it is missing (SQLite would create it 0644, less the umask) and
// takes the group's and others' bits off the file and the journals beside
// it when they exist. SQLite gives the journals it creates later (-wal,
// -shm, -journal) the database file's mode.
func privateSQLite(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600) //nolint:gosec // G304: the data directory is the operator's setting
	if err != nil {
		return fmt.Errorf("storage: create %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("storage: create %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		info, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("storage: %w", err)
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&^0o077); err != nil {
				return fmt.Errorf("storage: %s is readable by other users (mode %#o) and cannot be made private: %w; make it mode 0600 and owned by the user running reclaim", p, perm, err)
			}
		}
	}
	return nil
}

// pingSQLite opens the first connection, again while the file is busy, for
// at most sqliteBusyTimeout: a new file's first connection sets WAL mode
// under an exclusive lock, and SQLite answers SQLITE_BUSY at once, without
// the busy timeout, to a connection opened at that moment (several processes
// starting together on one new file; one in ten runs of
// TestMigrateConcurrently on a loaded machine).
func pingSQLite(ctx context.Context, db *bun.DB) error {
	deadline := time.Now().Add(sqliteBusyTimeout)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := db.PingContext(ctx)
		if err == nil || !strings.Contains(err.Error(), "database is locked") || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// maintenanceDB returns the database for statements that may run for
// minutes on a large ledger (building an index, counting it in the
// rollups): on Postgres a connection of its own without the read timeout,
// bounded by the caller's context alone. Call done when finished.
func (s *core) maintenanceDB() (db *bun.DB, done func()) {
	if !s.postgres {
		return s.db, func() {}
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(
		pgdriver.WithDSN(s.pgURL),
		pgdriver.WithDialTimeout(pgDialTimeout),
		pgdriver.WithReadTimeout(0),
		pgdriver.WithWriteTimeout(pgWriteTimeout),
		pgdriver.WithApplicationName("reclaim maintenance"),
	))
	sqldb.SetMaxOpenConns(1)
	db = bun.NewDB(sqldb, pgdialect.New())
	return db, func() { _ = db.Close() }
}

// Close stops what the rooms run in the background and closes the
// database: every room built from it with it.
func (s *DB) Close() error {
	s.stopBackfill()
	s.closeMu.Lock()
	closers := s.closers
	s.closers = nil
	s.closeMu.Unlock()
	for _, f := range closers {
		f()
	}
	return s.db.Close()
}

// NewID returns a random identifier: prefix, an underscore and 26 lowercase
// base32 characters (128 bits), e.g. NewID("prj") = "prj_k5x...".
func NewID(prefix string) string {
	return prefix + "_" + strings.ToLower(rand.Text())
}

// now is the time stored for a new row: UTC, to the microsecond both
// databases keep, so what is written is what is read back.
func now() time.Time {
	return utc(time.Now())
}

func utc(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utc(*t)
	return &u
}

// isUniqueViolation reports whether err is a unique (or primary key)
// constraint violation on either database.
func isUniqueViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23505"
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}
