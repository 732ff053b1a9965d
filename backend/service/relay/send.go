package relay

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// noRetries is maxRetries 0: the RPC node forwards a transaction to the
// leader once and never again; sending it again is ours to do (the tracker
// rebroadcasts), so that it stops when the transaction lands or expires.
var noRetries uint

// firstSend are the options of a submit's send: preflight at confirmed (the
// commitment the builds take their blockhash at, so the preflight bank
// knows it), no retries by the node.
var firstSend = rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed, MaxRetries: &noRetries}

// checkTimeout bounds each question the relay asks the cluster after a send
// (does it know the signature, how high is the chain), on top of the
// request's SendTimeout.
const checkTimeout = 3 * time.Second

// send relays a claimed transaction and answers by its outcome (outcome.go):
// accepted, or unknown (it may have reached the node: the tracker follows
// it and sends it again until it lands or expires), the claim is kept and
// the entry submitted; refused by the node, or never sent, the claim is
// released unless the cluster knows the signature (an earlier send, the
// wallet's own, landed it): the ticket was not consumed.
func (r *Relay) send(ctx context.Context, req *request, claim ledger.Entry) (Result, error) {
	res := r.sendOnce(ctx, req, claim.Raw)
	if res.outcome == refused || res.outcome == notProcessed {
		if seen, err := r.seen(ctx, claim.Signature); err != nil || !seen {
			if err := r.store.ReleaseClaim(context.WithoutCancel(ctx), claim.TicketJTI); err != nil {
				return Result{}, err
			}
			return fail(CodeRPCError, "%s", res.reason), nil
		}
	}
	if _, err := r.store.MarkSubmitted(context.WithoutCancel(ctx), claim.TicketJTI); err != nil {
		return Result{}, err
	}
	r.fanOut(ctx, claim.Raw)
	return Result{Status: StatusSubmitted, Signature: claim.Signature}, nil
}

// sendOnce sends raw to the cluster's RPC with firstSend's options, within
// the request's SendTimeout whatever the request's own context: a client
// that gives up must not cut a send whose answer decides the claim.
func (r *Relay) sendOnce(ctx context.Context, req *request, raw []byte) sendResult {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.left(req))
	defer cancel()
	_, err := r.rpc.SendRawTransactionWithOpts(ctx, raw, firstSend)
	return classify(err)
}

// fanOut sends a transaction the cluster took (or may have) to the extra
// send paths, in the background: the client's answer does not wait for
// them, and a path that fails is only logged and counted (Paths).
func (r *Relay) fanOut(ctx context.Context, raw []byte) {
	if r.Paths == nil || len(raw) == 0 {
		return
	}
	r.background.Add(1)
	go func() {
		defer r.background.Done()
		r.Paths.Send(context.WithoutCancel(ctx), raw)
	}()
}

