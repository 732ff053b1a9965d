package project_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
)

// refusalWrites records the writes a RefusalCounter makes.
type refusalWrites struct {
	writes [][]project.Refusals
	fail   error
}

func (r *refusalWrites) AddRefusals(_ context.Context, counts []project.Refusals, _ time.Time) error {
	if r.fail != nil {
		return r.fail
	}
	r.writes = append(r.writes, counts)
	return nil
}

func (r *refusalWrites) RefusalsSince(context.Context, string, time.Time) (int64, error) {
	return 0, nil
}

// A flood of refusals is a map increment each: one write per flush, one
// row per project and hour; a failed write keeps the counts for the next.
func TestRefusalCounterAggregates(t *testing.T) {
	t.Parallel()
	clock := clocktest.New(time.Date(2026, 1, 1, 10, 59, 0, 0, time.UTC))
	store := &refusalWrites{}
	c := project.NewRefusalCounter(store, clock.Now)
	for range 100_000 {
		c.Refused("prj_a")
	}
	c.Refused("prj_b")
	clock.Advance(2 * time.Minute) // the next hour
	c.Refused("prj_a")
	store.fail = errors.New("database down")
	if err := c.Flush(context.Background()); err == nil {
		t.Fatal("a failed write was not reported")
	}
	store.fail = nil
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(store.writes) != 1 || len(store.writes[0]) != 3 {
		t.Fatalf("writes %v, want one of three rows", store.writes)
	}
	got := map[string]int64{}
	for _, r := range store.writes[0] {
		got[r.ProjectID+" "+r.Hour.Format("15")] = r.Count
	}
	if got["prj_a 10"] != 100_000 || got["prj_b 10"] != 1 || got["prj_a 11"] != 1 {
		t.Fatalf("counts %v", got)
	}
	if err := c.Flush(context.Background()); err != nil || len(store.writes) != 1 {
		t.Fatalf("an empty flush wrote: %v %d", err, len(store.writes))
	}
}
