package lease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/lease"
)

func TestOwner(t *testing.T) {
	t.Parallel()
	a, b := lease.Owner(), lease.Owner()
	if a == b || !strings.Contains(a, "-") || len(a) < 13 {
		t.Fatalf("owners %q and %q: want a host and a random suffix, each its own", a, b)
	}
}

// TestGracefulOutlivesTheStop: the work's context is not ended by the stop
// itself, only grace after it.
func TestGracefulOutlivesTheStop(t *testing.T) {
	t.Parallel()
	stop, cancelStop := context.WithCancel(context.Background())
	work, done := lease.Graceful(stop, time.Millisecond)
	defer done()
	long, doneLong := lease.Graceful(stop, time.Hour)
	defer doneLong()
	cancelStop()
	<-work.Done() // ends grace after the stop
	if !errors.Is(work.Err(), context.Canceled) {
		t.Fatalf("work ended by %v", work.Err())
	}
	if long.Err() != nil {
		t.Fatalf("the work with an hour's grace ended by %v at the stop", long.Err())
	}
}

// TestGracefulReleased: the returned function ends the work at once, stop or
// no stop.
func TestGracefulReleased(t *testing.T) {
	t.Parallel()
	work, done := lease.Graceful(context.Background(), time.Hour)
	done()
	if work.Err() == nil {
		t.Fatal("the work goes on after its release")
	}
}
