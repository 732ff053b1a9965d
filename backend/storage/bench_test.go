package storage_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// The ledger benchmarks run on Postgres only, against the server named by
// RECLAIM_BENCH_POSTGRES_URL (or RECLAIM_TEST_POSTGRES_URL), in a database
// that is seeded once and reused: "reclaim_bench" with 1,000,000 rows (about
// a minute to seed), "reclaim_bench10m" with 10,000,000 (about a quarter of
// an hour; only with RECLAIM_BENCH_10M=1). RECLAIM_BENCH_DATABASE names
// another database. docs/performance.md has the figures.
//
//	eval "$(scripts/testdb.sh)"
//	go test ./backend/storage -run '^$' -bench 1M -benchtime 20x
//	RECLAIM_BENCH_10M=1 go test ./backend/storage -run '^$' -bench 10M -benchtime 20x -timeout 2h
type benchLedger struct {
	database, project string
	rows, payers      int
}

var (
	ledger1M  = benchLedger{database: "reclaim_bench", project: "prj_bench1m", rows: 1_000_000, payers: 50_000}
	ledger10M = benchLedger{database: "reclaim_bench10m", project: "prj_bench10m", rows: 10_000_000, payers: 50_000}
)

// benchChunk is how many rows one seeding statement inserts.
const benchChunk = 100_000

func BenchmarkStats1M(b *testing.B)        { benchStats(b, ledger1M) }
func BenchmarkStats10M(b *testing.B)       { benchStats(b, ledger10M) }
func BenchmarkLeaderboard1M(b *testing.B)  { benchLeaderboard(b, ledger1M) }
func BenchmarkLeaderboard10M(b *testing.B) { benchLeaderboard(b, ledger10M) }

func benchStats(b *testing.B, l benchLedger) {
	s := benchStore(b, l)
	ctx := b.Context()
	b.ResetTimer()
	for b.Loop() {
		st, err := s.Stats(ctx, l.project)
		if err != nil {
			b.Fatal(err)
		}
		if st.TotalTransactionCount == 0 {
			b.Fatal("no rows counted")
		}
	}
	reportMillis(b)
}

// leaderboardCase is one filter the benchmarks time.
type leaderboardCase struct {
	name string
	f    ledger.Filter
}

// leaderboardCases are the filters of the benchmarks: every kind of range
// the rollups answer differently, over the seeded year 2025.
func leaderboardCases() []leaderboardCase {
	at := func(s string) *time.Time {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t, err = time.Parse("2006-01-02", s)
		}
		if err != nil {
			panic(err)
		}
		return &t
	}
	f := func(payer, typ, start, end string, offset int) ledger.Filter {
		f := ledger.Filter{Payer: payer, Type: typ, Limit: 100, Offset: offset}
		if start != "" {
			f.Start = at(start)
		}
		if end != "" {
			f.End = at(end)
		}
		return f
	}
	p := benchPayer(4242)
	return []leaderboardCase{
		{"default page", f("", "", "", "", 0)},
		{"deep page", f("", "", "", "", 49_900)},
		{"payer", f(p, "", "", "", 0)},
		{"type", f("", ledger.TypeNFTBurn, "", "", 0)},
		{"one month", f("", "", "2025-06-01", "2025-07-01", 0)},
		{"whole year (worst case: every row)", f("", "", "2025-01-01", "2026-01-01", 0)},
		{"one day", f("", "", "2025-06-01", "2025-06-02", 0)},
		{"type and month", f("", ledger.TypeTokenBurn, "2025-06-01", "2025-07-01", 0)},
		{"payer, type and year", f(p, ledger.TypeTokenBurn, "2025-01-01", "2026-01-01", 0)},
		{"one month, deep page", f("", "", "2025-06-01", "2025-07-01", 30_000)},
		{"whole year, deep page", f("", "", "2025-01-01", "2026-01-01", 49_900)},
		{"since June (no end)", f("", "", "2025-06-01", "", 0)},
		{"payer, since June 15", f(p, "", "2025-06-15", "", 0)},
		{"one week (days)", f("", "", "2025-06-09", "2025-06-16", 0)},
		{"June 15 to August 15 (days and a month)", f("", "", "2025-06-15", "2025-08-15", 0)},
		{"one month from noon to noon (timestamps)", f("", "", "2025-06-01T12:00:00Z", "2025-07-01T12:00:00Z", 0)},
		{"one hour (timestamps)", f("", "", "2025-06-01T12:00:00Z", "2025-06-01T13:00:00Z", 0)},
	}
}

func benchLeaderboard(b *testing.B, l benchLedger) {
	s := benchStore(b, l)
	ctx := b.Context()
	for _, c := range leaderboardCases() {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				entries, err := s.Leaderboard(ctx, l.project, c.f)
				if err != nil {
					b.Fatal(err)
				}
				if len(entries) == 0 {
					b.Fatal("empty leaderboard")
				}
			}
			reportMillis(b)
		})
	}
}

func reportMillis(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/query")
}

// benchPayer is the payer address of payer number i, as seeded.
func benchPayer(i int) string {
	return fmt.Sprintf("%044d", i)
}

