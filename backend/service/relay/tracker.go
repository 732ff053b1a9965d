package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/lease"
)

// TrackerRPC is what the tracker needs of the cluster: statuses, block
// heights, the landed transactions, and to send the ones in flight again.
type TrackerRPC interface {
	Sender
	GetSignatureStatuses(ctx context.Context, searchTransactionHistory bool, sigs ...solana.Signature) (*rpc.GetSignatureStatusesResult, error)
	GetBlockHeight(ctx context.Context, commitment rpc.CommitmentType) (uint64, error)
	GetTransaction(ctx context.Context, sig solana.Signature, opts *rpc.GetTransactionOpts) (*rpc.GetTransactionResult, error)
}

// TrackerStore is what the tracker needs of the ledger. Its updates are
// conditional on the entry's current status, so trackers on several
// instances, or a tracker restarted mid-way, count each confirmation once;
// its leases and pass claims keep them from repeating each other's work.
type TrackerStore interface {
	LeaseInFlight(ctx context.Context, owner string, limit int, now, until time.Time) ([]ledger.Entry, error)
	ReleaseLeases(ctx context.Context, owner string, now time.Time) error
	ClaimPass(ctx context.Context, name, owner string, slot int64) (bool, error)
	MarkSubmitted(ctx context.Context, jti string) (bool, error)
	SetEntryStatus(ctx context.Context, jti string, status ledger.Status, errMsg string, at time.Time) (bool, error)
	// FailEntry is SetEntryStatus to failed, with the slot that holds the
	// failed transaction.
	FailEntry(ctx context.Context, jti, errMsg string, slot int64, at time.Time) (bool, error)
	ConfirmEntry(ctx context.Context, jti string, landed ledger.Figures, slot int64, at time.Time) (bool, error)
	// LandEntry marks a submitted entry landed (found at LandedCommitment)
	// with what the chain did there; UnlandEntry takes that back when a
	// fork dropped it. Neither counts anything.
	LandEntry(ctx context.Context, jti string, landed ledger.Figures, slot int64, at time.Time) (bool, error)
	UnlandEntry(ctx context.Context, jti string) (bool, error)
	// PruneAttempts deletes up to limit lines of the submission log older
	// than before, oldest first, and returns how many it deleted.
	PruneAttempts(ctx context.Context, before time.Time, limit int) (int, error)
}

// Commitment is the commitment at which the tracker settles a transaction:
// finalized, so that the ledger never counts a transaction a fork dropped
// (a confirmed block can still be). Stats follow landings by the
// finalization delay, about 13 seconds on mainnet.
const Commitment = rpc.CommitmentFinalized

// LandedCommitment is the commitment at which the tracker tells a
// transaction landed (the status API's landed, the submission.landed
// event), with the figures read there: what wallets and explorers show
// within a second. Nothing is counted at it.
const LandedCommitment = rpc.CommitmentConfirmed

// Tracker follows submitted transactions until they are confirmed (at
// Commitment), failed or expired, and records what a landed one did; it
// marks one landed as soon as it is found at LandedCommitment; until
// the cluster has one or its blockhash expires, it sends it again, the same
// bytes, every RebroadcastInterval (rebroadcast.go). Its state is the
// ledger, so it survives restarts.
//
// Every instance runs one, and they share the work through the ledger
// rather than repeat it: one pass per Interval runs, on whichever instance
// claims it first (ClaimPass), so the cluster sees the calls of one tracker
// however many instances there are; a pass leases the entries it follows
// (LeaseInFlight) and releases them when it ends, so passes that overlap
// never follow the same entry, and the entries of an instance that died
// mid-pass are followed again once their lease ends.
type Tracker struct {
	rpc   TrackerRPC
	store TrackerStore
	log   *slog.Logger
	now   func() time.Time
	// Interval between passes, across every instance sharing the ledger.
	Interval time.Duration
	// Lease bounds a pass: its entries are leased this long, and the pass
	// stops when the lease ends.
	Lease time.Duration
	// Retention is how long the submission log keeps a line: older ones
	// are pruned (retention.go); 0 keeps every line.
	Retention time.Duration
	// RebroadcastInterval is how often a transaction in flight that the
	// cluster does not have is sent again, in whole Intervals (at least
	// one); 0 never sends again (rebroadcast.go).
	RebroadcastInterval time.Duration
	// Paths, when set, get every rebroadcast too (extra send paths).
	Paths *Paths
	// Expiring are other rows pruned in the same pass (retention.go).
	Expiring []Expiring
	// Changed, when set, is called after a batch in which the tracker
	// landed, dropped or settled entries (Relay.Changed).
	Changed func()
	// owner names this tracker in the leases and pass claims it holds.
	owner string
	// grace keeps a claim that is still being sent out of the tracker's way.
	grace  time.Duration
	counts counters
	// pruneSlot is the last pruning pass this tracker asked for.
	pruneSlot atomic.Int64
}

