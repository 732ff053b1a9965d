package idempotency

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
)

func newClock() *clocktest.Clock { return clocktest.New(time.Date(2026, 5, 21, 0, 0, 0, 0, time.UTC)) }
func request(key, body string) Request {
	return Request{ProjectID: "prj_1", Scope: Scope("key_1", ""), Key: key, Fingerprint: Fingerprint("/build", []byte(body))}
}
func runs(n *int, a Answer, keep bool) Run {
	return func(context.Context) (Answer, bool, error) { *n++; return a, keep, nil }
}

func TestDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		// first and second are the two requests; keep is the first's.
		first, second Request
		keep          bool
		advance       time.Duration
		wantRuns      int
		wantReplayed  bool
		wantErr       error
	}{
		{"same key, same request: replayed", request("k1", "a"), request("k1", "a"), true, 0, 1, true, nil},
		{"same key, other body: reused", request("k1", "a"), request("k1", "b"), true, 0, 1, false, ErrKeyReused},
		{"other key", request("k1", "a"), request("k2", "a"), true, 0, 2, false, nil},
		{"same key, other credential", request("k1", "a"), Request{ProjectID: "prj_1", Scope: Scope("key_2", ""), Key: "k1", Fingerprint: request("k1", "a").Fingerprint}, true, 0, 2, false, nil},
		{"same key, a session of the key", request("k1", "a"), Request{ProjectID: "prj_1", Scope: Scope("key_1", "W"), Key: "k1", Fingerprint: request("k1", "a").Fingerprint}, true, 0, 2, false, nil},
		{"same key, other project", request("k1", "a"), Request{ProjectID: "prj_2", Scope: Scope("key_1", ""), Key: "k1", Fingerprint: request("k1", "a").Fingerprint}, true, 0, 2, false, nil},
		{"a failure a retry may cure is not kept", request("k1", "a"), request("k1", "a"), false, 0, 2, false, nil},
		{"after 24 h the key is new", request("k1", "a"), request("k1", "b"), true, TTL, 2, false, nil},
		{"just before 24 h it is not", request("k1", "a"), request("k1", "b"), true, TTL - time.Second, 1, false, ErrKeyReused},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			s := NewService(newMemStore(), slog.New(slog.DiscardHandler), clk.Now)
			n := 0
			first := Answer{Code: 3, Message: "items: empty", Param: "items"}
			if c.keep {
				first = answerOf("first")
			}
			a, replayed, err := s.Do(ctx, c.first, runs(&n, first, c.keep))
			if err != nil || replayed || !sameAnswer(a, first) {
				t.Fatalf("first: %+v %v %v", a, replayed, err)
			}
			clk.Advance(c.advance)
			a, replayed, err = s.Do(ctx, c.second, runs(&n, answerOf("second"), true))
			if !errors.Is(err, c.wantErr) || replayed != c.wantReplayed || n != c.wantRuns {
				t.Fatalf("second: %+v replayed %v, %v, %d runs; want replayed %v, %v, %d runs", a, replayed, err, n, c.wantReplayed, c.wantErr, c.wantRuns)
			}
			if c.wantReplayed && !sameAnswer(a, first) {
				t.Fatalf("replayed %+v, want the first answer %+v", a, first)
			}
		})
	}
}

// A stored refusal (a 4xx) is replayed as it was.
func TestDoReplaysARefusal(t *testing.T) {
	t.Parallel()
	s := NewService(newMemStore(), slog.New(slog.DiscardHandler), newClock().Now)
	n := 0
	refusal := Answer{Code: 3, Message: "items[0].address: not a base58 address", Param: "items[0].address"}
	_, _, _ = s.Do(context.Background(), request("k", "a"), runs(&n, refusal, true))
	a, replayed, err := s.Do(context.Background(), request("k", "a"), runs(&n, answerOf("x"), true))
	if err != nil || !replayed || !sameAnswer(a, refusal) || n != 1 {
		t.Fatalf("%+v %v %v %d", a, replayed, err, n)
	}
}

