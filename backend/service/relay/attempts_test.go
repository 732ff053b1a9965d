package relay_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// attemptLog records the submission log's lines on their way to the store.
type attemptLog struct {
	relay.Store
	mu    sync.Mutex
	lines []ledger.Attempt
}

func (l *attemptLog) LogAttempt(ctx context.Context, a ledger.Attempt) error {
	l.mu.Lock()
	l.lines = append(l.lines, a)
	l.mu.Unlock()
	return l.Store.LogAttempt(ctx, a)
}

// A request of 100 forged tickets (the most a submit takes) writes one line
// of the submission log, not 100: their count and the first one's reason.
// The other entries of the same request are logged one line each, as before.
func TestForgedTicketsShareOneLine(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	log := &attemptLog{Store: f.store}
	f.relay = relay.New(f.rpc, log, f.issuer, func() time.Time { return f.now })
	tx, tok := f.build(t)
	good := sign(t, tx, f.wallet)
	foreign, _, err := f.issuer.Issue(ticket.Claims{Project: "prj_other", Wallet: f.wallet.PublicKey().String()}, f.now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}

	// Half are our ticket with its signature altered, half not tickets.
	k := len(tok) - 10 // within the signature, clear of its last character's spare bits
	altered := tok[:k] + "A" + tok[k+1:]
	if altered == tok {
		altered = tok[:k] + "B" + tok[k+1:]
	}
	entries := make([]relay.Signed, 100)
	for i := range entries {
		entries[i] = relay.Signed{TransactionBase64: good, Ticket: altered}
		if i%2 == 1 {
			entries[i].Ticket = "not-a-ticket"
		}
	}
	res, err := f.relay.Submit(context.Background(), f.project.ID, f.wallet.PublicKey(), entries)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Status != relay.StatusFailed || r.Code != relay.CodeInvalidTicket {
			t.Fatalf("entry %d: %+v", i, r)
		}
	}
	if len(log.lines) != 1 {
		t.Fatalf("100 forged tickets wrote %d lines of the submission log, want 1", len(log.lines))
	}
	if l := log.lines[0]; l.Tickets != 100 || l.Code != string(relay.CodeInvalidTicket) || l.Message != res[0].Message || l.TicketJTI != "" || l.ProjectID != f.project.ID {
		t.Fatalf("line %+v", l)
	}

	log.lines = nil
	mixed := []relay.Signed{entries[0], {TransactionBase64: good, Ticket: tok}, entries[1], {TransactionBase64: good, Ticket: foreign}}
	res, err = f.relay.Submit(context.Background(), f.project.ID, f.wallet.PublicKey(), mixed)
	if err != nil {
		t.Fatal(err)
	}
	if res[1].Status != relay.StatusSubmitted || res[3].Message != "the submission ticket was issued to another project" {
		t.Fatalf("results %+v", res)
	}
	tickets := map[int]int{}
	for _, l := range log.lines {
		tickets[l.Tickets]++
	}
	if len(log.lines) != 3 || tickets[2] != 1 || tickets[1] != 2 {
		t.Fatalf("lines %+v: want the two forged tickets on one, the good and the foreign one on one each", log.lines)
	}
}

// pruneCounter sums what the store says each pruning deleted.
type pruneCounter struct {
	*storagetest.Store
	mu      sync.Mutex
	deleted int
	calls   int
}

func (p *pruneCounter) PruneAttempts(ctx context.Context, before time.Time, limit int) (int, error) {
	n, err := p.Store.PruneAttempts(ctx, before, limit)
	p.mu.Lock()
	p.deleted += n
	p.calls++
	p.mu.Unlock()
	return n, err
}

// The tracker prunes the submission log: lines older than its Retention go,
// once a minute on whichever instance claims it; newer ones stay.
func TestTrackerPrunesAttempts(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := context.Background()
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)
		logAt := func(n int, at time.Time) {
			for range n {
				if err := s.LogAttempt(ctx, ledger.Attempt{ProjectID: p.ID, Payer: "P", Status: "failed", Code: "INVALID_TICKET", Message: "m", CreatedAt: at}); err != nil {
					t.Fatal(err)
				}
			}
		}
		logAt(3, now.Add(-31*24*time.Hour))
		logAt(1, now.Add(-30*24*time.Hour-time.Second))
		logAt(2, now.Add(-29*24*time.Hour))
		discard := slog.New(slog.NewTextHandler(io.Discard, nil))
		store := &pruneCounter{Store: s}
		tr := relay.NewTracker(nil, store, discard, func() time.Time { return now })
		if tr.Retention != relay.DefaultRetention {
			t.Fatalf("retention %v, want 30 days", tr.Retention)
		}
		if _, err := tr.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		if store.deleted != 4 {
			t.Fatalf("pruned %d lines, want the 4 older than 30 days", store.deleted)
		}
		if _, err := tr.Prune(ctx); err != nil || store.deleted != 4 {
			t.Fatalf("pruned %d lines in all (%v): the 2 of the last 30 days went too", store.deleted, err)
		}
		// Another instance in the same minute leaves the pass to the first.
		logAt(1, now.Add(-40*24*time.Hour))
		other := relay.NewTracker(nil, store, discard, func() time.Time { return now })
		calls := store.calls
		if _, err := other.Tick(ctx); err != nil || store.calls != calls {
			t.Fatalf("a second tracker pruned within the same minute (%v)", err)
		}
		now = now.Add(time.Minute)
		if _, err := other.Tick(ctx); err != nil || store.deleted != 5 {
			t.Fatalf("pruned %d lines in all after the next minute (%v), want 5", store.deleted, err)
		}
		// Retention 0 keeps everything.
		logAt(1, now.Add(-400*24*time.Hour))
		now = now.Add(time.Minute)
		other.Retention = 0
		if _, err := other.Tick(ctx); err != nil || store.deleted != 5 {
			t.Fatalf("pruned %d lines in all with retention 0 (%v), want 5", store.deleted, err)
		}
	})
}

// The tracker's pruning pass deletes the Expiring rows older than their
// Keep (idempotency keys, webhook deliveries), with a Retention of 0 too.
func TestTrackerPrunesExpiring(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)
	var befores []time.Time
	tr := relay.NewTracker(nil, &pruneCounter{Store: storagetest.SQLite(t)}, slog.New(slog.DiscardHandler), func() time.Time { return now })
	tr.Retention = 0
	rows := 2500
	tr.Expiring = []relay.Expiring{{Name: "keys", Keep: 24 * time.Hour, Prune: func(_ context.Context, before time.Time, limit int) (int, error) {
		befores = append(befores, before)
		n := min(rows, limit)
		rows -= n
		return n, nil
	}}}
	if _, err := tr.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rows != 0 || len(befores) != 3 || !befores[0].Equal(now.Add(-24*time.Hour)) {
		t.Fatalf("%d rows left after %d statements (before %v): want all 2500 older than a day, in batches", rows, len(befores), befores)
	}
}
