package owner_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// A session lives 30 idle minutes and 12 hours at most; its id is stored
// only as a hash; signing out ends it on the server.
func TestSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store, _, clk := newService()
	o, err := s.CreateOwner(ctx, "alice@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	start := func() string {
		t.Helper()
		id, sess, err := s.StartSession(ctx, o.ID)
		if err != nil || len(id) != 43 || sess.CSRFToken == "" || !sess.ExpiresAt.Equal(clk.Now().Add(12*time.Hour)) {
			t.Fatalf("StartSession = %q, %+v, %v", id, sess, err)
		}
		if _, ok := store.sessions[id]; ok {
			t.Fatal("the session id is stored in clear")
		}
		return id
	}
	alive := func(id string) bool {
		t.Helper()
		sess, got, err := s.Session(ctx, id)
		if errors.Is(err, owner.ErrNotFound) {
			return false
		}
		if err != nil || got.ID != o.ID || sess.OwnerID != o.ID {
			t.Fatalf("Session = %+v, %+v, %v", sess, got, err)
		}
		return true
	}

	idle := start()
	clk.Advance(29 * time.Minute)
	if !alive(idle) {
		t.Fatal("a session ended after 29 idle minutes")
	}
	clk.Advance(30 * time.Minute)
	if alive(idle) {
		t.Error("a session lives after 30 idle minutes")
	}
	if len(store.sessions) != 0 {
		t.Error("an expired session is kept")
	}

	busy := start()
	for range 35 { // 11 h 40 min of activity
		clk.Advance(20 * time.Minute)
		if !alive(busy) {
			t.Fatal("an active session ended before 12 hours")
		}
	}
	clk.Advance(20 * time.Minute)
	if alive(busy) {
		t.Error("a session lives after 12 hours")
	}

	out := start()
	sess, _, _ := s.Session(ctx, out)
	if err := s.EndSession(ctx, sess); err != nil || alive(out) {
		t.Errorf("after sign-out: %v, or the session lives", err)
	}
	for _, id := range []string{"", "short", out + "x"} {
		if alive(id) {
			t.Errorf("id %q is a session", id)
		}
	}
}

// A token is spent once; the sweep forgets it once it expired, with the
// sign-in failures that are forgotten, at most once a minute.
func TestSpendTokenAndSweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store, _, clk := newService()
	if err := s.SpendToken(ctx, []byte("t1"), clk.Now().Add(time.Hour)); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if err := s.SpendToken(ctx, []byte("t1"), clk.Now().Add(time.Hour)); !errors.Is(err, owner.ErrSpent) {
		t.Fatalf("second use: %v, want ErrSpent", err)
	}
	if _, err := s.SignIn(ctx, "nobody@example.com", "wrong password!", "192.0.2.1", owner.Device{}); !errors.Is(err, owner.ErrBadCredentials) {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Hour) // the token expired, the failures are forgotten
	if err := s.SpendToken(ctx, []byte("t2"), clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.spent["t1"]; ok || len(store.failures) != 0 {
		t.Errorf("after the sweep: spent %v, failures %v, want t1 and the failures gone", store.spent, store.failures)
	}
	if _, err := s.SignIn(ctx, "nobody@example.com", "wrong password!", "192.0.2.1", owner.Device{}); !errors.Is(err, owner.ErrBadCredentials) {
		t.Fatal(err)
	}
	clk.Advance(59 * time.Second)
	store.spent["old"] = clk.Now().Add(-time.Second)
	if err := s.SpendToken(ctx, []byte("t3"), clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.spent["old"]; !ok {
		t.Error("swept twice within a minute")
	}
}
