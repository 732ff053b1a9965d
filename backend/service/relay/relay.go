// Package relay checks wallet-signed transactions against their submission
// tickets and forwards them to the cluster, exactly once per ticket, and
// follows them until they are confirmed, failed or expired (Tracker).
//
// Per entry, in order: the ticket (issued by us, for this project and
// wallet), whether it was consumed already (then `duplicate` with the first
// signature, even past expiry), its expiry, the message (the exact built
// one by its hash, or the built one plus a wallet's guards and compute
// budget, by signedcheck.Check against the ticket's digest), the wallet's
// signature, then a claim in the database (which decides between concurrent
// submits on every instance) and sendTransaction with preflight. Only an
// accepted transaction consumes its ticket: a refused one releases the claim.
// A claim left sending by an instance that died mid-send is sent again by
// the next submit of the same transaction, once SendGrace has passed.
package relay

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// Status is a SubmissionResult's status.
type Status string

// Result statuses.
const (
	StatusSubmitted Status = "submitted"
	StatusDuplicate Status = "duplicate"
	StatusFailed    Status = "failed"
)

// Code says why a submission failed.
type Code string

// Failure codes: the contract's, then ours (docs/decisions.md).
const (
	CodeTicketExpired      Code = "TICKET_EXPIRED"
	CodeHashMismatch       Code = "HASH_MISMATCH"
	CodeRPCError           Code = "RPC_ERROR"
	CodeInvalidTicket      Code = "INVALID_TICKET"
	CodeWalletMismatch     Code = "WALLET_MISMATCH"
	CodeSignatureInvalid   Code = "SIGNATURE_INVALID"
	CodeInvalidTransaction Code = "INVALID_TRANSACTION"
	CodeInFlight           Code = "IN_FLIGHT"
)

// RPC is what the relay needs of the cluster.
type RPC interface {
	SendRawTransactionWithOpts(ctx context.Context, tx []byte, opts rpc.TransactionOpts) (solana.Signature, error)
}

// Store is what the relay needs of the ledger.
type Store interface {
	EntryByTicketJTI(ctx context.Context, jti string) (ledger.Entry, error)
	EntryBySignature(ctx context.Context, sig string) (ledger.Entry, error)
	ClaimTicket(ctx context.Context, e ledger.Entry) error
	MarkSubmitted(ctx context.Context, jti string) (bool, error)
	ReleaseClaim(ctx context.Context, jti string) error
	LogAttempt(ctx context.Context, a ledger.Attempt) error
}

// Tickets verifies tickets.
type Tickets interface {
	Verify(token string) (ticket.Claims, error)
}

// Signed is one entry of a submit request.
type Signed struct {
	TransactionBase64 string
	Ticket            string
}

// Result is the outcome of one entry, in request order.
type Result struct {
	// Signature is "" when the submission failed.
	Signature string
	Status    Status
	Includes  []ticket.Item
	Code      Code
	Message   string
	// cause is the ledger's error of a result that could not be decided.
	cause error
}

// Relay submits signed transactions.
type Relay struct {
	rpc     RPC
	store   Store
	tickets Tickets
	now     func() time.Time
	// inFlightWait bounds how long a submit waits for a concurrent submit of
	// the same ticket to learn the cluster's answer.
	inFlightWait time.Duration
	poll         time.Duration
}

// New returns a Relay.
func New(r RPC, s Store, t Tickets, now func() time.Time) *Relay {
	return &Relay{rpc: r, store: s, tickets: t, now: now, inFlightWait: 10 * time.Second, poll: 50 * time.Millisecond}
}

// ErrStore is a ledger that did not answer or could not write; the whole
// request is then 503. When the ledger refused a write for want of space
// or of write access, the error matches ledger.ErrStorageFull or
// ledger.ErrReadOnly too.
var ErrStore = errors.New("ledger unavailable")