// benchStore opens the benchmark database of l, creating and seeding it the
// first time.
func benchStore(b *testing.B, l benchLedger) *storagetest.Store {
	b.Helper()
	if l.rows > ledger1M.rows && os.Getenv("RECLAIM_BENCH_10M") != "1" {
		b.Skip("the 10M-row ledger is benchmarked with RECLAIM_BENCH_10M=1 (seeding it takes a quarter of an hour)")
	}
	if n := os.Getenv("RECLAIM_BENCH_DATABASE"); n != "" {
		l.database = n
	}
	base := os.Getenv("RECLAIM_BENCH_POSTGRES_URL")
	if base == "" {
		base = storagetest.PostgresURL(b)
	}
	ctx, cancel := context.WithTimeout(b.Context(), 2*time.Hour)
	defer cancel()
	dbURL, err := createDatabaseIfMissing(ctx, base, l.database)
	if err != nil {
		b.Fatal(err)
	}
	db, err := storage.Open(ctx, dbURL, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	s := storagetest.Rooms(db, storagetest.Options{})
	started := time.Now()
	if err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := s.WaitForRollups(ctx); err != nil {
		b.Fatal(err)
	}
	if took := time.Since(started); took > time.Second {
		b.Logf("migrated in %v", took.Round(time.Millisecond))
	}
	if err := seedBench(ctx, b, s, dbURL, l); err != nil {
		b.Fatal(err)
	}
	started = time.Now()
	if err := s.WarmRanking(ctx, l.project); err != nil {
		b.Fatal(err)
	}
	b.Logf("ranked in memory in %v", time.Since(started).Round(time.Millisecond))
	return s
}

func createDatabaseIfMissing(ctx context.Context, base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(base)))
	defer admin.Close()
	var exists bool
	if err := admin.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if !exists {
		if _, err := admin.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
			return "", err
		}
	}
	u.Path = "/" + name
	return u.String(), nil
}

// seedRows inserts the ledger rows $4 to $5 of $3, for $2 payers, over 2025,
// in project $1. i picks the payer (i * 7919 mod payers: each payer gets
// every payers-th row) and the time (i * 104729 mod rows, spread evenly over
// the year: neither is a factor of 10); v varies status, amount and
// donation within a payer. 97% are confirmed; a quarter donate.
const seedRows = `
INSERT INTO reclaim_transactions (id, project_id, payer, type, gross_rebate, net_rebate, donation_amount,
	network_fee, service_fee, fees, item_count, signature, ticket_jti, status, error, created_at, confirmed_at%[1]s)
SELECT 'tx_bench_' || i, $1, lpad((i * 7919 %% $2)::text, 44, '0'),
	(ARRAY['token_account_closure', 'token_burn', 'nft_burn'])[1 + i %% 3],
	g, g - 5000 - g / 200 - d, d, 5000, g / 200, 5000 + g / 200, 1 + v %% 7,
	'sig_bench_' || i, 'jti_bench_' || i,
	CASE WHEN v %% 100 < 97 THEN 'confirmed' WHEN v %% 100 < 99 THEN 'failed' ELSE 'submitted' END, '',
	ts, CASE WHEN v %% 100 < 97 THEN ts + interval '20 seconds' END%[2]s
FROM (
	SELECT i, v, 2039280 * (1 + v %% 5) + v %% 1000 AS g,
		CASE WHEN v %% 4 = 0 THEN 2039280 * (1 + v %% 5) / 10 ELSE 0 END AS d,
		timestamptz '2025-01-01 00:00:00+00' + ((i * 104729) %% $3) * (31536000000000 / $3) * interval '1 microsecond' AS ts
	FROM (SELECT i, i + i / $2 * 37 AS v FROM generate_series($4::bigint, $5::bigint) AS i) AS n
) AS rows`

// seedBench inserts the rows of l in SQL, unless they are there already,
// then builds the totals and rollups from them.
func seedBench(ctx context.Context, b testing.TB, s *storagetest.Store, dbURL string, l benchLedger) error {
	if _, err := s.GetProject(ctx, l.project); errors.Is(err, project.ErrNotFound) {
		if _, err := s.CreateProject(ctx, project.Project{ID: l.project, Name: "bench"}); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	// The store's connections time out reads after 30 s; seeding runs
	// statements for minutes.
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dbURL), pgdriver.WithReadTimeout(time.Hour)))
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM reclaim_transactions WHERE project_id = $1", l.project).Scan(&n); err != nil {
		return err
	}
	if n == l.rows {
		return nil
	}
	b.Logf("seeding %d ledger rows (once per database)", l.rows)
	start := time.Now()
	if _, err := db.ExecContext(ctx, "DELETE FROM reclaim_transactions WHERE project_id = $1", l.project); err != nil {
		return fmt.Errorf("delete rows: %w", err)
	}
	// Counted by the rebuild below.
	insert := fmt.Sprintf(seedRows, ", rollup_state", ", 2")
	for lo := 0; lo < l.rows; lo += benchChunk {
		if _, err := db.ExecContext(ctx, insert, l.project, l.payers, l.rows, lo, lo+benchChunk-1); err != nil {
			return fmt.Errorf("seed rows %d+: %w", lo, err)
		}
	}
	b.Logf("inserted in %v", time.Since(start).Round(time.Millisecond))
	if err := s.RebuildPayerTotals(ctx); err != nil {
		return err
	}
	b.Logf("rebuilt in %v", time.Since(start).Round(time.Millisecond))
	if _, err := db.ExecContext(ctx, `VACUUM ANALYZE reclaim_transactions, reclaim_payer_totals, reclaim_rollup_days,
		reclaim_rollup_periods, reclaim_project_days, reclaim_project_totals`); err != nil {
		return err
	}
	b.Logf("seeded in %v", time.Since(start).Round(time.Millisecond))
	return nil
}