// batch is the most signatures getSignatureStatuses takes at once.
const batch = 256

// passName names the tracker's passes in the ledger's schedule.
const passName = "confirmations"

// NewTracker returns a Tracker.
func NewTracker(r TrackerRPC, s TrackerStore, log *slog.Logger, now func() time.Time) *Tracker {
	return &Tracker{
		rpc: r, store: s, log: log, now: now, Interval: time.Second, Lease: 30 * time.Second,
		Retention: DefaultRetention, RebroadcastInterval: DefaultRebroadcastInterval, owner: lease.Owner(), grace: SendGrace,
	}
}

// stopGrace bounds how long a pass under way when Run's context ends may
// still take.
const stopGrace = 10 * time.Second

// Run tracks until ctx is done: at the start of every Interval (of the
// clock), it runs the pass unless another instance claimed it first. It
// stops between passes: a pass under way when ctx ends runs to its end (for
// at most stopGrace more), so a stopping process leaves no batch
// half-settled.
func (t *Tracker) Run(ctx context.Context) {
	passCtx, done := lease.Graceful(ctx, stopGrace)
	defer done()
	for {
		if _, err := t.Tick(passCtx); err != nil && passCtx.Err() == nil {
			t.log.WarnContext(ctx, "confirmation tracker pass failed", "err", err)
		}
		wait := t.Interval - time.Duration(t.now().UnixNano()%int64(t.Interval))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// Tick runs the pass of the current Interval when no tracker sharing the
// ledger has claimed it yet, and reports whether it ran it; and, once a
// minute, the pruning of the submission log (Prune) in the same way.
func (t *Tracker) Tick(ctx context.Context) (bool, error) {
	ran, err := t.confirmations(ctx)
	return ran, errors.Join(err, t.tickPrune(ctx))
}

func (t *Tracker) confirmations(ctx context.Context) (bool, error) {
	slot := t.now().UnixNano() / int64(t.Interval)
	won, err := t.store.ClaimPass(ctx, passName, t.owner, slot)
	if err != nil || !won {
		return false, err
	}
	_, err = t.pass(ctx, slot)
	return true, err
}

// Pass leases up to 1024 entries in flight, settles those the cluster has
// decided, sends again those due (rebroadcast.go), and releases them all.
// It returns how many entries it moved.
func (t *Tracker) Pass(ctx context.Context) (int, error) {
	return t.pass(ctx, t.now().UnixNano()/int64(t.Interval))
}

// pass is Pass as the pass of slot (of the clock's Intervals), which picks
// the entries due for a rebroadcast.
func (t *Tracker) pass(ctx context.Context, slot int64) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Lease)
	defer cancel()
	now := t.now().UTC()
	entries, err := t.store.LeaseInFlight(ctx, t.owner, 4*batch, now, now.Add(t.Lease))
	if err != nil || len(entries) == 0 {
		return 0, err
	}
	defer t.release(ctx)
	height, err := t.rpc.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return 0, fmt.Errorf("block height: %w", err)
	}
	moved := 0
	var unseen []ledger.Entry
	for start := 0; start < len(entries); start += batch {
		chunk := entries[start:min(start+batch, len(entries))]
		n, waiting, err := t.settle(ctx, chunk, height)
		moved += n
		if err != nil {
			return moved, err
		}
		unseen = append(unseen, waiting...)
	}
	return moved, t.rebroadcast(ctx, t.due(unseen, slot))
}

// release frees the entries of a pass for the next one, on any instance;
// if it fails, their lease ends by itself.
func (t *Tracker) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := t.store.ReleaseLeases(ctx, t.owner, t.now().UTC()); err != nil {
		t.log.WarnContext(ctx, "confirmation tracker could not release its leases; they end by themselves",
			"lease", t.Lease, "err", err)
	}
}

