package relay

import (
	"context"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// State is where a submission is, as the status API tells it.
type State string

// Submission states: the ledger's, but a claim still being sent reads as
// submitted, and a signature the wallet never submitted to the project is
// unknown.
const (
	StateSubmitted State = "submitted"
	StateConfirmed State = "confirmed"
	StateFailed    State = "failed"
	StateExpired   State = "expired"
	StateUnknown   State = "unknown"
)

// Final reports whether s will not change any more. Unknown is final: a
// signature the ledger does not hold for this wallet now will not be
// submitted under it by waiting.
func (s State) Final() bool { return s != StateSubmitted }

// Submission is where one submitted transaction is.
type Submission struct {
	Signature string
	State     State
	// Includes are its items (nil when unknown).
	Includes []ticket.Item
	// Code and Message explain a failed or expired one.
	Code    Code
	Message string
	// Slot, ConfirmedAt and Landed tell a confirmed one: the slot that
	// holds it (0 for one confirmed before slots were kept), when the
	// tracker saw it finalized, and what it did on chain.
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
// both is unknown. While one is not final it reads the ledger again every
// StatusPoll, for up to wait (0: answers at once); a request whose context
// ends gets the last answer read. Only a ledger that does not answer is an
// error (ErrStore).
func (r *Relay) Submissions(ctx context.Context, projectID, wallet string, sigs []string, wait time.Duration) ([]Submission, error) {
	until := time.Now().Add(wait)
	for {
		found, err := r.store.Submissions(ctx, projectID, wallet, sigs)
		if err != nil {
			return nil, storeError(err)
		}
		out, final := submissions(sigs, found)
		left := time.Until(until)
		if final || left <= 0 {
			return out, nil
		}
		timer := time.NewTimer(min(r.statusPoll, left))
		select {
		case <-ctx.Done():
			timer.Stop()
			return out, nil
		case <-timer.C:
		}
	}
}

// submissions answers sigs from the entries found, and reports whether all
// are final.
func submissions(sigs []string, found []ledger.Entry) ([]Submission, bool) {
	bySig := make(map[string]ledger.Entry, len(found))
	for _, e := range found {
		bySig[e.Signature] = e
	}
	out := make([]Submission, len(sigs))
	final := true
	for i, sig := range sigs {
		e, ok := bySig[sig]
		if !ok {
			out[i] = Submission{Signature: sig, State: StateUnknown}
			continue
		}
		out[i] = submission(e)
		final = final && out[i].State.Final()
	}
	return out, final
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
	default: // sending, submitted: on its way
		s.State = StateSubmitted
	}
	return s
}
