package storage_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// TestBenchmarkCasesSmall runs the ledger benchmark's seeding and every one
// of its leaderboard filters, on a ledger of 20,000 rows, and checks each
// answer against the row-by-row one: the benchmark keeps working, and its
// cases are right, in every test run.
func TestBenchmarkCasesSmall(t *testing.T) {
	t.Parallel()
	// Seeding and rebuilding take a second alone, and much longer on a
	// server busy with other tests: more than ctxT's 30 s.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dbURL := storagetest.NewPostgresDatabase(t)
	db, err := storage.Open(ctx, dbURL, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	s := storagetest.Rooms(db, storagetest.Options{})
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	l := benchLedger{project: "prj_benchsmall", rows: 20_000, payers: 5_000}
	if err := seedBench(ctx, t, s, dbURL, l); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx, l.project)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := storage.StatsFromRows(ctx, s.Rankings, l.project); err != nil || st != want || st.TotalWallets != 5_000 {
		t.Fatalf("stats %+v, rows give %+v (%v)", st, want, err)
	}
	for _, c := range leaderboardCases() {
		got, err := s.Leaderboard(ctx, l.project, c.f)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want, err := storage.LeaderboardFromRows(ctx, s.Rankings, l.project, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rollups give\n%s\nrows give\n%s", c.name, showBoard(got), showBoard(want))
		}
	}
}