// settle settles the entries the cluster has decided; it returns how many
// it moved, and the entries the cluster does not know whose blockhash
// lives at height (the ones to send again).
func (t *Tracker) settle(ctx context.Context, entries []ledger.Entry, height uint64) (int, []ledger.Entry, error) {
	sigs := make([]solana.Signature, len(entries))
	for i, e := range entries {
		s, err := solana.SignatureFromBase58(e.Signature)
		if err != nil {
			return 0, nil, fmt.Errorf("entry %s: bad signature: %w", e.TicketJTI, err)
		}
		sigs[i] = s
	}
	res, err := t.rpc.GetSignatureStatuses(ctx, true, sigs...)
	if err != nil {
		return 0, nil, fmt.Errorf("signature statuses: %w", err)
	}
	if len(res.Value) != len(entries) {
		return 0, nil, errors.New("signature statuses: answer of the wrong length")
	}
	var unseen []ledger.Entry
	var found []landing
	moved := 0
	now := t.now().UTC()
	landed := t.counts.landed.Load() + t.counts.dropped.Load()
	defer func() {
		if t.Changed != nil && (moved > 0 || t.counts.landed.Load()+t.counts.dropped.Load() != landed) {
			t.Changed()
		}
	}()
	for i, e := range entries {
		st := res.Value[i]
		var status ledger.Status
		var reason string
		if st != nil && st.ConfirmationStatus != rpc.ConfirmationStatusFinalized {
			// Processed or confirmed: a fork may still drop it. Confirmed
			// and without an error, it is landed (once).
			if st.ConfirmationStatus == rpc.ConfirmationStatusConfirmed && st.Err == nil && e.LandedAt == nil {
				found = append(found, landing{e: e, sig: sigs[i], slot: int64(st.Slot)})
			}
			continue
		}
		if st == nil && e.LandedAt != nil {
			// Landed, and the cluster no longer has it: a fork dropped its
			// block. Followed (and sent) again as before it landed.
			if err := t.unland(ctx, e); err != nil {
				return moved, unseen, err
			}
		}
		switch {
		case st != nil && st.Err != nil:
			status, reason, e.Slot = ledger.StatusFailed, fmt.Sprint(st.Err), int64(st.Slot)
		case st != nil:
			status = ledger.StatusConfirmed
		case height > uint64(e.LastValidBlockHeight) && e.LastValidBlockHeight > 0:
			status, reason = ledger.StatusExpired, "the blockhash expired before the transaction landed"
		default: // still within its blockhash's life
			adopted, err := t.adopt(ctx, e, now)
			if err != nil {
				return moved, unseen, err
			}
			unseen = append(unseen, adopted)
			continue
		}
		if e.Status == ledger.StatusSending {
			if now.Sub(e.CreatedAt) < t.grace && st == nil {
				continue // its submit is still talking to the cluster
			}
			if _, err := t.store.MarkSubmitted(ctx, e.TicketJTI); err != nil {
				return moved, unseen, err
			}
		}
		changed, err := t.record(ctx, e, sigs[i], status, reason, now)
		if err != nil {
			return moved, unseen, err
		}
		if changed {
			moved++
		}
	}
	return moved, unseen, t.land(ctx, found, now)
}

// adopt takes over e, a claim the cluster does not know yet, once it is an
// orphan: still sending grace after it was claimed, when the submit that
// claimed it can no longer be running (its instance died mid-send, holding
// the signed bytes, which may have reached the node). It is marked
// submitted, so that it is sent again (due) and counted if it lands,
// whether or not the client ever retries. A claim within grace, or already
// submitted, is e as it is.
func (t *Tracker) adopt(ctx context.Context, e ledger.Entry, now time.Time) (ledger.Entry, error) {
	if e.Status != ledger.StatusSending || now.Sub(e.CreatedAt) < t.grace {
		return e, nil
	}
	if adopted, err := t.store.MarkSubmitted(ctx, e.TicketJTI); err != nil || !adopted {
		return e, err // or its submit settled it meanwhile: the next pass reads it
	}
	t.log.InfoContext(ctx, "confirmation tracker adopted a transaction its submit left sending", "signature", e.Signature)
	e.Status = ledger.StatusSubmitted
	return e, nil
}
