// Package relay checks wallet-signed transactions against their submission
// tickets and forwards them to the cluster, exactly once per ticket, and
// follows them until they are confirmed, failed or expired (Tracker),
// sending each again, the same bytes, until it lands or expires.
//
// Per entry, in order: the ticket (issued by us, for this project and
// wallet), whether it was consumed already (then the answer is the entry's:
// `duplicate` once it landed or while the cluster has it, the entry's
// failure once it failed or expired, and a ticket whose transaction the
// cluster does not know while its blockhash lives is sent again), its
// expiry, the message (the exact built one by its hash, or the built one
// plus a wallet's guards and compute budget, by signedcheck.Check against
// the ticket's digest), the wallet's signature, then a claim in the
// database (which decides between concurrent submits on every instance) and
// sendTransaction with preflight and maxRetries 0, within the request's
// SendTimeout.
//
// Only the node's answer decides (send.go, outcome.go): a transaction the
// cluster accepted, or has already, consumes its ticket; one the node
// refused (a JSON-RPC error), or that was never sent (no connection could
// be made), releases the claim once the cluster says it does not know the
// signature, and the ticket may be submitted again. Any other send (an HTTP
// error page, an answer that is not JSON-RPC, no answer) may have reached
// the node: the claim is kept, and the tracker follows it and sends it
// again until it lands or expires. A claim left sending by an instance that
// died mid-send is adopted by the tracker once SendGrace has passed, and
// sent again by it or by the next submit of the same ticket.
package relay

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
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
	// CodeTransactionFailed is a ticket whose transaction landed and
	// failed: the fee was paid, nothing was reclaimed.
	CodeTransactionFailed Code = "TRANSACTION_FAILED"
)

// Curable reports whether a failure with code c is one a retry of the
// same entry may cure: RPC_ERROR (nothing was sent, or the node refused it
// now; the ticket was not consumed) and IN_FLIGHT (its outcome is not known
// yet). An idempotency key never keeps an answer holding one.
func (c Code) Curable() bool {
	return c == CodeRPCError || c == CodeInFlight
}

// RPC is what the relay needs of the cluster: to send, to learn whether
// the cluster knows a transaction and whether its blockhash lives, and to
// read a reported transaction that landed already (report.go).
type RPC interface {
	Sender
	GetSignatureStatuses(ctx context.Context, searchTransactionHistory bool, sigs ...solana.Signature) (*rpc.GetSignatureStatusesResult, error)
	GetBlockHeight(ctx context.Context, commitment rpc.CommitmentType) (uint64, error)
	GetTransaction(ctx context.Context, sig solana.Signature, opts *rpc.GetTransactionOpts) (*rpc.GetTransactionResult, error)
}

// Sender sends a signed transaction: the cluster's RPC, or an extra send
// path (Paths).
type Sender interface {
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
	// Submissions returns the entries of projectID paid by payer among
	// sigs (status.go).
	Submissions(ctx context.Context, projectID, payer string, sigs []string) ([]ledger.Entry, error)
}

// Tickets verifies tickets.
type Tickets interface {
	Verify(token string) (ticket.Claims, error)
}

// Signed is one entry of a submit request: a signed transaction to relay,
// or the Signature of one the wallet sent itself (report.go).
type Signed struct {
	TransactionBase64 string
	Ticket            string
	Signature         string
}

// Result is the outcome of one entry, in request order.
type Result struct {
	// Signature is "" when the submission failed.
	Signature string
	Status    Status
	Includes  []ticket.Item
	Code      Code
	Message   string
}

// DefaultSendTimeout is how long the sends of one submit request take at
// most (SendTimeout): well within the server's 60 s write timeout, so that
// a cluster that hangs still gets its answer to the client.
const DefaultSendTimeout = 10 * time.Second

