// Package lease holds what the workers that share a store through leases
// (the confirmation tracker, the webhook dispatcher) have in common: the
// name they hold leases under, and the context their work runs in, which
// outlives a stop by a grace so that a stopping process leaves nothing
// half-written.
package lease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"time"
)

// Owner names a lease holder: the host (the container, under Docker) and a
// random suffix, unique across restarts.
func Owner() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}

// Graceful returns the context a worker's work runs in: it ends grace after
// stop ends, or when the returned function is called (at the latest when
// the worker returns), whichever comes first. Work under way when stop ends
// is finished, for at most grace.
func Graceful(stop context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	work, cancel := context.WithCancel(context.WithoutCancel(stop))
	unhook := context.AfterFunc(stop, func() { time.AfterFunc(grace, cancel) })
	return work, func() {
		unhook()
		cancel()
	}
}