// Submit handles a submit request for wallet on behalf of project. Failures
// of an entry are in its Result; only a ledger outage is an error.
//
// Every entry is logged in the submission log, but for the tickets that
// fail their signature check: those the request holds share one line
// (their count and the first one's reason), so a request of forged tickets
// costs one write, not one per ticket.
func (r *Relay) Submit(ctx context.Context, projectID, wallet string, entries []Signed) ([]Result, error) {
	out := make([]Result, len(entries))
	forged, first := 0, -1
	for i, e := range entries {
		c, err := r.tickets.Verify(e.Ticket)
		if err != nil {
			out[i] = fail(CodeInvalidTicket, "the submission ticket was not issued by this service or was altered; rebuild the transactions")
			if forged++; first < 0 {
				first = i
			}
			continue
		}
		res, err := r.one(ctx, projectID, wallet, c, e)
		if err != nil {
			return nil, err
		}
		out[i] = res
	}
	if forged > 0 {
		if _, err := r.log(ctx, projectID, wallet, ticket.Claims{}, forged, out[first]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func fail(code Code, format string, args ...any) Result {
	return Result{Status: StatusFailed, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (r *Relay) one(ctx context.Context, projectID, wallet string, c ticket.Claims, e Signed) (Result, error) {
	if c.Project != projectID {
		return r.log(ctx, projectID, wallet, ticket.Claims{}, 1, fail(CodeInvalidTicket, "the submission ticket was issued to another project"))
	}
	res := r.check(ctx, c, wallet, e)
	res.Includes = c.Includes
	return r.log(ctx, projectID, wallet, c, 1, res)
}

// check runs the steps after the ticket's signature; errors from the ledger
// come back as a Result with code "" and are turned into ErrStore by log.
func (r *Relay) check(ctx context.Context, c ticket.Claims, wallet string, e Signed) Result {
	if c.Wallet != wallet {
		return fail(CodeWalletMismatch, "the submission ticket is for wallet %s, not %s", c.Wallet, wallet)
	}
	if prior, err := r.store.EntryByTicketJTI(ctx, c.ID); err == nil {
		if res, done := r.settled(ctx, prior); done {
			return res
		}
	} else if !errors.Is(err, ledger.ErrNotFound) {
		return storeFailure(err)
	}
	if c.Expired(r.now()) {
		return fail(CodeTicketExpired, "the submission ticket expired at %s; rebuild the transactions", time.Unix(c.ExpiresAt, 0).UTC().Format(time.RFC3339))
	}
	raw, err := base64.StdEncoding.DecodeString(e.TransactionBase64)
	if err != nil {
		return fail(CodeInvalidTransaction, "transactionBase64 is not standard base64")
	}
	tx, msg, err := decode(raw)
	if err != nil {
		return fail(CodeInvalidTransaction, "transactionBase64 is not a serialized VersionedTransaction: %v; send the bytes of the transaction the wallet signed", err)
	}
	walletKey := solana.MustPublicKeyFromBase58(wallet)
	if sum := sha256.Sum256(msg); ticket.Hash(sum) != c.MessageHash {
		// Not the exact message: accepted if a wallet's guards and compute
		// budget are all that changed.
		if _, err := signedcheck.Check(c.Summary.Digest, walletKey, msg); err != nil {
			reason := err.Error()
			var r *signedcheck.MismatchError
			if errors.As(err, &r) {
				reason = r.Reason
			}
			return fail(CodeHashMismatch, "the signed message differs from the one built for this ticket beyond the guards and compute budget a wallet may add: %s", reason)
		}
	}
	if len(tx.Signatures) != 1 || !ed25519.Verify(ed25519.PublicKey(walletKey[:]), msg, tx.Signatures[0][:]) {
		return fail(CodeSignatureInvalid, "the transaction is not signed by wallet %s", wallet)
	}
	sig := tx.Signatures[0].String()
	claim := ledger.Entry{
		ProjectID: c.Project, Payer: wallet, Type: c.Type, ItemCount: len(c.Includes),
		Signature: sig, TicketJTI: c.ID, CreatedAt: r.now().UTC(), LastValidBlockHeight: int64(c.LastValidBlockHeight),
		DonationWallet: c.Summary.DonationWallet, Treasury: c.Summary.Treasury,
	}
	claim.SetFigures(ledger.Figures{
		GrossRebate: int64(c.GrossRebate), NetRebate: c.NetRebate, DonationAmount: int64(c.DonationAmount),
		NetworkFee: int64(c.NetworkFee), ServiceFee: int64(c.ServiceFee),
	})
	claim.Promised = claim.Figures()
	switch err := r.store.ClaimTicket(ctx, claim); {
	case errors.Is(err, ledger.ErrDuplicate):
		prior, err := r.store.EntryBySignature(ctx, sig)
		switch {
		case err == nil && prior.TicketJTI != c.ID:
			// Another ticket of the very same transaction (built twice
			// within one blockhash): it was sent once; this is a duplicate.
			return r.waitForOther(ctx, prior.TicketJTI)
		case err == nil && r.orphaned(prior):
			return r.resend(ctx, c.ID, raw, sig)
		}
		return r.waitForOther(ctx, c.ID)
	case err != nil:
		return storeFailure(err)
	}
	return r.send(ctx, c.ID, raw, sig)
}

// send relays a claimed transaction. A refusal by the cluster releases the
// claim; a cluster that did not answer leaves the transaction to the
// tracker (it may have landed, and it can land only once).
func (r *Relay) send(ctx context.Context, jti string, raw []byte, sig string) Result {
	_, err := r.rpc.SendRawTransactionWithOpts(ctx, raw, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	var rpcErr *jsonrpcError
	var reason string
	switch {
	case err == nil:
	case asRPCError(err, &rpcErr):
		reason = "the cluster refused the transaction: " + rpcErr.describe()
	case neverSent(err):
		reason = "the cluster could not be reached; nothing was sent, retry"
	}
	if reason != "" {
		if rerr := r.store.ReleaseClaim(context.WithoutCancel(ctx), jti); rerr != nil {
			return storeFailure(rerr)
		}
		return fail(CodeRPCError, "%s", reason)
	}
	if _, merr := r.store.MarkSubmitted(context.WithoutCancel(ctx), jti); merr != nil {
		return storeFailure(merr)
	}
	return Result{Status: StatusSubmitted, Signature: sig}
}

// SendGrace is how long a claimed transaction may still be being sent by
// the submit that claimed it. A claim still sending after it was orphaned:
// the instance that held it died before it learned the cluster's answer.
const SendGrace = 30 * time.Second

// orphaned reports whether e is a claim that no submit is sending any more.
func (r *Relay) orphaned(e ledger.Entry) bool {
	return e.Status == ledger.StatusSending && r.now().Sub(e.CreatedAt) >= SendGrace
}

// resend sends the transaction of an orphaned claim again, for the wallet
// that submits it again: the very same signed transaction (the claim holds
// its signature), which the cluster lands at most once however many times
// it is sent. Accepted, the claim is submitted; refused (its first send may
// have landed, or its blockhash expired), it is left to the tracker, which
// settles it by the cluster's record.
func (r *Relay) resend(ctx context.Context, jti string, raw []byte, sig string) Result {
	_, err := r.rpc.SendRawTransactionWithOpts(ctx, raw, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err != nil {
		return fail(CodeInFlight, "an earlier submission of this ticket was interrupted and the cluster refused it again; the ledger settles it from the cluster's record, retry to learn its outcome")
	}
	if _, err := r.store.MarkSubmitted(context.WithoutCancel(ctx), jti); err != nil {
		return storeFailure(err)
	}
	return Result{Status: StatusSubmitted, Signature: sig}
}

// settled answers for a ticket already claimed: duplicate once its
// transaction was accepted; not settled while another submit is sending it.
func (r *Relay) settled(_ context.Context, prior ledger.Entry) (Result, bool) {
	if prior.Status == ledger.StatusSending {
		return Result{}, false
	}
	return Result{Status: StatusDuplicate, Signature: prior.Signature}, true
}

// waitForOther waits for the submit that holds the claim to learn the
// cluster's answer: duplicate if it was accepted; if it was refused, the
// claim is gone and this submit may try itself, once, by answering the
// caller to retry.
func (r *Relay) waitForOther(ctx context.Context, jti string) Result {
	deadline := r.now().Add(r.inFlightWait)
	t := time.NewTicker(r.poll)
	defer t.Stop()
	for {
		prior, err := r.store.EntryByTicketJTI(ctx, jti)
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			return fail(CodeRPCError, "a concurrent submission of this ticket was refused by the cluster; see its result")
		case err != nil:
			return storeFailure(err)
		}
		if res, done := r.settled(ctx, prior); done {
			return res
		}
		if r.now().After(deadline) {
			return fail(CodeInFlight, "another submission of this ticket is still in flight; retry to learn its outcome")
		}
		select {
		case <-ctx.Done():
			return storeFailure(ctx.Err())
		case <-t.C:
		}
	}
}

// storeFailure marks a result that could not be decided for want of the
// ledger; log turns it into ErrStore.
func storeFailure(err error) Result {
	return Result{Status: "", Message: err.Error(), cause: err}
}

// storeError is ErrStore for what the ledger failed to do. The store's
// error stays text, but for its condition (ledger.ErrStorageFull,
// ledger.ErrReadOnly): a context error inside it must not pick the status
// instead of ErrStore.
func storeError(err error) error {
	for _, c := range []error{ledger.ErrStorageFull, ledger.ErrReadOnly} {
		if errors.Is(err, c) {
			return fmt.Errorf("%w: %w: %v", ErrStore, c, err) //nolint:errorlint // ErrStore and the condition alone are the identity
		}
	}
	return fmt.Errorf("%w: %v", ErrStore, err) //nolint:errorlint // ErrStore alone is the identity
}

// log records the result of tickets tickets (one, or a request's forged
// ones) in the submission log and returns it.
func (r *Relay) log(ctx context.Context, projectID, wallet string, c ticket.Claims, tickets int, res Result) (Result, error) {
	if res.Status == "" {
		return Result{}, storeError(res.cause)
	}
	err := r.store.LogAttempt(context.WithoutCancel(ctx), ledger.Attempt{
		ProjectID: projectID, Payer: wallet, TicketJTI: c.ID, Signature: res.Signature, Status: string(res.Status),
		Code: string(res.Code), Message: res.Message, Tickets: tickets, CreatedAt: r.now().UTC(),
	})
	if err != nil {
		return Result{}, storeError(err)
	}
	return res, nil
}
