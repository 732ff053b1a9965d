package owner

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The password budget: every argon2id computation (a sign-in's check, a
// new account's hash) takes a slot first, so that however many requests
// ask at once, memory stays at slots × 19 MiB and a core is left for the
// API that shares the process. A request that finds no slot waits in a
// bounded queue, for a bounded time; past either it gets a *BusyError at
// once, which the console answers with 503 and Retry-After.
const (
	// DefaultHashQueuePerSlot is how many requests may wait per slot.
	DefaultHashQueuePerSlot = 16
	// DefaultHashWait is the longest a request waits for a slot.
	DefaultHashWait = 2 * time.Second
)

// DefaultHashSlots is the default number of computations at once: half
// the cores this process may use, at least one.
func DefaultHashSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// BusyError is returned when the password budget has no slot for a
// request: the queue is full or the wait ran out. Nothing was checked.
type BusyError struct {
	// RetryAfter is how long the client should wait before trying again.
	RetryAfter time.Duration
}

// Error says the checks are at capacity.
func (e *BusyError) Error() string {
	return fmt.Sprintf("password checks are at capacity: retry in %v", e.RetryAfter)
}

// hashBudget is the semaphore with its bounded queue.
type hashBudget struct {
	slots    chan struct{}
	waiting  atomic.Int64
	maxQueue int64
	wait     time.Duration
	// inSlot runs in the slot before each computation (Options.InSlot).
	inSlot func()
}

func newHashBudget(slots, queue int, wait time.Duration, inSlot func()) *hashBudget {
	if inSlot == nil {
		inSlot = func() {}
	}
	return &hashBudget{slots: make(chan struct{}, slots), maxQueue: int64(queue), wait: wait, inSlot: inSlot}
}

// run runs f in a slot, waiting for one if needed; it returns a
// *BusyError, or ctx's error, when f did not run.
func (b *hashBudget) run(ctx context.Context, f func()) error {
	select {
	case b.slots <- struct{}{}:
	default:
		if err := b.queue(ctx); err != nil {
			return err
		}
	}
	defer func() { <-b.slots }()
	b.inSlot()
	f()
	return nil
}

// full returns a *BusyError when every slot is taken and the queue has no
// room: a request that would be refused anyway, told before it does any
// other work.
func (b *hashBudget) full() error {
	if len(b.slots) == cap(b.slots) && b.waiting.Load() >= b.maxQueue {
		return &BusyError{RetryAfter: b.wait}
	}
	return nil
}

// queue waits for a slot, in the queue if it has room.
func (b *hashBudget) queue(ctx context.Context) error {
	if b.waiting.Add(1) > b.maxQueue {
		b.waiting.Add(-1)
		return &BusyError{RetryAfter: b.wait}
	}
	defer b.waiting.Add(-1)
	t := time.NewTimer(b.wait)
	defer t.Stop()
	select {
	case b.slots <- struct{}{}:
		return nil
	case <-t.C:
		return &BusyError{RetryAfter: b.wait}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// The devices' lane: a slot of its own for the sign-ins of returning
// browsers, those whose device cookie (signed by the console on an
// earlier sign-in) names the account they sign in to. A flood from browsers
// without one fills the budget above and never this lane, so an account's
// own browser signs in during the flood. Each account has at most one
// attempt in the lane at a time, waiting or running: an attacker holding
// a device cookie of an account of their own takes one place in it, never
// the whole lane; the account's further attempts meanwhile are refused
// (*BusyError).
const (
	deviceSlots = 1
	// deviceQueue bounds the accounts waiting in the lane at once.
	deviceQueue = 64
)

// deviceLane is the devices' budget and the accounts with an attempt in it.
type deviceLane struct {
	budget *hashBudget
	mu     sync.Mutex
	inLane map[string]bool
}

func newDeviceLane(wait time.Duration, inSlot func()) *deviceLane {
	return &deviceLane{budget: newHashBudget(deviceSlots, deviceQueue, wait, inSlot), inLane: map[string]bool{}}
}

// full returns a *BusyError when the lane would refuse an attempt at
// account now.
func (l *deviceLane) full(account string) error {
	l.mu.Lock()
	in := l.inLane[account]
	l.mu.Unlock()
	if in {
		return &BusyError{RetryAfter: l.budget.wait}
	}
	return l.budget.full()
}

// run runs f in the lane for account, as hashBudget.run does; a
// *BusyError when the account has an attempt in it already.
func (l *deviceLane) run(ctx context.Context, account string, f func()) error {
	l.mu.Lock()
	if l.inLane[account] {
		l.mu.Unlock()
		return &BusyError{RetryAfter: l.budget.wait}
	}
	l.inLane[account] = true
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.inLane, account)
		l.mu.Unlock()
	}()
	return l.budget.run(ctx, f)
}