// An error without an answer releases the key.
func TestDoReleasesOnError(t *testing.T) {
	t.Parallel()
	st := newMemStore()
	s := NewService(st, slog.New(slog.DiscardHandler), newClock().Now)
	boom := errors.New("boom")
	if _, _, err := s.Do(context.Background(), request("k", "a"), func(context.Context) (Answer, bool, error) { return Answer{}, true, boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, ok, _ := st.KeyRecord(context.Background(), "prj_1", Hash(Scope("key_1", ""), "k")); ok {
		t.Fatal("the key is still claimed")
	}
}

// A request whose key is in flight waits for the first one's answer and
// gets it, replayed; the request runs once.
func TestDoWaitsForTheFirst(t *testing.T) {
	t.Parallel()
	st := newMemStore()
	st.inFlight = make(chan Record, 1)
	s := NewService(st, slog.New(slog.DiscardHandler), time.Now)
	s.Wait = time.Minute
	release, started := make(chan struct{}), make(chan struct{})
	var n atomic.Int32
	done := make(chan Answer)
	go func() {
		a, _, err := s.Do(context.Background(), request("k", "a"), func(context.Context) (Answer, bool, error) {
			n.Add(1)
			close(started)
			<-release
			return answerOf("first"), true, nil
		})
		if err != nil {
			t.Error(err)
		}
		done <- a
	}()
	<-started // the first claimed the key
	second := make(chan error)
	var got Answer
	var replayed bool
	go func() {
		var err error
		got, replayed, err = s.Do(context.Background(), request("k", "a"), func(context.Context) (Answer, bool, error) {
			n.Add(1)
			return answerOf("second"), true, nil
		})
		second <- err
	}()
	<-st.inFlight // the second saw the first in flight
	close(release)
	if a := <-done; string(a.Body) != "first" {
		t.Fatalf("first answered %q", a.Body)
	}
	if err := <-second; err != nil || !replayed || string(got.Body) != "first" || n.Load() != 1 {
		t.Fatalf("second: %q replayed %v, %v; %d runs", got.Body, replayed, err, n.Load())
	}
}

// Past Wait, a request whose key is in flight gets ErrKeyInUse; once the
// first one's lease is over (its instance died), a retry runs it.
func TestDoInUseThenLeaseOver(t *testing.T) {
	t.Parallel()
	clk := newClock()
	st := newMemStore()
	s := NewService(st, slog.New(slog.DiscardHandler), clk.Now)
	s.Wait = 0
	// A claim left by a dead instance.
	now := clk.Now()
	_, _, _ = st.ClaimKey(context.Background(), Record{
		ProjectID: "prj_1", KeyHash: Hash(Scope("key_1", ""), "k"), Fingerprint: request("k", "a").Fingerprint,
		Token: "dead", CreatedAt: now, LeaseUntil: now.Add(s.Lease),
	}, now)
	n := 0
	if _, _, err := s.Do(context.Background(), request("k", "a"), runs(&n, answerOf("x"), true)); !errors.Is(err, ErrKeyInUse) || n != 0 {
		t.Fatalf("in flight: %v, %d runs", err, n)
	}
	if _, _, err := s.Do(context.Background(), request("k", "b"), runs(&n, answerOf("x"), true)); !errors.Is(err, ErrKeyReused) {
		t.Fatalf("in flight, other body: %v", err)
	}
	clk.Advance(s.Lease)
	a, replayed, err := s.Do(context.Background(), request("k", "a"), runs(&n, answerOf("x"), true))
	if err != nil || replayed || n != 1 || string(a.Body) != "x" {
		t.Fatalf("after the lease: %q %v %v %d", a.Body, replayed, err, n)
	}
}

// A caller that leaves while waiting stops waiting.
func TestDoWaitCanceled(t *testing.T) {
	t.Parallel()
	st := newMemStore()
	st.inFlight = make(chan Record, 1)
	s := NewService(st, slog.New(slog.DiscardHandler), time.Now)
	s.Wait = time.Hour
	now := time.Now()
	_, _, _ = st.ClaimKey(context.Background(), Record{
		ProjectID: "prj_1", KeyHash: Hash(Scope("key_1", ""), "k"), Fingerprint: request("k", "a").Fingerprint,
		Token: "other", CreatedAt: now, LeaseUntil: now.Add(time.Hour),
	}, now)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, _, err := s.Do(ctx, request("k", "a"), runs(new(int), answerOf("x"), true))
		errc <- err
	}()
	<-st.inFlight
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

func TestHashAndScope(t *testing.T) {
	t.Parallel()
	if string(Hash(Scope("a", ""), "k")) == string(Hash(Scope("a", "W"), "k")) {
		t.Error("a key and its session share hashes")
	}
	if string(Hash("a", "bc")) == string(Hash("ab", "c")) {
		t.Error("scope and key run together")
	}
	if len(Hash("a", "k")) != 32 {
		t.Error("not SHA-256")
	}
}

// A request's own Lease bounds its claim (issue 31: a submit's key outlived
// the transaction it protected); without one, Service.Lease does. After a
// crash, a retry runs once that lease is over.
func TestDoRequestLease(t *testing.T) {
	t.Parallel()
	for _, lease := range []time.Duration{0, 30 * time.Second} {
		clk := newClock()
		st := newMemStore()
		s := NewService(st, slog.New(slog.DiscardHandler), clk.Now)
		s.Wait = 0
		r := request("k", "a")
		r.Lease = lease
		want := lease
		if want == 0 {
			want = s.Lease
		}
		start := clk.Now()
		rec := Record{ProjectID: r.ProjectID, KeyHash: Hash(r.Scope, r.Key), Fingerprint: r.Fingerprint, Token: "dead", CreatedAt: start}
		n := 0
		_, _, _ = s.Do(context.Background(), r, func(context.Context) (Answer, bool, error) {
			got, _, _ := st.KeyRecord(context.Background(), r.ProjectID, rec.KeyHash)
			rec.LeaseUntil = got.LeaseUntil
			return answerOf("x"), false, nil
		})
		if got := rec.LeaseUntil.Sub(start); got != want {
			t.Fatalf("lease %s: the claim was leased %s, want %s", lease, got, want)
		}
		_, _, _ = st.ClaimKey(context.Background(), rec, start) // left by an instance that died
		clk.Advance(want - time.Millisecond)
		if _, _, err := s.Do(context.Background(), r, runs(&n, answerOf("y"), true)); !errors.Is(err, ErrKeyInUse) || n != 0 {
			t.Fatalf("lease %s: within it: %v, %d runs", lease, err, n)
		}
		clk.Advance(time.Millisecond)
		if a, replayed, err := s.Do(context.Background(), r, runs(&n, answerOf("y"), true)); err != nil || replayed || n != 1 || string(a.Body) != "y" {
			t.Fatalf("lease %s: after it: %q %v %v, %d runs", lease, a.Body, replayed, err, n)
		}
	}
}