// Relay submits signed transactions.
type Relay struct {
	rpc     RPC
	store   Store
	tickets Tickets
	now     func() time.Time
	// SendTimeout bounds the sends of one submit request, all its entries
	// together, whatever the request's own context: an entry whose turn
	// comes when less than a second of it is left (minSend) is not sent (a
	// retryable RPC_ERROR). The questions asked of the cluster after a send that was
	// not accepted (does it know the signature?) take up to checkTimeout
	// more.
	SendTimeout time.Duration
	// Paths, when set, also get every transaction the cluster accepted
	// (extra send paths); nil sends to the cluster's RPC alone.
	Paths *Paths
	// inFlightWait bounds how long a submit waits for a concurrent submit of
	// the same ticket to learn the cluster's answer.
	inFlightWait time.Duration
	poll         time.Duration
	// statusPoll is how often a waiting status request reads the ledger;
	// changed wakes it at once when this instance's tracker moved entries
	// (Changed).
	statusPoll time.Duration
	changed    wake
	// background counts the sends to the extra paths still under way.
	background sync.WaitGroup
}

// New returns a Relay.
func New(r RPC, s Store, t Tickets, now func() time.Time) *Relay {
	return &Relay{rpc: r, store: s, tickets: t, now: now, SendTimeout: DefaultSendTimeout, inFlightWait: 10 * time.Second, poll: 50 * time.Millisecond,
		statusPoll: StatusPoll}
}

// ErrStore is a ledger that did not answer or could not write; the whole
// request is then 503. When the ledger refused a write for want of space
// or of write access, the error matches ledger.ErrStorageFull or
// ledger.ErrReadOnly too.
var ErrStore = errors.New("ledger unavailable")

// concurrency is how many entries of one request are checked and sent at
// once: the sends are round trips to the cluster, and a request of 100
// entries sent one after the other would not fit SendTimeout.
const concurrency = 8

// request is what the entries of one submit request share.
type request struct {
	projectID string
	// wallet is the path's wallet, decoded once by the face; payer is its
	// base58, as the ledger and the tickets hold it.
	wallet solana.PublicKey
	payer  string
	// sendBy ends the request's sends (SendTimeout from its start); an
	// entry is sent while minLeft of it is left.
	sendBy  time.Time
	minLeft time.Duration
	// stopped is set once an entry met a ledger failure: the entries not
	// started yet are not processed.
	stopped atomic.Bool
}

