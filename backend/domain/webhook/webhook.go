// Package webhook is what Reclaim tells an integrator's backend when one of
// its project's submissions is decided, and the rules of telling it: the
// event types and their payloads (event.go), the endpoints that receive
// them and their URLs (url.go), the Standard Webhooks signature every
// delivery carries (sign.go), and when a failed delivery is tried again and
// an endpoint that keeps failing is disabled (retry.go).
//
// An event is written to the outbox (a Delivery per subscribed endpoint) in
// the same database transaction as the status change it reports, so it is
// never lost; service/webhook delivers the outbox at least once. The
// package knows nothing of HTTP or storage.
package webhook

import (
	"slices"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// The event types. A receiver must ignore a type it does not know: more
// will come, and the console's test event is one.
const (
	// TypeSubmissionLanded is a transaction found at confirmed commitment:
	// in a block a fork could still drop, not counted yet. Opt-in (Defaults).
	TypeSubmissionLanded    = "submission.landed"
	TypeSubmissionConfirmed = "submission.confirmed"
	TypeSubmissionFailed    = "submission.failed"
	TypeSubmissionExpired   = "submission.expired"
	// TypeTest is the event the console's "Send test event" sends to one
	// endpoint, whatever it subscribes to.
	TypeTest = "webhook.test"
)

// Types are the event types an endpoint may subscribe to, in display
// order. Treat it as read-only.
var Types = []string{TypeSubmissionLanded, TypeSubmissionConfirmed, TypeSubmissionFailed, TypeSubmissionExpired}

// Defaults are the types an endpoint that names none receives: every type
// but the opt-in ones, which go only to endpoints that name them, so that
// no receiver gets a type it never saw (submission.landed came after
// endpoints that take every type). Treat it as read-only.
var Defaults = []string{TypeSubmissionConfirmed, TypeSubmissionFailed, TypeSubmissionExpired}

// ValidType reports whether t is one of Types.
func ValidType(t string) bool { return slices.Contains(Types, t) }

// OptIn reports whether t goes only to endpoints that name it.
func OptIn(t string) bool { return t == TypeSubmissionLanded }

// Errors of the endpoints' management.
var (
	// ErrNotFound is an endpoint or delivery that does not exist, or is
	// another project's: the two look alike.
	ErrNotFound = fault.New(fault.KindNotFound, "no such webhook endpoint in this project")
	// ErrTooMany is a project that has MaxEndpoints already.
	ErrTooMany = fault.New(fault.KindInvalid, "a project has at most 16 webhook endpoints: remove one first")
	// ErrDeliveryNotFound is a delivery the endpoint does not have (any more).
	ErrDeliveryNotFound = fault.New(fault.KindNotFound, "no such delivery for this endpoint")
)

// MaxEndpoints bounds a project's endpoints: every status change writes
// one delivery per endpoint in the settling transaction.
const MaxEndpoints = 16

// Endpoint is a URL of a project's that receives its events.
type Endpoint struct {
	ID        string
	ProjectID string
	// URL is where events are posted (CheckURL's form).
	URL string
	// Events are the types it receives; empty: every type but the opt-in
	// ones (Defaults), those added later included.
	Events    []string
	CreatedAt time.Time
	// Secret is the signing secret (SecretPrefix and the base64 of its
	// bytes), sealed for storage; PreviousSecret is the one a rotation
	// replaced, which signs too until PreviousUntil (RotationOverlap).
	Secret         []byte
	PreviousSecret []byte
	PreviousUntil  time.Time
	// DisabledAt is when deliveries stopped because every one had failed
	// for too long (retry.go), nil while enabled; DisabledReason says why,
	// for the console.
	DisabledAt     *time.Time
	DisabledReason string
	// FailingSince is the first of the failures in a row (nil when the last
	// attempt succeeded); Failures counts them.
	FailingSince *time.Time
	Failures     int
}

// Wants reports whether the endpoint receives events of type t.
func (e Endpoint) Wants(t string) bool {
	return slices.Contains(e.Events, t) || (len(e.Events) == 0 && !OptIn(t))
}

// State is where a delivery is.
type State string

// Delivery states.
const (
	// StatePending is a delivery to be made (again) at NextAttemptAt.
	StatePending State = "pending"
	// StateDelivered is a delivery a receiver answered with a 2xx.
	StateDelivered State = "delivered"
	// StateFailed is a delivery given up: it failed for longer than the
	// retry window. The console can send it again.
	StateFailed State = "failed"
)

// Delivery is one event on its way to one endpoint: a row of the outbox.
type Delivery struct {
	ID         string
	EventID    string
	EndpointID string
	ProjectID  string
	Type       string
	// Wallet and Signature are the submission's, "" for a test event.
	Wallet    string
	Signature string
	// Payload is the body, the same on every attempt.
	Payload       []byte
	State         State
	Attempts      int
	NextAttemptAt time.Time
	CreatedAt     time.Time
	DeliveredAt   *time.Time
	// Last is the latest attempt; zero before the first.
	Last Attempt
}

// Attempt is what one try at a delivery met.
type Attempt struct {
	At time.Time
	// Status is the receiver's HTTP status, 0 when it gave none.
	Status int
	// Error says why the attempt failed: "" when the receiver answered 2xx.
	Error string
	// Latency is from sending the request to reading the answer's head.
	Latency time.Duration
	// Response is the first bytes of the answer's body (MaxResponse).
	Response string
}

// OK reports whether the receiver took the event.
func (a Attempt) OK() bool { return a.Error == "" && a.Status >= 200 && a.Status < 300 }

// MaxResponse is how much of a receiver's answer a delivery keeps, for the
// console.
const MaxResponse = 512
