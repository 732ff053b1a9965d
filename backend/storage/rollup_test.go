package storage_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// TestRollupsEqualRows builds random ledgers through every way a row gets
// counted (confirmed on insert, confirmed later with landed figures, counted
// by the backfill of migration 9 in small interrupted batches, confirmed by
// an older version and caught up, rebuilt) and checks that stats,
// leaderboards with random filters (days, timestamps, boundaries of days,
// months and years, types, payers, pages) and daily totals from the rollups
// equal the row-by-row answers, to the lamport, whether the pages are
// ranked in SQL or in memory (a ranking built once, then brought up to date
// at every stage). RECLAIM_TEST_SEED replays a seed.
func TestRollupsEqualRows(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RECLAIM_TEST_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		t.Logf("RECLAIM_TEST_SEED=%d", seed)
		// Every stage on one context: seconds alone, past ctxT's 30 s on a
		// machine busy with other tests (as TestRankingBudget).
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		g := newLedgerGen(seed)
		projectID, otherID := g.projects(t, s)
		g.record(t, s, projectID, 150, recording{})
		g.record(t, s, otherID, 20, recording{})
		g.check(t, s, projectID, "confirmed as recorded", true)

		// The same ledger recorded before migration 9, two of its rows
		// without confirmation time, then confirmations by an older version.
		g.record(t, s, projectID, 40, recording{inFlight: true})
		for _, jti := range g.confirmed[:2] {
			if err := storage.Undate(ctx, s.DB, jti); err != nil {
				t.Fatal(err)
			}
		}
		if err := storage.ForgetRollups(ctx, s.Rankings); err != nil {
			t.Fatal(err)
		}
		g.confirmAsBefore(t, s)
		g.check(t, s, projectID, "before the backfill", false)
		for _, size := range []int{1, 3, 7} {
			if _, err := storage.BackfillSome(ctx, s.DB, 2, size); err != nil {
				t.Fatal(err)
			}
			g.record(t, s, projectID, 3, recording{}) // confirmed meanwhile
			g.check(t, s, projectID, fmt.Sprintf("backfill interrupted after batches of %d", size), false)
		}
		if err := s.Migrate(ctx); err != nil { // resumes, catches up
			t.Fatal(err)
		}
		g.check(t, s, projectID, "backfilled and caught up", true)
		g.check(t, s, otherID, "backfilled, other project", true)

		// An older instance still confirming during a rolling upgrade: its
		// rows are not in the rollups until the next start catches them up.
		g.record(t, s, projectID, 20, recording{inFlight: true})
		g.confirmAsBefore(t, s)
		g.check(t, s, projectID, "confirmed by an older version", false)
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		g.check(t, s, projectID, "caught up", true)

		// A version with rollups but without migration 10 confirming during
		// a rolling upgrade: the ranking no longer counts what the totals
		// count, and is built again.
		g.record(t, s, projectID, 20, recording{inFlight: true})
		for _, jti := range g.inFlight {
			e, err := s.EntryByTicketJTI(ctx, jti)
			if err != nil {
				t.Fatal(err)
			}
			if err := storage.ConfirmWithoutRanking(ctx, s.Ledger, jti, e.Figures(), g.instant()); err != nil {
				t.Fatal(err)
			}
		}
		g.inFlight = nil
		g.check(t, s, projectID, "confirmed without ranking versions", true)

		g.record(t, s, projectID, 30, recording{})
		if err := s.RebuildPayerTotals(ctx); err != nil {
			t.Fatal(err)
		}
		g.check(t, s, projectID, "rebuilt", true)
	})
}

// ledgerGen makes random ledgers and filters. Times cluster around the
// boundaries of days, months and years, figures repeat so that totals tie.
type ledgerGen struct {
	r         *rand.Rand
	payers    []string
	n         int
	confirmed []string // jtis of confirmed rows
	inFlight  []string // submitted, to confirm later
}

func newLedgerGen(seed uint64) *ledgerGen {
	g := &ledgerGen{r: rand.New(rand.NewPCG(seed, 0))}
	for range 9 {
		var k solana.PublicKey
		for i := range k {
			k[i] = byte(g.r.IntN(256))
		}
		g.payers = append(g.payers, k.String())
	}
	// Two that differ only in case: byte order, not a natural collation.
	g.payers = append(g.payers, "Tie1111111111111111111111111111111111111111", "tie1111111111111111111111111111111111111111")
	return g
}

func (g *ledgerGen) projects(t *testing.T, s *storagetest.Store) (string, string) {
	t.Helper()
	var ids []string
	for _, name := range []string{"p", "other"} {
		p, err := s.CreateProject(ctxT(t), project.Project{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	return ids[0], ids[1]
}

// boundaries are instants the generator and the filters gather around.
var boundaries = []time.Time{
	time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC),
	time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC),
	time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2025, 6, 15, 0, 0, 0, 0, time.UTC),
	time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
}