// seen asks the cluster whether it knows the transaction of signature sig:
// in a block at any commitment, its whole history searched.
func (r *Relay) seen(ctx context.Context, sig string) (bool, error) {
	s, err := solana.SignatureFromBase58(sig)
	if err != nil {
		return false, fmt.Errorf("signature %s: %w", sig, err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	res, err := r.rpc.GetSignatureStatuses(ctx, true, s)
	if err != nil {
		return false, err
	}
	if len(res.Value) != 1 {
		return false, errors.New("signature statuses: answer of the wrong length")
	}
	return res.Value[0] != nil, nil
}

// life is where the blockhash of e stands at the chain's height (processed,
// the newest the RPC node knows): expired, past its last valid block
// height, so no leader takes it; late, within expiryMargin blocks of it, so
// a send would arrive too late (the tracker stops rebroadcasting there too).
// Neither when the height cannot be read.
func (r *Relay) life(ctx context.Context, e ledger.Entry) (expired, late bool) {
	if e.LastValidBlockHeight <= 0 {
		return false, false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	h, err := r.rpc.GetBlockHeight(ctx, rpc.CommitmentProcessed)
	if err != nil {
		return false, false
	}
	last := uint64(e.LastValidBlockHeight)
	return h > last, h+expiryMargin > last
}

// Failure is the answer for a ticket whose entry ended failed or expired,
// and whether it did: its transaction landed and failed (the fee paid,
// nothing reclaimed), or its blockhash expired before it landed. Either way
// the ticket is spent and the transactions must be built again; it is never
// a duplicate, which a client may take for success.
func Failure(e ledger.Entry) (Result, bool) {
	switch e.Status {
	case ledger.StatusFailed:
		if res, ok := reportedFailure(e); ok {
			return res, true
		}
		return fail(CodeTransactionFailed, "the transaction landed and failed (%s): the network fee was paid and nothing was reclaimed; rebuild the transactions", e.Error), true
	case ledger.StatusExpired:
		return expiredResult(e), true
	}
	return Result{}, false
}

func expiredResult(e ledger.Entry) Result {
	return fail(CodeTicketExpired, "the transaction never landed: its blockhash expired (last valid block height %d); rebuild the transactions", e.LastValidBlockHeight)
}

// answerPrior answers a ticket claimed before, and reports whether it did:
// duplicate once the transaction landed; the entry's failure once it failed
// or expired; a transaction in flight (submitted, or left sending by a
// submit that died) is sent again if the cluster does not know it while its
// blockhash lives (again). A claim another submit is still sending is not
// answered here: that submit's outcome is waited for.
func (r *Relay) answerPrior(ctx context.Context, req *request, prior ledger.Entry, e Signed) (res Result, answered bool, err error) {
	switch {
	case prior.Status == ledger.StatusConfirmed:
		return Result{Status: StatusDuplicate, Signature: prior.Signature}, true, nil
	case prior.Status == ledger.StatusSubmitted, r.orphaned(prior):
		res, err := r.again(ctx, req, prior, e)
		return res, true, err
	case prior.Status == ledger.StatusSending:
		return Result{}, false, nil
	}
	res, _ = Failure(prior)
	return res, true, nil
}

// again answers a resubmitted ticket whose transaction is in flight. The
// cluster knows it: duplicate. Its blockhash expired: the expiry (the
// tracker records it on its next pass); about to: nothing is sent (it would
// arrive too late). Otherwise the very same signed transaction is sent again (the stored bytes; the cluster lands one
// signature at most once however often it is sent) and the answer is that
// send's: submitted when the cluster took it or did not answer. Refused, an
// entry the cluster accepted before stays with the tracker (IN_FLIGHT),
// while an orphaned claim, never accepted and unknown to the cluster, is
// released so that the ticket may be submitted again.
func (r *Relay) again(ctx context.Context, req *request, prior ledger.Entry, e Signed) (Result, error) {
	orphan := prior.Status == ledger.StatusSending
	seen, err := r.seen(ctx, prior.Signature)
	switch {
	case err != nil && orphan:
		return fail(CodeInFlight, "an earlier submission of this ticket was interrupted and the cluster cannot say whether it has the transaction; retry to learn its outcome"), nil
	case err != nil:
		return Result{Status: StatusDuplicate, Signature: prior.Signature}, nil //nolint:nilerr // a cluster that cannot say leaves the entry in flight: a duplicate, as before the send
	case seen:
		if orphan {
			if _, err := r.store.MarkSubmitted(context.WithoutCancel(ctx), prior.TicketJTI); err != nil {
				return Result{}, err
			}
		}
		return Result{Status: StatusDuplicate, Signature: prior.Signature}, nil
	}
	expired, late := r.life(ctx, prior)
	if expired {
		return expiredResult(prior), nil
	}
	raw := sameTransaction(prior, e)
	if raw == nil || late || !r.canSend(req) {
		if orphan {
			return fail(CodeInFlight, "an earlier submission of this ticket was interrupted; retry to learn its outcome"), nil
		}
		return Result{Status: StatusDuplicate, Signature: prior.Signature}, nil
	}
	res := r.sendOnce(ctx, req, raw)
	switch {
	case res.outcome == accepted || res.outcome == unknown:
		if orphan {
			if _, err := r.store.MarkSubmitted(context.WithoutCancel(ctx), prior.TicketJTI); err != nil {
				return Result{}, err
			}
		}
		r.fanOut(ctx, raw)
		return Result{Status: StatusSubmitted, Signature: prior.Signature}, nil
	case orphan:
		if err := r.store.ReleaseClaim(context.WithoutCancel(ctx), prior.TicketJTI); err != nil {
			return Result{}, err
		}
		return fail(CodeRPCError, "%s", res.reason), nil
	}
	return fail(CodeInFlight, "the cluster accepted this ticket's transaction before and refused it now (%s); it is followed until it lands or its blockhash expires, retry to learn its outcome", res.reason), nil
}

// sameTransaction is the signed transaction of prior: the bytes stored with
// the claim, or, for a claim stored without them, the resubmitted entry's
// when they carry the claim's signature.
func sameTransaction(prior ledger.Entry, e Signed) []byte {
	if len(prior.Raw) > 0 {
		return prior.Raw
	}
	raw, err := base64.StdEncoding.DecodeString(e.TransactionBase64)
	if err != nil {
		return nil
	}
	tx, err := decode(raw)
	if err != nil || len(tx.signatures) == 0 || tx.signatures[0].String() != prior.Signature {
		return nil
	}
	return raw
}
