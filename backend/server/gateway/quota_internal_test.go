package gateway

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
)

// fakeQuotas is a QuotaSource whose answer the test sets.
type fakeQuotas struct {
	mu    sync.Mutex
	list  []project.Quota
	err   error
	reads int
}

func (f *fakeQuotas) Quotas(context.Context) ([]project.Quota, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.list, f.err
}

func (f *fakeQuotas) set(list []project.Quota, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list, f.err = list, err
}

// A change of quota applies within the refresh, read in the background
// (no request waits for the database after the first), and a failed read
// keeps the last copy.
func TestQuotaBookRefresh(t *testing.T) {
	src := &fakeQuotas{list: []project.Quota{{ProjectID: "prj_a", RPS: 10, Burst: 20}}}
	clock := clocktest.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	def := ratelimit.Limits{RPS: 200, Burst: 400}
	b := newQuotaBook(Quotas{Default: def, Source: src, Refresh: 5 * time.Second}, time.Second, slog.New(slog.DiscardHandler))
	b.now = clock.Now
	loaded := make(chan struct{}, 1)
	b.loaded = func() { loaded <- struct{}{} }
	ctx := context.Background()

	if got := b.project(ctx, "prj_a"); got != (ratelimit.Limits{RPS: 10, Burst: 20}) {
		t.Fatalf("prj_a: %+v", got)
	}
	<-loaded
	if got := b.project(ctx, "prj_b"); got != def {
		t.Fatalf("prj_b: %+v, want the default", got)
	}
	src.set([]project.Quota{{ProjectID: "prj_a", RPS: 50, Burst: 50}}, nil)
	clock.Advance(4 * time.Second)
	if got := b.project(ctx, "prj_a"); got.RPS != 10 {
		t.Fatalf("within the refresh: %+v, want the copy", got)
	}
	clock.Advance(time.Second)
	_ = b.project(ctx, "prj_a") // due: starts a read in the background
	<-loaded
	if got := b.project(ctx, "prj_a"); got != (ratelimit.Limits{RPS: 50, Burst: 50}) {
		t.Fatalf("after the refresh: %+v", got)
	}
	src.set(nil, errors.New("database down"))
	clock.Advance(5 * time.Second)
	_ = b.project(ctx, "prj_a")
	<-loaded
	if got := b.project(ctx, "prj_a"); got.RPS != 50 {
		t.Fatalf("after a failed read: %+v, want the last copy", got)
	}
	if src.reads != 3 {
		t.Fatalf("%d reads, want 3: one per refresh", src.reads)
	}
}