// Submit handles a submit request for wallet on behalf of project. Failures
// of an entry are in its Result; only a ledger outage is an error: then the
// entries not yet under way are not processed, and those already sent are
// recorded (a retry with the same tickets answers them duplicate).
//
// Every entry is logged in the submission log, but for the tickets that
// fail their signature check: those the request holds share one line
// (their count and the first one's reason), so a request of forged tickets
// costs one write, not one per ticket.
func (r *Relay) Submit(ctx context.Context, projectID string, wallet solana.PublicKey, entries []Signed) ([]Result, error) {
	req := &request{projectID: projectID, wallet: wallet, payer: wallet.String(), sendBy: r.now().Add(r.SendTimeout), minLeft: min(minSend, r.SendTimeout/4)}
	out := make([]Result, len(entries))
	errs := make([]error, len(entries))
	forged, first := 0, -1
	slots := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	for i, e := range entries {
		c, err := r.tickets.Verify(e.Ticket)
		if err != nil {
			out[i] = fail(CodeInvalidTicket, "the submission ticket was not issued by this service or was altered; rebuild the transactions")
			if forged++; first < 0 {
				first = i
			}
			continue
		}
		slots <- struct{}{}
		if req.stopped.Load() {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if out[i], errs[i] = r.one(ctx, req, c, e); errs[i] != nil {
				req.stopped.Store(true)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if forged > 0 {
		if _, err := r.log(ctx, projectID, req.payer, ticket.Claims{}, forged, out[first]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Wait waits for the sends to the extra paths under way (tests; a process
// that stops leaves them to the tracker).
func (r *Relay) Wait() { r.background.Wait() }

func fail(code Code, format string, args ...any) Result {
	return Result{Status: StatusFailed, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (r *Relay) one(ctx context.Context, req *request, c ticket.Claims, e Signed) (Result, error) {
	if c.Project != req.projectID {
		return r.log(ctx, req.projectID, req.payer, ticket.Claims{}, 1, fail(CodeInvalidTicket, "the submission ticket was issued to another project"))
	}
	res, err := r.check(ctx, req, c, e)
	if err != nil {
		return Result{}, storeError(err)
	}
	res.Includes = c.Includes
	return r.log(ctx, req.projectID, req.payer, c, 1, res)
}

// check runs the steps after the ticket's signature; an error is the
// ledger's (or the request's context while waiting on it), which one turns
// into ErrStore.
func (r *Relay) check(ctx context.Context, req *request, c ticket.Claims, e Signed) (Result, error) {
	if c.Wallet != req.payer {
		return fail(CodeWalletMismatch, "the submission ticket is for wallet %s, not %s", c.Wallet, req.payer), nil
	}
	if prior, err := r.store.EntryByTicketJTI(ctx, c.ID); err == nil {
		if res, done, err := r.answerPrior(ctx, req, prior, e); done || err != nil {
			return res, err
		}
		// Another submit is sending it: its outcome is this one's, whether
		// or not the ticket expired meanwhile.
		return r.waitForOther(ctx, c.ID)
	} else if !errors.Is(err, ledger.ErrNotFound) {
		return Result{}, err
	}
	if c.Expired(r.now()) {
		return fail(CodeTicketExpired, "the submission ticket expired at %s; rebuild the transactions", time.Unix(c.ExpiresAt, 0).UTC().Format(time.RFC3339)), nil
	}
	if e.Signature != "" {
		return r.report(ctx, req, c, e.Signature)
	}
	raw, err := base64.StdEncoding.DecodeString(e.TransactionBase64)
	if err != nil {
		return fail(CodeInvalidTransaction, "transactionBase64 is not standard base64"), nil //nolint:nilerr // the client's mistake is this entry's answer, not the request's failure
	}
	tx, err := decode(raw)
	if err != nil {
		return fail(CodeInvalidTransaction, "transactionBase64 is not a serialized VersionedTransaction: %v; send the bytes of the transaction the wallet signed", err), nil
	}
	if reason, ok := matches(c, req.wallet, tx.message); !ok {
		return fail(CodeHashMismatch, "the signed message differs from the one built for this ticket beyond the guards and compute budget a wallet may add: %s", reason), nil
	}
	if len(tx.signatures) != 1 || !ed25519.Verify(ed25519.PublicKey(req.wallet[:]), tx.message, tx.signatures[0][:]) {
		return fail(CodeSignatureInvalid, "the transaction is not signed by wallet %s", req.payer), nil
	}
	if !r.canSend(req) {
		return outOfTime(), nil
	}
	sig := tx.signatures[0].String()
	claim := r.claimOf(req, c, sig)
	claim.Raw = raw
	if res, claimed, err := r.claim(ctx, c, claim); !claimed || err != nil {
		return res, err
	}
	return r.send(ctx, req, claim)
}

// claimOf is the ledger entry of ticket c's transaction of signature sig,
// with the ticket's promise.
func (r *Relay) claimOf(req *request, c ticket.Claims, sig string) ledger.Entry {
	claim := ledger.Entry{
		ProjectID: c.Project, Payer: req.payer, Type: c.Type, ItemCount: len(c.Includes),
		Signature: sig, TicketJTI: c.ID, CreatedAt: r.now().UTC(), LastValidBlockHeight: int64(c.LastValidBlockHeight),
		DonationWallet: c.Summary.DonationWallet, Treasury: c.Summary.Treasury, Includes: c.Includes,
	}
	claim.SetFigures(ledger.Figures{
		GrossRebate: int64(c.GrossRebate), NetRebate: c.NetRebate, DonationAmount: int64(c.DonationAmount),
		NetworkFee: int64(c.NetworkFee), ServiceFee: int64(c.ServiceFee),
	})
	claim.Promised = claim.Figures()
	if c.RentRebate != nil {
		rent := int64(*c.RentRebate)
		claim.RentRebate = &rent
	}
	return claim
}

// claim claims ticket c with entry e and reports whether it did; when
// another submit claimed it (or the same signature under another ticket)
// first, it answers with that submit's outcome.
func (r *Relay) claim(ctx context.Context, c ticket.Claims, e ledger.Entry) (res Result, claimed bool, err error) {
	switch err := r.store.ClaimTicket(ctx, e); {
	case errors.Is(err, ledger.ErrDuplicate):
		prior, err := r.store.EntryBySignature(ctx, e.Signature)
		if err == nil && prior.TicketJTI != c.ID {
			// Another ticket of the very same transaction (built twice
			// within one blockhash): it was sent once; this is a duplicate.
			res, err := r.waitForOther(ctx, prior.TicketJTI)
			return res, false, err
		}
		res, err := r.waitForOther(ctx, c.ID)
		return res, false, err
	case err != nil:
		return Result{}, false, err
	}
	return Result{}, true, nil
}

// matches reports whether msg is the message ticket c describes: the exact
// built one by its hash, or the built one plus a wallet's guards and
// compute budget within the ticket's bounds (signedcheck.Check against its
// digest); if not, why.
func matches(c ticket.Claims, wallet solana.PublicKey, msg []byte) (string, bool) {
	if sum := sha256.Sum256(msg); ticket.Hash(sum) == c.MessageHash {
		return "", true
	}
	if _, err := signedcheck.Check(c.Summary.Digest, wallet, msg); err != nil {
		var r *signedcheck.MismatchError
		if errors.As(err, &r) {
			return r.Reason, false
		}
		return err.Error(), false
	}
	return "", true
}

// minSend is the least time left of a request's SendTimeout for which an
// entry is still sent (a quarter of a shorter SendTimeout).
const minSend = time.Second

// canSend reports whether the request has time left to send another entry.
func (r *Relay) canSend(req *request) bool {
	return r.left(req) >= req.minLeft
}

// left is how long the request's sends may still take, by the relay's
// clock.
func (r *Relay) left(req *request) time.Duration {
	return req.sendBy.Sub(r.now())
}

// outOfTime answers an entry left unsent because the request's other sends
// took its SendTimeout: nothing was claimed, the ticket may be submitted
// again.
func outOfTime() Result {
	return fail(CodeRPCError, "not sent: the cluster was too slow to take every transaction of this request in time; nothing was sent for this one, submit it again")
}

// SendGrace is how long a claimed transaction may still be being sent by
// the submit that claimed it: its sends end DefaultSendTimeout after the
// submit started, each check after them takes checkTimeout, its ledger
// writes a few seconds. A claim still sending after it was orphaned: the
// instance that held it died before it learned the cluster's answer; the
// tracker adopts it (tracker.go), and a submit's idempotency key is leased
// no longer than this.
const SendGrace = 30 * time.Second

// orphaned reports whether e is a claim that no submit is sending any more.
func (r *Relay) orphaned(e ledger.Entry) bool {
	return e.Status == ledger.StatusSending && r.now().Sub(e.CreatedAt) >= SendGrace
}

// waitForOther waits for the submit that holds the claim to learn the
// cluster's answer: duplicate if it was accepted, the entry's failure if it
// failed or expired meanwhile; if it was refused, the claim is gone and
// this submit may try itself, once, by answering the caller to retry.
func (r *Relay) waitForOther(ctx context.Context, jti string) (Result, error) {
	deadline := r.now().Add(r.inFlightWait)
	t := time.NewTicker(r.poll)
	defer t.Stop()
	for {
		prior, err := r.store.EntryByTicketJTI(ctx, jti)
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			return fail(CodeRPCError, "a concurrent submission of this ticket was refused by the cluster; see its result"), nil
		case err != nil:
			return Result{}, err
		}
		if prior.Status != ledger.StatusSending {
			if res, failed := Failure(prior); failed {
				return res, nil
			}
			return Result{Status: StatusDuplicate, Signature: prior.Signature}, nil
		}
		if r.now().After(deadline) {
			return fail(CodeInFlight, "another submission of this ticket is still in flight; retry to learn its outcome"), nil
		}
		select {
		case <-ctx.Done():
			return Result{}, ctx.Err()
		case <-t.C:
		}
	}
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
	err := r.store.LogAttempt(context.WithoutCancel(ctx), ledger.Attempt{
		ProjectID: projectID, Payer: wallet, TicketJTI: c.ID, Signature: res.Signature, Status: string(res.Status),
		Code: string(res.Code), Message: res.Message, Tickets: tickets, CreatedAt: r.now().UTC(),
	})
	if err != nil {
		return Result{}, storeError(err)
	}
	return res, nil
}
