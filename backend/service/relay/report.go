package relay

import (
	"context"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// report records the transaction of ticket c that the wallet sent itself,
// by its signature (a wallet's signAndSendTransaction): the ticket is
// consumed by the report as by a relayed transaction, nothing is sent (the
// ledger holds no bytes), and the tracker follows the signature like any
// other, counting it only if the transaction that lands is the one the
// ticket describes (checkReported); anything else ends failed with
// HASH_MISMATCH.
func (r *Relay) report(ctx context.Context, req *request, c ticket.Claims, sig string) Result {
	if _, err := solana.SignatureFromBase58(sig); err != nil {
		return fail(CodeInvalidTransaction, "signature is not a transaction signature (64 bytes in base58)")
	}
	claim := r.claimOf(req, c, sig)
	claim.Reported = &c
	if res, ok := r.claim(ctx, c, claim); !ok {
		return res
	}
	if _, err := r.store.MarkSubmitted(context.WithoutCancel(ctx), c.ID); err != nil {
		return storeFailure(err)
	}
	return Result{Status: StatusSubmitted, Signature: sig}
}

// mismatchPrefix starts the error of an entry whose reported transaction
// landed and is not its ticket's: Failure answers it as HASH_MISMATCH.
const mismatchPrefix = string(CodeHashMismatch) + ": "

// checkReported checks the landed transaction raw of reported entry e
// against its ticket: the fee payer's signature is the reported one, and
// the message is the built one but for a wallet's guards and compute
// budget. It returns the reason it is not.
func checkReported(e ledger.Entry, raw []byte) (string, bool) {
	tx, msg, err := decode(raw)
	if err != nil {
		return "the landed transaction cannot be read: " + err.Error(), false
	}
	if len(tx.Signatures) != 1 || tx.Signatures[0].String() != e.Signature {
		return "the landed transaction is not signed by the wallet alone", false
	}
	wallet, err := solana.PublicKeyFromBase58(e.Payer)
	if err != nil {
		return "the entry's wallet is not an address", false
	}
	return matches(*e.Reported, wallet, msg)
}

// reportedFailure is the Result of an entry failed with mismatchPrefix.
func reportedFailure(e ledger.Entry) (Result, bool) {
	reason, ok := strings.CutPrefix(e.Error, mismatchPrefix)
	if !ok {
		return Result{}, false
	}
	return fail(CodeHashMismatch, "the transaction the wallet sent differs from the one built for this ticket beyond the guards and compute budget a wallet may add, so it is not counted: %s", reason), true
}
