package relay

import (
	"context"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// DefaultRebroadcastInterval is how often a transaction in flight is sent
// again unless told otherwise (RECLAIM_REBROADCAST_INTERVAL): about every
// five slots, as Solana's retry guide and the RPC providers' sending guides
// advise.
const DefaultRebroadcastInterval = 2 * time.Second

// expiryMargin is how many blocks before its last valid block height a
// transaction is last sent: a send takes a moment to reach the leader,
// which drops it past that height, so nothing is sent that would arrive
// after its expiry.
const expiryMargin = 4

// due picks, of the entries in flight the cluster does not know, those to
// send again in pass slot: the submitted ones whose signed bytes are kept,
// each once every RebroadcastInterval (in passes: k of them), in a phase of
// its own (its signature's first byte), so that a pass sends about 1/k of
// them. Passes run once per Interval across every instance sharing the
// ledger, and their entries are leased, so each rebroadcast is sent by one
// instance.
func (t *Tracker) due(unseen []ledger.Entry, slot int64) []ledger.Entry {
	if t.RebroadcastInterval <= 0 {
		return nil
	}
	k := max(1, int64((t.RebroadcastInterval+t.Interval/2)/t.Interval))
	var out []ledger.Entry
	for _, e := range unseen {
		if e.Status != ledger.StatusSubmitted || len(e.Raw) == 0 || e.LastValidBlockHeight <= 0 {
			continue
		}
		sig, err := solana.SignatureFromBase58(e.Signature)
		if err != nil {
			continue
		}
		if (slot+int64(sig[0]))%k == 0 {
			out = append(out, e)
		}
	}
	return out
}

// rebroadcast sends entries again, the same bytes, without preflight, to
// the cluster's RPC and every extra path in parallel, but those whose
// blockhash expires within expiryMargin blocks of the chain's height (at
// processed, the newest the RPC node knows). A failed send is counted; the
// next one is due an interval later.
func (t *Tracker) rebroadcast(ctx context.Context, entries []ledger.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	height, err := t.rpc.GetBlockHeight(ctx, rpc.CommitmentProcessed)
	if err != nil {
		return fmt.Errorf("rebroadcast: block height: %w", err)
	}
	var txs [][]byte
	for _, e := range entries {
		if height+expiryMargin <= uint64(e.LastValidBlockHeight) {
			txs = append(txs, e.Raw)
		}
	}
	if len(txs) == 0 {
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.Paths.Send(ctx, txs...)
	}()
	failed, first := sendAll(ctx, t.rpc, txs, rebroadcastOpts)
	<-done
	t.counts.rebroadcasts.Add(uint64(len(txs)))
	if failed > 0 {
		t.counts.rebroadcastFailures.Add(uint64(failed))
		return fmt.Errorf("rebroadcast: %d of %d sends failed: %w", failed, len(txs), first)
	}
	return nil
}
