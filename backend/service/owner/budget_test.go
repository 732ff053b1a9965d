package owner

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

// waitQueued spins until n requests wait in b's queue.
func waitQueued(b *hashBudget, n int64) {
	for b.waiting.Load() != n {
		runtime.Gosched()
	}
}

// The budget runs at most its slots at once; past them requests queue up
// to the queue's size, and past that they are refused at once; a request
// that waited too long is refused too; each refusal says when to retry.
func TestHashBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newHashBudget(2, 1, time.Hour, nil)
	hold := make(chan struct{})
	var running sync.WaitGroup
	running.Add(2)
	var done sync.WaitGroup
	for range 2 {
		done.Add(1)
		go func() {
			defer done.Done()
			if err := b.run(ctx, func() { running.Done(); <-hold }); err != nil {
				t.Error(err)
			}
		}()
	}
	running.Wait() // both slots taken
	if err := b.full(); err != nil {
		t.Errorf("full() with room in the queue: %v", err)
	}
	queued := make(chan error, 1)
	ran := false
	go func() { queued <- b.run(ctx, func() { ran = true }) }()
	waitQueued(b, 1)
	var busy *BusyError
	if err := b.full(); !errors.As(err, &busy) || busy.RetryAfter != time.Hour {
		t.Errorf("full() with the slots and the queue taken: %v, want a *BusyError", err)
	}
	if err := b.run(ctx, func() { t.Error("ran past a full queue") }); !errors.As(err, &busy) || busy.RetryAfter != time.Hour {
		t.Errorf("a full queue: %v, want a *BusyError saying when to retry", err)
	}
	close(hold)
	if err := <-queued; err != nil || !ran {
		t.Errorf("the queued request: %v (ran %v), want it run once a slot freed", err, ran)
	}
	done.Wait()

	short := newHashBudget(1, 4, time.Millisecond, nil)
	hold = make(chan struct{})
	started := make(chan struct{})
	go func() { _ = short.run(ctx, func() { close(started); <-hold }) }()
	<-started
	if err := short.run(ctx, func() { t.Error("ran without a slot") }); !errors.As(err, &busy) {
		t.Errorf("a wait past the deadline: %v, want a *BusyError", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := newHashBudget(1, 4, time.Hour, nil).run(cancelled, func() {}); err != nil {
		t.Errorf("a free slot with a cancelled context: %v, want it run", err)
	}
	long := newHashBudget(1, 4, time.Hour, nil)
	go func() { _ = long.run(ctx, func() { <-hold }) }()
	for len(long.slots) == 0 {
		runtime.Gosched()
	}
	if err := long.run(cancelled, func() { t.Error("ran without a slot") }); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: %v, want context.Canceled", err)
	}
	close(hold)
}

// The devices' lane takes one attempt per account at a time: a second one
// of the same account is refused at once (and full says so before), another
// account's waits its turn.
func TestDeviceLane(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hold, holding := make(chan struct{}), make(chan struct{})
	var once sync.Once
	l := newDeviceLane(time.Hour, nil)
	done := make(chan error, 1)
	go func() { done <- l.run(ctx, "own_alice", func() { once.Do(func() { close(holding) }); <-hold }) }()
	<-holding
	var busy *BusyError
	if err := l.full("own_alice"); !errors.As(err, &busy) {
		t.Errorf("full for the account in the lane: %v, want a *BusyError", err)
	}
	if err := l.full("own_bob"); err != nil {
		t.Errorf("full for another account, with room in the queue: %v", err)
	}
	if err := l.run(ctx, "own_alice", func() { t.Error("ran a second attempt of one account") }); !errors.As(err, &busy) || busy.RetryAfter != time.Hour {
		t.Errorf("a second attempt of the account in the lane: %v, want a *BusyError", err)
	}
	queued := make(chan error, 1)
	ran := false
	go func() { queued <- l.run(ctx, "own_bob", func() { ran = true }) }()
	waitQueued(l.budget, 1)
	close(hold)
	if err := <-done; err != nil {
		t.Error(err)
	}
	if err := <-queued; err != nil || !ran {
		t.Errorf("another account's attempt: %v (ran %v), want it run once the slot freed", err, ran)
	}
	if err := l.run(ctx, "own_alice", func() {}); err != nil {
		t.Errorf("the account's next attempt, after the first ended: %v", err)
	}
}
