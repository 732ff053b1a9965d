package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/ledger"
)

// TrackerRPC is what the tracker needs of the cluster.
type TrackerRPC interface {
	GetSignatureStatuses(ctx context.Context, searchTransactionHistory bool, sigs ...solana.Signature) (*rpc.GetSignatureStatusesResult, error)
	GetBlockHeight(ctx context.Context, commitment rpc.CommitmentType) (uint64, error)
	GetTransaction(ctx context.Context, sig solana.Signature, opts *rpc.GetTransactionOpts) (*rpc.GetTransactionResult, error)
}

// TrackerStore is what the tracker needs of the ledger. Its updates are
// conditional on the entry's current status, so trackers on several
// instances, or a tracker restarted mid-way, count each confirmation once.
type TrackerStore interface {
	InFlight(ctx context.Context, limit int) ([]ledger.Entry, error)
	MarkSubmitted(ctx context.Context, jti string) (bool, error)
	SetEntryStatus(ctx context.Context, jti, status, errMsg string, at time.Time) (bool, error)
	ConfirmEntry(ctx context.Context, jti string, landed ledger.Figures, at time.Time) (bool, error)
}

// Commitment is the commitment at which the tracker settles a transaction:
// finalized, so that the ledger never counts a transaction a fork dropped
// (a confirmed block can still be). Stats follow landings by the
// finalization delay, about 13 seconds on mainnet.
const Commitment = rpc.CommitmentFinalized

// Tracker follows submitted transactions until they are confirmed (at
// Commitment), failed or expired, and records what a landed one did. Its
// state is the ledger, so it survives restarts.
type Tracker struct {
	rpc   TrackerRPC
	store TrackerStore
	log   *slog.Logger
	now   func() time.Time
	// Interval between passes.
	Interval time.Duration
	// grace keeps a claim that is still being sent out of the tracker's way.
	grace  time.Duration
	counts counters
}

// batch is the most signatures getSignatureStatuses takes at once.
const batch = 256

// NewTracker returns a Tracker.
func NewTracker(r TrackerRPC, s TrackerStore, log *slog.Logger, now func() time.Time) *Tracker {
	return &Tracker{rpc: r, store: s, log: log, now: now, Interval: time.Second, grace: 30 * time.Second}
}

// stopGrace bounds how long a pass under way when Run's context ends may
// still take.
const stopGrace = 10 * time.Second

// Run tracks until ctx is done. It stops between passes: a pass under way
// when ctx ends runs to its end (for at most stopGrace more), so a stopping
// process leaves no batch half-settled.
func (t *Tracker) Run(ctx context.Context) {
	passCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(stopGrace, cancel) })()
	tick := time.NewTicker(t.Interval)
	defer tick.Stop()
	for {
		if _, err := t.Pass(passCtx); err != nil && passCtx.Err() == nil {
			t.log.WarnContext(ctx, "confirmation tracker pass failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Pass looks once at up to 1024 entries in flight and settles those the
// cluster has decided. It returns how many entries it moved.
func (t *Tracker) Pass(ctx context.Context) (int, error) {
	entries, err := t.store.InFlight(ctx, 4*batch)
	if err != nil || len(entries) == 0 {
		return 0, err
	}
	height, err := t.rpc.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return 0, fmt.Errorf("block height: %w", err)
	}
	moved := 0
	for start := 0; start < len(entries); start += batch {
		chunk := entries[start:min(start+batch, len(entries))]
		n, err := t.settle(ctx, chunk, height)
		moved += n
		if err != nil {
			return moved, err
		}
	}
	return moved, nil
}

func (t *Tracker) settle(ctx context.Context, entries []ledger.Entry, height uint64) (int, error) {
	sigs := make([]solana.Signature, len(entries))
	for i, e := range entries {
		s, err := solana.SignatureFromBase58(e.Signature)
		if err != nil {
			return 0, fmt.Errorf("entry %s: bad signature: %w", e.TicketJTI, err)
		}
		sigs[i] = s
	}
	res, err := t.rpc.GetSignatureStatuses(ctx, true, sigs...)
	if err != nil {
		return 0, fmt.Errorf("signature statuses: %w", err)
	}
	if len(res.Value) != len(entries) {
		return 0, errors.New("signature statuses: answer of the wrong length")
	}
	moved := 0
	now := t.now().UTC()
	for i, e := range entries {
		st := res.Value[i]
		var status, reason string
		switch {
		case st != nil && st.ConfirmationStatus != rpc.ConfirmationStatusFinalized:
			continue // processed or confirmed: a fork may still drop it
		case st != nil && st.Err != nil:
			status, reason = ledger.StatusFailed, fmt.Sprint(st.Err)
		case st != nil:
			status = ledger.StatusConfirmed
		case height > uint64(e.LastValidBlockHeight) && e.LastValidBlockHeight > 0:
			status, reason = ledger.StatusExpired, "the blockhash expired before the transaction landed"
		default:
			continue // still within its blockhash's life
		}
		if e.Status == ledger.StatusSending {
			if now.Sub(e.CreatedAt) < t.grace && st == nil {
				continue // its submit is still talking to the cluster
			}
			if _, err := t.store.MarkSubmitted(ctx, e.TicketJTI); err != nil {
				return moved, err
			}
		}
		changed, err := t.record(ctx, e, sigs[i], status, reason, now)
		if err != nil {
			return moved, err
		}
		if changed {
			moved++
		}
	}
	return moved, nil
}
