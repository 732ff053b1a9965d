package project

import (
	"context"
	"sync"
	"time"
)

// Refusals is how many requests of a project the rate limiter refused in
// one hour (Hour is its start, UTC).
type Refusals struct {
	ProjectID string
	Hour      time.Time
	Count     int64
}

// RefusalStore keeps the refusals by project and hour, summed across the
// instances that add them.
type RefusalStore interface {
	// AddRefusals adds each count to its project's hour, and forgets the
	// hours before keepSince.
	AddRefusals(ctx context.Context, counts []Refusals, keepSince time.Time) error
	// RefusalsSince sums a project's refusals in the hours from since.
	RefusalsSince(ctx context.Context, projectID string, since time.Time) (int64, error)
}

// RefusalKeep is how long the hourly counts are kept: the console shows
// the last 24 hours.
const RefusalKeep = 48 * time.Hour

// RefusalCounter counts the rate limiter's refusals per project and hour in
// memory and adds them to the store on Flush, so that a flood of refusals
// costs a map increment each, never a write each.
type RefusalCounter struct {
	store RefusalStore
	now   func() time.Time

	mu     sync.Mutex
	counts map[refusalKey]int64
}

type refusalKey struct {
	project string
	hour    int64 // unix seconds
}

// maxRefusalKeys bounds the counts held between flushes: past it, the
// refusals of projects not counted yet are dropped until the next flush.
const maxRefusalKeys = 100_000

// NewRefusalCounter returns a counter flushing to store; now is the clock
// (time.Now when nil).
func NewRefusalCounter(store RefusalStore, now func() time.Time) *RefusalCounter {
	if now == nil {
		now = time.Now
	}
	return &RefusalCounter{store: store, now: now, counts: map[refusalKey]int64{}}
}

// Refused counts one refused request of projectID.
func (c *RefusalCounter) Refused(projectID string) {
	k := refusalKey{project: projectID, hour: c.now().Truncate(time.Hour).Unix()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.counts[k]; ok || len(c.counts) < maxRefusalKeys {
		c.counts[k]++
	}
}

// Flush adds the counts held to the store. Counts a failed write could not
// add are kept for the next flush.
func (c *RefusalCounter) Flush(ctx context.Context) error {
	c.mu.Lock()
	held := c.counts
	c.counts = map[refusalKey]int64{}
	c.mu.Unlock()
	if len(held) == 0 {
		return nil
	}
	list := make([]Refusals, 0, len(held))
	for k, n := range held {
		list = append(list, Refusals{ProjectID: k.project, Hour: time.Unix(k.hour, 0).UTC(), Count: n})
	}
	if err := c.store.AddRefusals(ctx, list, c.now().Add(-RefusalKeep)); err != nil {
		c.mu.Lock()
		for k, n := range held {
			c.counts[k] += n
		}
		c.mu.Unlock()
		return err
	}
	return nil
}

// Last24h is projectID's refusals in the last 24 hours as the store has
// them (each instance adds its own at every flush).
func (c *RefusalCounter) Last24h(ctx context.Context, projectID string) (int64, error) {
	return c.store.RefusalsSince(ctx, projectID, c.now().Add(-24*time.Hour).Truncate(time.Hour))
}