// instant is a random time: a boundary, a boundary plus or minus a little
// (a microsecond to days), or anywhere from late 2024 to early 2026.
func (g *ledgerGen) instant() time.Time {
	b := boundaries[g.r.IntN(len(boundaries))]
	switch g.r.IntN(4) {
	case 0:
		return b
	case 1:
		return b.Add(time.Duration(g.r.IntN(3)-1) * time.Microsecond)
	case 2:
		return b.Add(time.Duration(g.r.Int64N(int64(72*time.Hour))) - 36*time.Hour).Truncate(time.Microsecond)
	default:
		return boundaries[0].Add(time.Duration(g.r.Int64N(int64(450 * 24 * time.Hour)))).Truncate(time.Microsecond)
	}
}

// recording says how record records entries: inFlight leaves about half in
// flight (for confirmAsBefore) instead of confirming them; before records
// them as a version before migration 9 did (and leaves in flight those it
// does not confirm on insert).
type recording struct{ inFlight, before bool }

// record adds n entries: confirmed on insert or later with landed figures,
// failed, or left in flight.
func (g *ledgerGen) record(t *testing.T, s *storagetest.Store, projectID string, n int, how recording) {
	t.Helper()
	ctx := ctxT(t)
	for range n {
		g.n++
		jti := fmt.Sprintf("jti-%d", g.n)
		gross := []int64{0, 1_000_000, 2_039_280, 3_000_000}[g.r.IntN(4)]
		donation := []int64{0, 0, 100_000}[g.r.IntN(3)]
		service := []int64{0, 10_000}[g.r.IntN(2)]
		if gross == 0 {
			donation, service = 0, 0 // a cNFT burn: no rent, the fee only
		}
		types := ledger.Types
		if how.before || how.inFlight {
			// What a version before migration 9 (or 14), which confirms
			// these, knew (docs/decisions.md, "type counts").
			types = ledger.Types[:3]
		}
		e := entry(jti, g.payers[g.r.IntN(len(g.payers))], types[g.r.IntN(len(types))], gross, donation, service, ledger.StatusSubmitted, nil)
		e.ProjectID, e.CreatedAt = projectID, g.instant()
		at := g.instant()
		k := g.r.IntN(10)
		switch {
		case k == 0:
			e.Status = ledger.StatusFailed
		case k < 5:
			e.Status, e.ConfirmedAt = ledger.StatusConfirmed, &at
			g.confirmed = append(g.confirmed, jti)
		case how.inFlight || how.before:
			g.inFlight = append(g.inFlight, jti)
		}
		insert := s.InsertEntry
		if how.before {
			insert = func(ctx context.Context, e ledger.Entry) error { return storage.InsertAsBefore(ctx, s.DB, e) }
		}
		if err := insert(ctx, e); err != nil {
			t.Fatal(err)
		}
		if e.Status == ledger.StatusSubmitted && !how.inFlight && !how.before {
			landed := e.Figures()
			landed.NetworkFee += int64(g.r.IntN(20_000)) // a wallet that raised its priority fee
			landed.NetRebate = landed.GrossRebate - landed.Fees() - landed.DonationAmount
			if ok, err := s.ConfirmEntry(ctx, jti, landed, 0, at); err != nil || !ok {
				t.Fatalf("confirm %s: %v %v", jti, ok, err)
			}
			g.confirmed = append(g.confirmed, jti)
		}
	}
}

func (g *ledgerGen) confirmAsBefore(t *testing.T, s *storagetest.Store) {
	t.Helper()
	for _, jti := range g.inFlight {
		if err := storage.ConfirmAsBefore(ctxT(t), s.DB, jti, g.instant()); err != nil {
			t.Fatal(err)
		}
	}
	g.inFlight = nil
}

// filter is a random leaderboard filter.
func (g *ledgerGen) filter() ledger.Filter {
	f := ledger.Filter{Limit: 1 + g.r.IntN(12), Offset: g.r.IntN(8)}
	if g.r.IntN(4) == 0 {
		f.Payer = g.payers[g.r.IntN(len(g.payers))]
	}
	if g.r.IntN(3) == 0 {
		f.Type = ledger.Types[g.r.IntN(len(ledger.Types))]
	}
	bound := func() *time.Time {
		if g.r.IntN(5) == 0 {
			return nil
		}
		t := g.instant()
		switch g.r.IntN(4) { // as ParseFilter gives a day, or aligned further
		case 0:
			t = t.Truncate(24 * time.Hour)
		case 1:
			t = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		case 2:
			t = time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		}
		return &t
	}
	f.Start, f.End = bound(), bound()
	if f.Start == nil && f.End == nil {
		f.Start = bound()
	}
	if f.Start != nil && f.End != nil && !f.Start.Before(*f.End) {
		f.Start, f.End = f.End, f.Start
		if f.Start.Equal(*f.End) {
			f.Start = nil
		}
	}
	return f
}

