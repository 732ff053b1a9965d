package rpclimit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCallBounds: no more calls run at once than the Limit has slots, and
// calls beyond them wait rather than fail.
func TestCallBounds(t *testing.T) {
	t.Parallel()
	ctx := With(context.Background(), New(3))
	var running, most atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := Call(ctx, func(context.Context) (int, error) {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				started <- struct{}{}
				<-release
				running.Add(-1)
				return 0, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	for range 3 {
		<-started
	}
	select {
	case <-started:
		t.Fatal("a fourth call started while three held the slots")
	default:
	}
	close(release)
	wg.Wait()
	if most.Load() != 3 {
		t.Errorf("at most %d calls at once, want 3", most.Load())
	}
}

// TestCallCancelled: a call waiting for a slot gives up when its context
// ends, without running.
func TestCallCancelled(t *testing.T) {
	t.Parallel()
	l := New(1)
	hold := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_, _ = Call(With(context.Background(), l), func(context.Context) (int, error) {
			close(held)
			<-hold
			return 0, nil
		})
	}()
	<-held
	ctx, cancel := context.WithCancel(With(context.Background(), l))
	cancel()
	ran := false
	_, err := Call(ctx, func(context.Context) (int, error) { ran = true; return 0, nil })
	if !errors.Is(err, context.Canceled) || ran {
		t.Errorf("err %v, ran %v", err, ran)
	}
	close(hold)
}

// TestEnsure: a context without a Limit gets one of Default slots; one
// with a Limit keeps it.
func TestEnsure(t *testing.T) {
	t.Parallel()
	if l := From(Ensure(context.Background())); l == nil || l.Size() != Default {
		t.Fatalf("ensured limit %v", l)
	}
	own := New(5)
	if From(Ensure(With(context.Background(), own))) != own {
		t.Fatal("Ensure replaced the context's Limit")
	}
	if New(0).Size() != 1 {
		t.Fatal("a Limit of 0 slots")
	}
	if v, err := Call(context.Background(), func(context.Context) (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Fatalf("without a Limit: %d, %v", v, err)
	}
}

// TestStarted: the channel closes when the first call made with the marked
// context has its slot, not while it waits for one; done closes it too.
func TestStarted(t *testing.T) {
	t.Parallel()
	ctx := With(context.Background(), New(1))
	release := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_, _ = Call(ctx, func(context.Context) (int, error) {
			close(held)
			<-release
			return 0, nil
		})
	}()
	<-held // the only slot is taken
	marked, out, done := Started(ctx)
	called := make(chan struct{})
	go func() {
		_, _ = Call(marked, func(context.Context) (int, error) {
			close(called)
			return 0, nil
		})
	}()
	select {
	case <-out:
		t.Fatal("closed while the call waits for a slot")
	default:
	}
	close(release)
	<-out
	<-called
	done() // after the call: no effect, no panic

	_, out, done = Started(context.Background())
	done()
	<-out
}
