// Package rpclimit bounds the cluster calls one request has in flight.
//
// A listing, a stream or a build issues its JSON-RPC calls together wherever
// they do not depend on each other (every chunk of a getMultipleAccounts
// read, every simulation of a build), so that its latency is a few round
// trips whatever the wallet's size. A Limit, carried in the request's
// context, makes those calls wait for one of its slots, so that a large
// wallet does not send a provider hundreds of requests at once. Discovery
// (package assets) and building (package txbuild) take their slots from the
// same Limit when the caller put one in the context (package wallet does,
// one per request); an operation called without one gets a Limit of Default
// slots of its own.
//
// A slot is held only for the duration of one call, never while waiting for
// another, so calls issued from calls cannot deadlock.
package rpclimit

import (
	"context"
	"sync"
)

// Default is the slots of a Limit when nothing else is configured: enough
// for the reads of a 1,000-account listing (20 getMultipleAccounts chunks),
// or the simulations and fee queries of a 500-item build, to go out at once.
const Default = 32

// Limit is a number of slots for calls in flight.
type Limit struct {
	slots chan struct{}
}

// New returns a Limit of n slots (at least 1).
func New(n int) *Limit {
	return &Limit{slots: make(chan struct{}, max(n, 1))}
}

// Size is the number of slots.
func (l *Limit) Size() int { return cap(l.slots) }

type key struct{}

// With returns ctx carrying l.
func With(ctx context.Context, l *Limit) context.Context {
	return context.WithValue(ctx, key{}, l)
}

// From returns the Limit ctx carries, or nil.
func From(ctx context.Context) *Limit {
	l, _ := ctx.Value(key{}).(*Limit)
	return l
}

// Ensure returns ctx when it carries a Limit, and otherwise ctx with a new
// Limit of Default slots.
func Ensure(ctx context.Context) context.Context {
	if From(ctx) != nil {
		return ctx
	}
	return With(ctx, New(Default))
}

// Call runs f in one of the slots of ctx's Limit (at once when ctx carries
// none), after waiting for a free slot or for ctx's end, whichever comes
// first; in the second case it returns ctx's error without calling f.
func Call[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	l := From(ctx)
	if l == nil {
		markStarted(ctx)
		return f(ctx)
	}
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	defer func() { <-l.slots }()
	if err := ctx.Err(); err != nil { // both were ready: the end wins
		var zero T
		return zero, err
	}
	markStarted(ctx)
	return f(ctx)
}

func markStarted(ctx context.Context) {
	if s, ok := ctx.Value(startKey{}).(*started); ok {
		s.close()
	}
}

type startKey struct{}

type started struct {
	once sync.Once
	ch   chan struct{}
}

func (s *started) close() { s.once.Do(func() { close(s.ch) }) }

// Started returns ctx marked so that the channel is closed when the first
// Call made with it (or a context derived from it) has its slot and is about
// to send, or when done is called (work that ended without a call). Package
// assets starts the stream's first page this way before the pages read ahead
// with it, so its call is the first one out.
func Started(ctx context.Context) (marked context.Context, out <-chan struct{}, done func()) {
	s := &started{ch: make(chan struct{})}
	return context.WithValue(ctx, startKey{}, s), s.ch, s.close
}
