package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// TrackerCounts are what a Tracker settled since it started, for metrics.
type TrackerCounts struct {
	// Landed transactions, found at LandedCommitment; Dropped, landed ones
	// that the cluster no longer had (a fork dropped their block).
	Landed, Dropped uint64
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
	landed, dropped                       atomic.Uint64
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
		Landed: t.counts.landed.Load(), Dropped: t.counts.dropped.Load(),
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
		var changed bool
		var err error
		if status == ledger.StatusFailed {
			changed, err = t.store.FailEntry(ctx, e.TicketJTI, reason, e.Slot, now)
		} else {
			changed, err = t.store.SetEntryStatus(ctx, e.TicketJTI, status, reason, now)
		}
		if changed && status == ledger.StatusFailed {
			t.counts.failed.Add(1)
		} else if changed {
			t.counts.expired.Add(1)
		}
		return changed, err
	}
	landed, slot, ok, err := t.landing(ctx, e, sig, Commitment)
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

// landing is an entry found at LandedCommitment, in slot (the statuses').
type landing struct {
	e    ledger.Entry
	sig  solana.Signature
	slot int64
}

// landReads bounds the landing reads of a batch in flight at once.
const landReads = 8

// land marks the entries found landed: each transaction is read back at
// LandedCommitment for its figures, the reads of a batch together (at most
// landReads at once: one round trip for a few landings), then each entry
// is written. One the cluster cannot return at that commitment yet is left
// for the next pass; a reported one that is not its ticket's is failed at
// Commitment, as record does.
func (t *Tracker) land(ctx context.Context, found []landing, now time.Time) error {
	type read struct {
		f    ledger.Figures
		slot int64
		ok   bool
		err  error
	}
	reads := make([]read, len(found))
	sem := make(chan struct{}, landReads)
	var wg sync.WaitGroup
	for i, l := range found {
		if l.e.Status == ledger.StatusSending {
			// The cluster has it: its submit got through.
			if _, err := t.store.MarkSubmitted(ctx, l.e.TicketJTI); err != nil {
				return err
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r := &reads[i]
			r.f, r.slot, r.ok, r.err = t.landing(ctx, l.e, l.sig, LandedCommitment)
		}()
	}
	wg.Wait()
	var errs []error
	for i, l := range found {
		r := reads[i]
		var nt *notTheTicketError
		if errors.As(r.err, &nt) || (r.err == nil && !r.ok) {
			continue
		}
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		slot := l.slot
		if r.slot > 0 {
			slot = r.slot
		}
		changed, err := t.store.LandEntry(ctx, l.e.TicketJTI, r.f, slot, now)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		if changed {
			t.counts.landed.Add(1)
			t.log.DebugContext(ctx, "transaction landed", "signature", l.e.Signature, "ticket", l.e.TicketJTI, "slot", slot)
		}
	}
	return errors.Join(errs...)
}

// unland takes back e's landing: the cluster no longer has its transaction.
func (t *Tracker) unland(ctx context.Context, e ledger.Entry) error {
	changed, err := t.store.UnlandEntry(ctx, e.TicketJTI)
	if err != nil || !changed {
		return err
	}
	t.counts.dropped.Add(1)
	t.log.WarnContext(ctx, "a landed transaction is gone from the cluster (a fork dropped its block); following it again",
		"signature", e.Signature, "ticket", e.TicketJTI, "slot", e.Slot)
	return nil
}

// landing reads a landed transaction back at commitment (getTransaction
// with its meta) and computes what it did for e, and the slot that holds
// it. ok is false while the cluster cannot return it at commitment yet.
func (t *Tracker) landing(ctx context.Context, e ledger.Entry, sig solana.Signature, commitment rpc.CommitmentType) (f ledger.Figures, slot int64, ok bool, err error) {
	if e.Reported == nil && ((e.Promised.DonationAmount > 0 && e.DonationWallet == "") || (e.Promised.ServiceFee > 0 && e.Treasury == "")) {
		// Claimed before recipients were recorded: its promise is all we know.
		return e.Promised, 0, true, nil
	}
	res, err := t.rpc.GetTransaction(ctx, sig, readOpts(commitment))
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
	tx, err := decode(res.Transaction.GetBinary())
	if err != nil {
		return f, 0, false, fmt.Errorf("read transaction %s: %w", e.Signature, err)
	}
	var keys []string
	for _, group := range []solana.PublicKeySlice{tx.keys, res.Meta.LoadedAddresses.Writable, res.Meta.LoadedAddresses.ReadOnly} {
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

// readOpts are the options of every getTransaction the relay and the
// tracker make: base64 and version 1. A v1 transaction is refused (-32015)
// below maxSupportedTransactionVersion 1, and Agave encodes it only in the
// binary encodings (json and jsonParsed of a v1 message are unimplemented
// in its transaction-status crate), so the bytes are read here: the
// message's addresses, in the order of meta's balances, then a v0
// message's loaded ones.
func readOpts(commitment rpc.CommitmentType) *rpc.GetTransactionOpts {
	version := rpc.MaxSupportedTransactionVersion1
	return &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: commitment, MaxSupportedTransactionVersion: &version}
}

// notTheTicketError is a reported transaction that landed and is not the one its
// ticket describes (checkReported), and why.
type notTheTicketError struct{ reason string }

func (e *notTheTicketError) Error() string { return "not the ticket's transaction: " + e.reason }
