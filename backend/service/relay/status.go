package relay

import (
	"context"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// State is where a submission is, as the status API tells it.
type State string

// Submission states: the ledger's, but a claim still being sent reads as
// submitted, one in flight found at LandedCommitment as landed, and a
// signature the wallet never submitted to the project is unknown. More may
// come: clients treat a state they do not know as in progress.
const (
	StateSubmitted State = "submitted"
	StateLanded    State = "landed"
	StateConfirmed State = "confirmed"
	StateFailed    State = "failed"
	StateExpired   State = "expired"
	StateUnknown   State = "unknown"
)

// Final reports whether s will not change any more. Unknown is final: a
// signature the ledger does not hold for this wallet now will not be
// submitted under it by waiting.
func (s State) Final() bool { return s != StateSubmitted && s != StateLanded }

// Seen reports whether s is landed or final: what a status request that
// waits waits for.
func (s State) Seen() bool { return s != StateSubmitted }

// Submission is where one submitted transaction is.
type Submission struct {
	Signature string
	State     State
	// Includes are its items (nil when unknown).
	Includes []ticket.Item
	// Code and Message explain a failed or expired one.
	Code    Code
	Message string
	// Slot and Landed tell a landed or confirmed one: the slot that holds
	// it (0 for one confirmed before slots were kept) and what it did on
	// chain, read at LandedCommitment while landed and at Commitment once
	// confirmed; ConfirmedAt, when the tracker saw a confirmed one
	// finalized.
	Slot        int64
	ConfirmedAt time.Time
	Landed      ledger.Figures
	// Rent and OwnBalance split Landed.GrossRebate (Split false for an
	// entry recorded before the split was kept).
	Rent, OwnBalance int64
	Split            bool
}

// StatusPoll is how often a status request that waits reads the ledger
// again: the tracker settles entries once a second at most (its Interval).
const StatusPoll = 500 * time.Millisecond

// Submissions tells where the transactions of sigs are, in their order, for
// wallet within project projectID; a signature the ledger does not hold for
// both is unknown. While one is neither landed nor final (Seen) it reads
// the ledger again every StatusPoll, for up to wait (0: answers at once); a
// request whose context ends gets the last answer read. Only a ledger that does not answer is an
// error (ErrStore).
func (r *Relay) Submissions(ctx context.Context, projectID, wallet string, sigs []string, wait time.Duration) ([]Submission, error) {
	return r.SubmissionsUntil(ctx, projectID, wallet, sigs, wait, false)
}

// SubmissionsUntil is Submissions whose wait, when final, goes on until
// every one is final: what a client that was told landed waits for. The
// wait is timed by the relay's clock; between two reads it sleeps at most
// StatusPoll.
func (r *Relay) SubmissionsUntil(ctx context.Context, projectID, wallet string, sigs []string, wait time.Duration, final bool) ([]Submission, error) {
	until := r.now().Add(wait)
	for {
		changed := r.changed.next() // before the read: a change after it wakes the wait
		found, err := r.store.Submissions(ctx, projectID, wallet, sigs)
		if err != nil {
			return nil, storeError(err)
		}
		out, done := submissions(sigs, found, final)
		left := until.Sub(r.now())
		if done || left <= 0 {
			return out, nil
		}
		timer := time.NewTimer(min(r.statusPoll, left))
		select {
		case <-ctx.Done():
			timer.Stop()
			return out, nil
		case <-changed:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// Changed wakes the status requests waiting on this instance to read the
// ledger again at once: the tracker calls it after a pass that moved
// entries (Tracker.Changed). Those of other instances read it within
// StatusPoll.
func (r *Relay) Changed() { r.changed.fire() }

// wake is a broadcast: next returns a channel that the next fire closes.
type wake struct {
	mu sync.Mutex
	ch chan struct{}
}

func (w *wake) next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

func (w *wake) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}

// submissions answers sigs from the entries found, and reports whether all
// are landed or final (final: whether all are final).
func submissions(sigs []string, found []ledger.Entry, final bool) ([]Submission, bool) {
	bySig := make(map[string]ledger.Entry, len(found))
	for _, e := range found {
		bySig[e.Signature] = e
	}
	out := make([]Submission, len(sigs))
	done := true
	for i, sig := range sigs {
		e, ok := bySig[sig]
		if !ok {
			out[i] = Submission{Signature: sig, State: StateUnknown}
			continue
		}
		out[i] = submission(e)
		done = done && (out[i].State.Final() || (!final && out[i].State.Seen()))
	}
	return out, done
}

// submission is an entry's status.
func submission(e ledger.Entry) Submission {
	s := Submission{Signature: e.Signature, Includes: e.Includes}
	switch e.Status {
	case ledger.StatusConfirmed:
		s.State, s.Slot, s.Landed = StateConfirmed, e.Slot, e.Figures()
		s.Rent, s.OwnBalance, s.Split = e.Split()
		if e.ConfirmedAt != nil {
			s.ConfirmedAt = e.ConfirmedAt.UTC()
		}
	case ledger.StatusFailed, ledger.StatusExpired:
		s.State = StateFailed
		if e.Status == ledger.StatusExpired {
			s.State = StateExpired
		}
		res, _ := Failure(e)
		s.Code, s.Message = res.Code, res.Message
	default: // sending, submitted: on its way, landed once found at LandedCommitment
		s.State = StateSubmitted
		if e.LandedAt != nil {
			s.State, s.Slot, s.Landed = StateLanded, e.Slot, e.Figures()
			s.Rent, s.OwnBalance, s.Split = e.Split()
		}
	}
	return s
}
