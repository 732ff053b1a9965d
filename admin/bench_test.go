package admin_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// BenchmarkOverview1M renders the overview of the project of the storage
// package's 1M-row benchmark database (1,000,000 ledger rows, 50,000
// wallets, over 2025) on Postgres, through the console's router;
// BenchmarkOverview10M that of its 10M-row one (with RECLAIM_BENCH_10M=1).
// Seed the database first, then:
//
//	eval "$(scripts/testdb.sh)"
//	go test ./backend/storage -run '^$' -bench Stats1M -benchtime 1x   # seeds once
//	go test ./admin -run '^$' -bench Overview1M -benchtime 20x
func BenchmarkOverview1M(b *testing.B) { benchOverview(b, "reclaim_bench", "prj_bench1m") }

func BenchmarkOverview10M(b *testing.B) {
	if os.Getenv("RECLAIM_BENCH_10M") != "1" {
		b.Skip("the 10M-row ledger is benchmarked with RECLAIM_BENCH_10M=1")
	}
	benchOverview(b, "reclaim_bench10m", "prj_bench10m")
}

func benchOverview(b *testing.B, database, benchProject string) {
	base := os.Getenv("RECLAIM_BENCH_POSTGRES_URL")
	if base == "" {
		base = storagetest.PostgresURL(b)
	}
	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	u.Path = "/" + database
	ctx := context.Background()
	db, err := storage.Open(ctx, u.String(), "")
	if err != nil {
		b.Skipf("no benchmark database (%v): seed it with go test ./backend/storage -run '^$' -bench Stats1M -benchtime 1x", err)
	}
	defer db.Close()
	s := storagetest.Rooms(db, storagetest.Options{})
	if err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if err := s.WaitForRollups(ctx); err != nil {
		b.Fatal(err)
	}
	if st, err := s.Stats(ctx, benchProject); err != nil || st.TotalTransactionCount == 0 {
		b.Skipf("the benchmark database is not seeded (%v): go test ./backend/storage -run '^$' -bench Stats1M -benchtime 1x", err)
	}
	if err := s.WarmRanking(ctx, benchProject); err != nil {
		b.Fatal(err)
	}
	clk := clocktest.New(time.Date(2025, 12, 31, 12, 0, 0, 0, time.UTC)) // the chart's 30 days end on the last day of the seeded year
	h := &harness{store: s, hasher: auth.NewHasher(make([]byte, 32)), clock: clk}
	d := h.deps(owner.Options{})
	o, err := h.owners.CreateOwner(ctx, "bench@example.com", password)
	if errors.Is(err, owner.ErrConflict) {
		o, err = s.OwnerByEmail(ctx, "bench@example.com")
	}
	if err != nil {
		b.Fatal(err)
	}
	if err := s.AddMember(ctx, benchProject, o.ID, owner.RoleOwner); err != nil && !errors.Is(err, owner.ErrConflict) {
		b.Fatal(err)
	}
	h.srv = httptest.NewServer(admin.New(d))
	defer h.srv.Close()
	h.t = b
	br := h.browser()
	page := br.get("/admin/signin")
	if resp := br.post("/admin/signin", url.Values{"csrf_token": {value(page.doc, "csrf_token")}, "email": {"bench@example.com"}, "password": {password}}); resp.StatusCode != http.StatusSeeOther {
		b.Fatalf("sign in: %d", resp.StatusCode)
	}
	for _, c := range []struct{ name, query string }{
		{"default", ""},
		{"one month filter", "?startDate=2025-06-01&endDate=2025-06-30"},
		{"type filter, deep page", "?transactionType=nft_burn&offset=10000"},
		{"one day filter", "?startDate=2025-06-01&endDate=2025-06-01"},
		{"one week filter", "?startDate=2025-06-09&endDate=2025-06-15"},
		{"one month from noon to noon", "?startDate=2025-06-01T12:00:00Z&endDate=2025-07-01T12:00:00Z"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				resp, err := br.client.Get(h.srv.URL + "/admin/projects/" + benchProject + c.query)
				if err != nil {
					b.Fatal(err)
				}
				var body strings.Builder
				_, _ = ioCopy(&body, resp)
				if resp.StatusCode != http.StatusOK || !strings.Contains(body.String(), `data-testid="board-row"`) {
					b.Fatalf("overview: %d", resp.StatusCode)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/render")
		})
	}
}
