package gateway

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
)

// ErrStopping is the cause that ends the requests still running when a
// stopping server's drain bound passes (Lifecycle.Stop): RPCs then fail
// unavailable, and WebSocket streams close with 1001 "going away".
var ErrStopping = errors.New("the server is shutting down; retry")

// Lifecycle is how a server stops: it drains (readiness fails, so load
// balancers send nothing new, while requests in flight finish), then stops
// (the requests still running are cancelled). backend/cmd drives it on
// SIGTERM; every request, WebSocket streams included, is counted from its
// first byte to the handler's return, which http.Server.Shutdown cannot do
// for hijacked connections.
type Lifecycle struct {
	draining atomic.Bool
	base     context.Context
	stop     context.CancelCauseFunc

	mu      sync.Mutex
	active  int
	waiters []chan struct{}
}

// NewLifecycle returns the lifecycle of a server that is serving.
func NewLifecycle() *Lifecycle {
	base, stop := context.WithCancelCause(context.Background())
	return &Lifecycle{base: base, stop: stop}
}

// Drain makes /readyz and the gRPC health service report not serving.
func (l *Lifecycle) Drain() { l.draining.Store(true) }

// Draining reports whether Drain was called.
func (l *Lifecycle) Draining() bool { return l != nil && l.draining.Load() }

// BaseContext is the context every request's derives from: set it as the
// http.Server's BaseContext, so that Stop reaches every handler.
func (l *Lifecycle) BaseContext(net.Listener) context.Context { return l.base }

// Stop cancels every request still being served.
func (l *Lifecycle) Stop() { l.stop(ErrStopping) }

// Wait returns once no request is being served, or with ctx's error.
func (l *Lifecycle) Wait(ctx context.Context) error {
	l.mu.Lock()
	if l.active == 0 {
		l.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Active is the number of requests being served.
func (l *Lifecycle) Active() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.active
}

// enter counts a request until the returned func runs.
func (l *Lifecycle) enter() (leave func()) {
	l.mu.Lock()
	l.active++
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.active--
		if l.active == 0 {
			for _, ch := range l.waiters {
				close(ch)
			}
			l.waiters = nil
		}
	}
}
