package webhook

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// Event is the body of every delivery, as the Standard Webhooks
// specification shapes it: the type, when it happened, and the data of
// that type. A receiver reads Type first and ignores types it does not
// know.
type Event struct {
	Type string `json:"type"`
	// Timestamp is when the status changed (RFC 3339, UTC, milliseconds).
	Timestamp string `json:"timestamp"`
	Data      any    `json:"data"`
}

// Submission is the data of the submission.* events: the fields of a
// submission's status (the status route's SubmissionStatus), its project
// and its wallet. Fields are added, never removed or renamed.
type Submission struct {
	Signature string `json:"signature"`
	// Status is landed, confirmed, failed or expired.
	Status string `json:"status"`
	// Includes are the items the transaction covers, as the submit result
	// named them (absent for entries recorded before they were kept).
	Includes []Item `json:"includes,omitempty"`
	// Slot holds the transaction once landed or confirmed (absent
	// otherwise, and for entries confirmed before slots were kept).
	Slot int64 `json:"slot,omitempty"`
	// Error says why a failed or expired submission did not land.
	Error *Error `json:"error,omitempty"`
	// Landed is set once landed (read at confirmed commitment) and once
	// confirmed (read at finalized); ConfirmedAt once confirmed.
	ConfirmedAt   string  `json:"confirmedAt,omitempty"`
	Landed        *Landed `json:"landed,omitempty"`
	ProjectID     string  `json:"projectId"`
	WalletAddress string  `json:"walletAddress"`
}

// Item is one item a transaction covers.
type Item struct {
	Type    string `json:"type"`
	Address string `json:"address"`
	Action  string `json:"action"`
}

// Error is why a submission did not land.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// The codes of Error.
const (
	// CodeTransactionFailed is a transaction that landed with an error: its
	// fee was paid, nothing else happened.
	CodeTransactionFailed = "TRANSACTION_FAILED"
	// CodeBlockhashExpired is a transaction that never landed before its
	// blockhash expired: nothing happened; build again.
	CodeBlockhashExpired = "BLOCKHASH_EXPIRED"
)

// Landed are a landed or confirmed transaction's figures in lamports, read from the
// chain: Fee is what it paid (network and service fee).
type Landed struct {
	Fee            int64 `json:"fee"`
	GrossRebate    int64 `json:"grossRebate"`
	NetRebate      int64 `json:"netRebate"`
	DonationAmount int64 `json:"donationAmount"`
	// RentRebate and OwnBalanceRebate split GrossRebate into rent and the
	// wallet's own SOL; left out for entries recorded before the split.
	RentRebate       *int64 `json:"rentRebate,omitempty"`
	OwnBalanceRebate *int64 `json:"ownBalanceRebate,omitempty"`
}

// Test is the data of the test event.
type Test struct {
	ProjectID  string `json:"projectId"`
	EndpointID string `json:"endpointId"`
	Message    string `json:"message"`
}

// timestamp is how events write times.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// TypeOf is the event type of entry e's status: landed for a submitted
// entry found at confirmed commitment, "" for a status that is no event
// (sending, submitted).
func TypeOf(e ledger.Entry) string {
	switch e.Status {
	case ledger.StatusSubmitted:
		if e.LandedAt != nil {
			return TypeSubmissionLanded
		}
	case ledger.StatusConfirmed:
		return TypeSubmissionConfirmed
	case ledger.StatusFailed:
		return TypeSubmissionFailed
	case ledger.StatusExpired:
		return TypeSubmissionExpired
	}
	return ""
}

// SubmissionEvent is the event of entry e's status change at at, and its
// body: ok is false when e's status is no event.
func SubmissionEvent(e ledger.Entry, at time.Time) (typ string, body []byte, ok bool) {
	typ = TypeOf(e)
	if typ == "" {
		return "", nil, false
	}
	d := Submission{
		Signature: e.Signature, Status: strings.TrimPrefix(typ, "submission."), Includes: items(e.Includes),
		ProjectID: e.ProjectID, WalletAddress: e.Payer,
	}
	switch typ {
	case TypeSubmissionLanded:
		d.Slot, d.Landed = e.Slot, landed(e)
	case TypeSubmissionConfirmed:
		confirmed := at
		if e.ConfirmedAt != nil {
			confirmed = *e.ConfirmedAt
		}
		d.ConfirmedAt, d.Slot, d.Landed = timestamp(confirmed), e.Slot, landed(e)
	case TypeSubmissionFailed:
		d.Slot = e.Slot
		d.Error = &Error{Code: CodeTransactionFailed, Message: "the transaction landed with an error: " + e.Error}
	case TypeSubmissionExpired:
		d.Error = &Error{Code: CodeBlockhashExpired, Message: "the transaction did not land before its blockhash expired; nothing was spent: build again"}
	}
	return typ, mustJSON(Event{Type: typ, Timestamp: timestamp(at), Data: d}), true
}

// landed are the figures of e, which landed: with the rent and the wallet's
// own SOL apart when e was recorded with the split.
func landed(e ledger.Entry) *Landed {
	l := &Landed{Fee: e.Fees, GrossRebate: e.GrossRebate, NetRebate: e.NetRebate, DonationAmount: e.DonationAmount}
	if rent, own, ok := e.Split(); ok {
		l.RentRebate, l.OwnBalanceRebate = &rent, &own
	}
	return l
}

// items are a ticket's items as events name them (nil for none).
func items(in []ticket.Item) []Item {
	if len(in) == 0 {
		return nil
	}
	out := make([]Item, len(in))
	for i, it := range in {
		out[i] = Item{Type: it.Type, Address: it.Address, Action: it.Action}
	}
	return out
}

// TestEvent is the body of the test event sent to endpoint endpointID.
func TestEvent(projectID, endpointID string, at time.Time) []byte {
	return mustJSON(Event{Type: TypeTest, Timestamp: timestamp(at), Data: Test{
		ProjectID: projectID, EndpointID: endpointID,
		Message: "A test event from the Reclaim console. Receivers ignore event types they do not know.",
	}})
}

// mustJSON encodes v, which holds only strings, numbers and slices of them:
// it cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