// check compares every answer of projectID with the row-by-row one;
// fromRollups says whether the rollups should be answering. It plans the
// ranges as for this ledger, then as for a dense one (where the plans widen
// to months and years and subtract) and a sparse one.
func (g *ledgerGen) check(t *testing.T, s *storagetest.Store, projectID, stage string, fromRollups bool) {
	t.Helper()
	storage.RankIn(s.Rankings, false)
	g.checkPlanned(t, s, projectID, stage, fromRollups)
	storage.PlanAs(s.Rankings, 27_000, 50_000)
	g.checkPlanned(t, s, projectID, stage+", planned dense", fromRollups)
	storage.PlanAs(s.Rankings, 1, 1e9)
	g.checkPlanned(t, s, projectID, stage+", planned sparse", fromRollups)
	storage.PlanAs(s.Rankings, 0, 0)
	storage.RankIn(s.Rankings, true)
	before := storage.RankedInMemory(s.Rankings)
	g.checkPlanned(t, s, projectID, stage+", ranked in memory", fromRollups)
	if fromRollups && storage.RankedInMemory(s.Rankings) == before {
		t.Fatalf("%s: no page was ranked in memory", stage)
	}
}

func (g *ledgerGen) checkPlanned(t *testing.T, s *storagetest.Store, projectID, stage string, fromRollups bool) {
	t.Helper()
	ctx := ctxT(t)
	if ok, err := storage.RollupsUsable(ctx, s.Rankings, projectID); err != nil || ok != fromRollups {
		t.Fatalf("%s: rollups usable = %v, %v; want %v", stage, ok, err, fromRollups)
	}
	st, err := s.Stats(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := storage.StatsFromRows(ctx, s.Rankings, projectID); err != nil || st != want {
		t.Fatalf("%s: stats %+v, rows give %+v (%v)", stage, st, want, err)
	}
	filters := []ledger.Filter{{Limit: 100}, {Start: &boundaries[0], Limit: 100}, {Start: &time.Time{}, Limit: 100}}
	for range 150 {
		filters = append(filters, g.filter())
	}
	for _, f := range filters {
		got, err := s.Leaderboard(ctx, projectID, f)
		if err != nil {
			t.Fatalf("%s: %s: %v", stage, showFilter(f), err)
		}
		want, err := storage.LeaderboardFromRows(ctx, s.Rankings, projectID, f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %s: rollups give\n%s\nrows give\n%s", stage, showFilter(f), showBoard(got), showBoard(want))
		}
	}
	for range 20 {
		from := g.instant().Truncate(24 * time.Hour)
		to := from.Add(time.Duration(1+g.r.IntN(60)) * 24 * time.Hour)
		if g.r.IntN(4) == 0 {
			to = to.Add(time.Hour) // not whole days: from the rows
		}
		got, err := s.DailyTotals(ctx, projectID, from, to)
		if err != nil {
			t.Fatal(err)
		}
		want, err := storage.DailyTotalsFromRows(ctx, s.Rankings, projectID, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: daily totals [%v, %v): %+v, rows give %+v", stage, from, to, got, want)
		}
	}
}

func showFilter(f ledger.Filter) string {
	tm := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("filter{payer %q type %q start %s end %s limit %d offset %d}", f.Payer, f.Type, tm(f.Start), tm(f.End), f.Limit, f.Offset)
}

// TestMigrationCountsTheLedger upgrades a database that a version before
// migration 9 filled (entries confirmed, in flight, without confirmation
// time, in two projects): once migrated, the rollups answer, and equal the
// rows. On Postgres an older instance still running then records and
// confirms entries: the reads stay exact, and the next start counts them.
func TestMigrationCountsTheLedger(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			t.Logf("RECLAIM_TEST_SEED=%d", seed)
			ctx := ctxT(t)
			s := unmigratedStore(t, db)
			if err := storage.MigrateBefore(ctx, s.DB, storage.RollupMigration); err != nil {
				t.Fatal(err)
			}
			g := newLedgerGen(seed)
			projectID, otherID := g.projects(t, s)
			g.record(t, s, projectID, 120, recording{before: true})
			g.record(t, s, otherID, 10, recording{before: true})
			g.confirmAsBefore(t, s)
			for _, jti := range g.confirmed[:2] {
				if err := storage.Undate(ctx, s.DB, jti); err != nil {
					t.Fatal(err)
				}
			}
			g.record(t, s, projectID, 20, recording{before: true}) // in flight at the upgrade
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			g.check(t, s, projectID, "migrated", true)
			g.check(t, s, otherID, "migrated, other project", true)
			g.confirmAsBefore(t, s) // by an older instance, after the upgrade
			if db == "postgres" {
				// SQLite gives rows an older version records the legacy
				// state: one process at a time upgrades SQLite.
				g.record(t, s, projectID, 20, recording{before: true})
				g.confirmAsBefore(t, s)
			}
			g.check(t, s, projectID, "confirmed by an older version", false)
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			g.check(t, s, projectID, "caught up", true)
		})
	}
}

// unmigratedStore opens an empty database.
func unmigratedStore(t *testing.T, db string) *storagetest.Store {
	t.Helper()
	url, dir := "", t.TempDir()
	if db == "postgres" {
		url = storagetest.NewPostgresDatabase(t)
	}
	s, err := storage.Open(ctxT(t), url, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return storagetest.Rooms(s, storagetest.Options{})
}
