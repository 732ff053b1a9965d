package relay

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// TrackerCounts are what a Tracker settled since it started, for metrics.
type TrackerCounts struct {
	// Confirmed transactions, counted in the ledger with what the chain did.
	Confirmed uint64
	// Differing are the confirmed transactions whose landed figures differ
	// from their ticket's promise: a wallet that raised its priority fee, an
	// account that received lamports after the build.
	Differing uint64
	Failed    uint64
	Expired   uint64
	// Rebroadcasts are the sends of transactions in flight after their
	// first, to the cluster's RPC (each also went to every extra path);
	// RebroadcastFailures those the RPC did not take.
	Rebroadcasts        uint64
	RebroadcastFailures uint64
}

type counters struct {
	confirmed, differing, failed, expired atomic.Uint64
	rebroadcasts, rebroadcastFailures     atomic.Uint64
	// lag, when set, hears each confirmation's lag (ObserveConfirmations).
	lag func(time.Duration)
}

// ObserveConfirmations has f called with the lag of every transaction t
// counts confirmed: from its claim at submit to now. Call it before Run.
func (t *Tracker) ObserveConfirmations(f func(lag time.Duration)) {
	t.counts.lag = f
}

// Counts returns what t settled since it started.
func (t *Tracker) Counts() TrackerCounts {
	return TrackerCounts{
		Confirmed: t.counts.confirmed.Load(), Differing: t.counts.differing.Load(),
		Failed: t.counts.failed.Load(), Expired: t.counts.expired.Load(),
		Rebroadcasts: t.counts.rebroadcasts.Load(), RebroadcastFailures: t.counts.rebroadcastFailures.Load(),
	}
}

// record settles entry e as status. A confirmed entry is counted with what
// the chain did: until the cluster returns the transaction at Commitment,
// it is left for the next pass.
func (t *Tracker) record(ctx context.Context, e ledger.Entry, sig solana.Signature, status ledger.Status, reason string, now time.Time) (bool, error) {
	if status != ledger.StatusConfirmed {
		changed, err := t.store.SetEntryStatus(ctx, e.TicketJTI, status, reason, now)
		if changed && status == ledger.StatusFailed {
			t.counts.failed.Add(1)
		} else if changed {
			t.counts.expired.Add(1)
		}
		return changed, err
	}
	landed, slot, ok, err := t.landing(ctx, e, sig)
	var nt *notTheTicketError
	if errors.As(err, &nt) {
		// Never counted: the wallet reported another transaction.
		t.log.WarnContext(ctx, "reported transaction landed and is not its ticket's; not counted",
			"signature", e.Signature, "ticket", e.TicketJTI, "reason", nt.reason)
		return t.record(ctx, e, sig, ledger.StatusFailed, mismatchPrefix+nt.reason, now)
	}
	if err != nil || !ok {
		return false, err
	}
	changed, err := t.store.ConfirmEntry(ctx, e.TicketJTI, landed, slot, now)
	if errors.Is(err, ledger.ErrDuplicate) {
		// A reported transaction that another ticket's entry holds (built
		// before reference keys, two tickets could describe one message):
		// counted once, under that one.
		return t.record(ctx, e, sig, ledger.StatusFailed, mismatchPrefix+"the transaction is counted under another ticket", now)
	}
	if err != nil || !changed {
		return changed, err
	}
	t.counts.confirmed.Add(1)
	if t.counts.lag != nil {
		t.counts.lag(now.Sub(e.CreatedAt))
	}
	if landed != e.Promised {
		t.counts.differing.Add(1)
		e.Status = ledger.StatusConfirmed
		e.SetFigures(landed)
		t.log.WarnContext(ctx, "transaction landed with other figures than its ticket promised",
			"signature", e.Signature, "ticket", e.TicketJTI, "difference", e.Difference())
	}
	t.log.InfoContext(ctx, "transaction confirmed", "signature", e.Signature, "ticket", e.TicketJTI,
		"net_rebate", landed.NetRebate, "network_fee", landed.NetworkFee)
	return true, nil
}

// landing reads a landed transaction back (getTransaction with its meta)
// and computes what it did for e, and the slot that holds it. ok is false
// while the cluster cannot return it at Commitment yet.
func (t *Tracker) landing(ctx context.Context, e ledger.Entry, sig solana.Signature) (f ledger.Figures, slot int64, ok bool, err error) {
	if e.Reported == nil && ((e.Promised.DonationAmount > 0 && e.DonationWallet == "") || (e.Promised.ServiceFee > 0 && e.Treasury == "")) {
		// Claimed before recipients were recorded: its promise is all we know.
		return e.Promised, 0, true, nil
	}
	version := uint64(0)
	res, err := t.rpc.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{
		Encoding: solana.EncodingBase64, Commitment: Commitment, MaxSupportedTransactionVersion: &version,
	})
	switch {
	case errors.Is(err, rpc.ErrNotFound):
		return f, 0, false, nil
	case err != nil:
		return f, 0, false, fmt.Errorf("read transaction %s: %w", e.Signature, err)
	case res.Meta == nil || res.Transaction == nil:
		return f, 0, false, fmt.Errorf("read transaction %s: no meta", e.Signature)
	}
	slot = int64(res.Slot)
	if e.Reported != nil {
		if reason, ok := checkReported(e, res.Transaction.GetBinary()); !ok {
			return f, 0, false, &notTheTicketError{reason: reason}
		}
	}
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		return f, 0, false, fmt.Errorf("read transaction %s: %w", e.Signature, err)
	}
	var keys []string
	for _, group := range []solana.PublicKeySlice{tx.Message.AccountKeys, res.Meta.LoadedAddresses.Writable, res.Meta.LoadedAddresses.ReadOnly} {
		for _, k := range group {
			keys = append(keys, k.String())
		}
	}
	l := ledger.Landing{Fee: res.Meta.Fee, Keys: keys, Pre: res.Meta.PreBalances, Post: res.Meta.PostBalances}
	if f, err = l.Figures(e.Payer, e.DonationWallet, e.Treasury, e.Promised); err != nil {
		// The cluster's answer cannot be ours (we checked the fee payer at
		// submit): count the promise rather than never settle.
		t.log.ErrorContext(ctx, "landed transaction unreadable; counting its ticket's promise", "signature", e.Signature, "err", err)
		return e.Promised, slot, true, nil
	}
	return f, slot, true, nil
}

// notTheTicketError is a reported transaction that landed and is not the one its
// ticket describes (checkReported), and why.
type notTheTicketError struct{ reason string }

func (e *notTheTicketError) Error() string { return "not the ticket's transaction: " + e.reason }
