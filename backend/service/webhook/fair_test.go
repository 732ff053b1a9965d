package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	service "github.com/reclaim-sol/reclaim/backend/service/webhook"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// hanging is a receiver that never answers until release is closed; it
// counts the requests it holds and reports each on started while there is
// room.
type hanging struct {
	srv  *httptest.Server
	held atomic.Int64
}

func newHanging(t testing.TB, release <-chan struct{}, started chan<- struct{}) *hanging {
	h := &hanging{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.held.Add(1)
		select {
		case started <- struct{}{}:
		default: // a retry after the test stopped counting
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	return h
}

// answering is a receiver that answers 204 and reports each event on got.
func answering(t testing.TB, got chan<- time.Time) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		got <- time.Now()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// running starts d as `reclaim serve` does (nudged by the store) and
// returns what stops it: release the hanging receivers first, so that the
// attempts under way end, then wait for Run to return and close them.
func running(s *storagetest.Store, d *service.Dispatcher, release chan struct{}, hs []*hanging) (stop func()) {
	*s = *storagetest.Notified(s, d.Nudge) // as serve builds its rooms: nudging d
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); d.Run(ctx) }()
	return func() {
		close(release)
		cancel()
		<-ran
		for _, h := range hs {
			h.srv.Close()
		}
	}
}

// wait receives n values from c, or fails after a generous bound (the
// attempts the test waits for start at once; the bound only keeps a
// failing test from hanging).
func wait[T any](t *testing.T, c <-chan T, n int, what string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for i := range n {
		select {
		case <-c:
		case <-deadline:
			t.Fatalf("%s: %d of %d within 20 s", what, i, n)
		}
	}
}

// Finding 2 of issue 30: a project with 12 receivers that never answer
// and 480 events queued to them (40 confirmations, each to its 12
// endpoints) delays another project's event not at all. The attacker's
// attempts hang for a minute each, longer than the test, so the victim's
// event must go out while every one of them is still waiting: before the
// fix it waited behind the whole queue (460 s measured). The attacker
// holds at most its project's share of attempts, two per endpoint.
func TestHangingReceiversDelayOnlyTheirProject(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		attacker, victim := newEnv(t, s, time.Now), newEnv(t, s, time.Now)
		release, started := make(chan struct{}), make(chan struct{}, 480)
		var hs []*hanging
		for range 12 {
			h := newHanging(t, release, started)
			hs = append(hs, h)
			if _, _, err := attacker.svc.Add(ctx, attacker.proj.ID, h.srv.URL, nil); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 40 {
			attacker.settle(t, fmt.Sprint("a", i), fmt.Sprint("A", i), ledger.StatusConfirmed, time.Now())
		}
		got := make(chan time.Time, 1)
		if _, _, err := victim.svc.Add(ctx, victim.proj.ID, answering(t, got).URL, nil); err != nil {
			t.Fatal(err)
		}
		d := attacker.dispatcher(time.Now, time.Minute)
		d.Lease = 6 * time.Minute
		stop := running(s, d, release, hs)
		defer stop()
		wait(t, started, d.PerProject, "the attacker's attempts under way")

		victim.settle(t, "v1", "V1", ledger.StatusConfirmed, time.Now())
		wait(t, got, 1, "the victim's event delivered while the attacker's receivers hang")
		var held int64
		for i, h := range hs {
			n := h.held.Load()
			held += n
			if n > int64(d.PerEndpoint) {
				t.Errorf("attacker's endpoint %d holds %d attempts, want at most %d", i, n, d.PerEndpoint)
			}
		}
		if held != int64(d.PerProject) {
			t.Errorf("the attacker holds %d attempts, want its project's share, %d", held, d.PerProject)
		}
	})
}

// An endpoint that never answers holds its two attempts and no more,
// whatever is queued to it, and its own project's other endpoint still
// gets its event.
func TestHangingEndpointHoldsItsShare(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		e := newEnv(t, s, time.Now)
		release, started := make(chan struct{}), make(chan struct{}, 40)
		h := newHanging(t, release, started)
		if _, _, err := e.svc.Add(ctx, e.proj.ID, h.srv.URL, []string{webhook.TypeSubmissionConfirmed}); err != nil {
			t.Fatal(err)
		}
		got := make(chan time.Time, 1)
		if _, _, err := e.svc.Add(ctx, e.proj.ID, answering(t, got).URL, []string{webhook.TypeSubmissionFailed}); err != nil {
			t.Fatal(err)
		}
		for i := range 40 {
			e.settle(t, fmt.Sprint("c", i), fmt.Sprint("W", i), ledger.StatusConfirmed, time.Now())
		}
		d := e.dispatcher(time.Now, time.Minute)
		d.Lease = 6 * time.Minute
		stop := running(s, d, release, []*hanging{h})
		defer stop()
		wait(t, started, d.PerEndpoint, "the hanging endpoint's attempts")

		e.settle(t, "f1", "W1", ledger.StatusFailed, time.Now())
		wait(t, got, 1, "the other endpoint's event delivered while the first hangs")
		if n := h.held.Load(); n != int64(d.PerEndpoint) {
			t.Errorf("the hanging endpoint holds %d attempts, want %d", n, d.PerEndpoint)
		}
	})
}
