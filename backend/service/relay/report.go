package relay

import (
	"context"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// report records the transaction of ticket c that the wallet sent itself,
// by its signature (a wallet's signAndSendTransaction). When the cluster
// has the transaction already, it must be the one the ticket describes
// (checkReported), or the report ends HASH_MISMATCH and records nothing:
// the signature stays free for the ticket it belongs to. Otherwise the
// ticket is consumed by the report as by a relayed transaction, nothing is
// sent (the ledger holds no bytes), and the tracker follows the signature
// like any other, counting it only if the transaction that lands is the
// ticket's; anything else ends failed with HASH_MISMATCH. A reported entry
// holds its signature only once confirmed, so reports with other tickets
// (another project's front-run) never block this one (storage's
// signature_claims).
func (r *Relay) report(ctx context.Context, req *request, c ticket.Claims, sig string) (Result, error) {
	s, err := solana.SignatureFromBase58(sig)
	if err != nil {
		return fail(CodeInvalidTransaction, "signature is not a transaction signature (64 bytes in base58)"), nil //nolint:nilerr // the client's mistake is this entry's answer, not the request's failure
	}
	claim := r.claimOf(req, c, sig)
	claim.Reported = &c
	if reason, ok := r.landedMatches(ctx, req, claim, s); !ok {
		return fail(CodeHashMismatch, "the transaction %s on the cluster differs from the one built for this ticket beyond the guards and compute budget a wallet may add, so it is not counted: %s", sig, reason), nil
	}
	if res, claimed, err := r.claim(ctx, c, claim); !claimed || err != nil {
		return res, err
	}
	if _, err := r.store.MarkSubmitted(context.WithoutCancel(ctx), c.ID); err != nil {
		return Result{}, err
	}
	return Result{Status: StatusSubmitted, Signature: sig}, nil
}

// landedMatches reads the reported transaction sig from the cluster (at
// confirmed, within checkTimeout and the request's SendTimeout) and checks
// it against entry e's ticket. A transaction the cluster does not return
// (not landed yet, the cluster failing or slow) passes: the tracker checks
// it when it lands.
func (r *Relay) landedMatches(ctx context.Context, req *request, e ledger.Entry, sig solana.Signature) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, min(checkTimeout, r.left(req)))
	defer cancel()
	res, err := r.rpc.GetTransaction(ctx, sig, readOpts(rpc.CommitmentConfirmed))
	if err != nil || res == nil || res.Transaction == nil {
		return "", true
	}
	return checkReported(e, res.Transaction.GetBinary())
}

// mismatchPrefix starts the error of an entry whose reported transaction
// landed and is not its ticket's: Failure answers it as HASH_MISMATCH.
const mismatchPrefix = string(CodeHashMismatch) + ": "

// checkReported checks the landed transaction raw of reported entry e
// against its ticket: the fee payer's signature is the reported one, and
// the message is the built one but for a wallet's guards and compute
// budget. It returns the reason it is not.
func checkReported(e ledger.Entry, raw []byte) (string, bool) {
	tx, err := decode(raw)
	if err != nil {
		return "the landed transaction cannot be read: " + err.Error(), false
	}
	if len(tx.signatures) != 1 || tx.signatures[0].String() != e.Signature {
		return "the landed transaction is not signed by the wallet alone", false
	}
	wallet, err := solana.PublicKeyFromBase58(e.Payer)
	if err != nil {
		return "the entry's wallet is not an address", false
	}
	return matches(*e.Reported, wallet, tx.message)
}

// reportedFailure is the Result of an entry failed with mismatchPrefix.
func reportedFailure(e ledger.Entry) (Result, bool) {
	reason, ok := strings.CutPrefix(e.Error, mismatchPrefix)
	if !ok {
		return Result{}, false
	}
	return fail(CodeHashMismatch, "the transaction the wallet sent differs from the one built for this ticket beyond the guards and compute budget a wallet may add, so it is not counted: %s", reason), true
}
