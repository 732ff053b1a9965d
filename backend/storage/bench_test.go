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

	"github.com/reclaim-sol/reclaim/backend/ledger"
	"github.com/reclaim-sol/reclaim/backend/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// The 1M-row benchmarks run on Postgres only, against the server named by
// RECLAIM_BENCH_POSTGRES_URL (or RECLAIM_TEST_POSTGRES_URL), in a database
// "reclaim_bench" that is seeded once and reused:
//
//	eval "$(scripts/testdb.sh)"
//	go test ./backend/storage -run '^$' -bench 1M -benchtime 20x
const (
	benchDatabase = "reclaim_bench"
	benchProject  = "prj_bench1m"
	benchRows     = 1_000_000
	benchPayers   = 50_000
	benchChunk    = 100_000
)

func BenchmarkStats1M(b *testing.B) {
	s := benchStore(b)
	ctx := b.Context()
	b.ResetTimer()
	for b.Loop() {
		st, err := s.Stats(ctx, benchProject)
		if err != nil {
			b.Fatal(err)
		}
		if st.TotalTransactionCount == 0 {
			b.Fatal("no rows counted")
		}
	}
	reportMillis(b)
}

func BenchmarkLeaderboard1M(b *testing.B) {
	s := benchStore(b)
	ctx := b.Context()
	day := func(s string) *time.Time { t, _ := time.Parse("2006-01-02", s); return &t }
	cases := []struct {
		name string
		f    ledger.Filter
	}{
		{name: "default page", f: ledger.Filter{Limit: 100}},
		{name: "deep page", f: ledger.Filter{Limit: 100, Offset: 49_900}},
		{name: "payer", f: ledger.Filter{Payer: benchPayer(4242), Limit: 100}},
		{name: "type", f: ledger.Filter{Type: ledger.TypeNFTBurn, Limit: 100}},
		{name: "one month", f: ledger.Filter{Start: day("2025-06-01"), End: day("2025-07-01"), Limit: 100}},
		{name: "whole year (worst case: every row)", f: ledger.Filter{Start: day("2025-01-01"), End: day("2026-01-01"), Limit: 100}},
		{name: "one day", f: ledger.Filter{Start: day("2025-06-01"), End: day("2025-06-02"), Limit: 100}},
		{name: "type and month", f: ledger.Filter{Type: ledger.TypeTokenBurn, Start: day("2025-06-01"), End: day("2025-07-01"), Limit: 100}},
		{name: "payer, type and year", f: ledger.Filter{Payer: benchPayer(4242), Type: ledger.TypeTokenBurn, Start: day("2025-01-01"), End: day("2026-01-01"), Limit: 100}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				entries, err := s.Leaderboard(ctx, benchProject, c.f)
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

// benchStore opens the benchmark database, creating and seeding it the first
// time.
func benchStore(b *testing.B) *storage.Store {
	b.Helper()
	base := os.Getenv("RECLAIM_BENCH_POSTGRES_URL")
	if base == "" {
		base = storagetest.PostgresURL(b)
	}
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	dbURL, err := createDatabaseIfMissing(ctx, base, benchDatabase)
	if err != nil {
		b.Fatal(err)
	}
	s, err := storage.Open(ctx, dbURL, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := seedBench(ctx, b, s, dbURL); err != nil {
		b.Fatal(err)
	}
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

// seedBench inserts benchRows ledger rows for benchPayers payers over 2025,
// unless they are there already. 97% are confirmed; a quarter donate.
func seedBench(ctx context.Context, b *testing.B, s *storage.Store, dbURL string) error {
	if _, err := s.GetProject(ctx, benchProject); errors.Is(err, project.ErrNotFound) {
		if _, err := s.CreateProject(ctx, project.Project{ID: benchProject, Name: "bench"}); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dbURL), pgdriver.WithReadTimeout(5*time.Minute)))
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM reclaim_transactions WHERE project_id = $1", benchProject).Scan(&n); err != nil {
		return err
	}
	if n == benchRows {
		return nil
	}
	b.Logf("seeding %d ledger rows (once per database)", benchRows)
	start := time.Now()
	if _, err := db.ExecContext(ctx, "DELETE FROM reclaim_transactions WHERE project_id = $1", benchProject); err != nil {
		return err
	}
	// i picks the payer (i * 7919 mod payers: each payer gets every 50,000th
	// row) and the time; v varies status, amount and donation within a payer.
	const insert = `
INSERT INTO reclaim_transactions (id, project_id, payer, type, gross_rebate, net_rebate, donation_amount,
	network_fee, service_fee, fees, item_count, signature, ticket_jti, status, error, created_at, confirmed_at)
SELECT 'tx_bench_' || i, $1, lpad((i * 7919 % $2)::text, 44, '0'),
	(ARRAY['token_account_closure', 'token_burn', 'nft_burn'])[1 + i % 3],
	g, g - 5000 - g / 200 - d, d, 5000, g / 200, 5000 + g / 200, 1 + v % 7,
	'sig_bench_' || i, 'jti_bench_' || i,
	CASE WHEN v % 100 < 97 THEN 'confirmed' WHEN v % 100 < 99 THEN 'failed' ELSE 'submitted' END, '',
	ts, CASE WHEN v % 100 < 97 THEN ts + interval '20 seconds' END
FROM (
	SELECT i, v, 2039280 * (1 + v % 5) + v % 1000 AS g,
		CASE WHEN v % 4 = 0 THEN 2039280 * (1 + v % 5) / 10 ELSE 0 END AS d,
		timestamptz '2025-01-01 00:00:00+00' + ((i * 104729) % $3) * interval '31.536 seconds' AS ts
	FROM (SELECT i, i + i / $2 * 37 AS v FROM generate_series($4::bigint, $5::bigint) AS i) AS n
) AS rows`
	for lo := 0; lo < benchRows; lo += benchChunk {
		if _, err := db.ExecContext(ctx, insert, benchProject, benchPayers, benchRows, lo, lo+benchChunk-1); err != nil {
			return fmt.Errorf("seed rows %d+: %w", lo, err)
		}
	}
	// The rows went in behind the store's back: recompute its totals.
	if err := s.RebuildPayerTotals(ctx); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE reclaim_transactions, reclaim_payer_totals"); err != nil {
		return err
	}
	b.Logf("seeded in %v", time.Since(start).Round(time.Millisecond))
	return nil
}
