// Package idempotency lets a client send a request again, after a network
// blip left it unsure whether the first arrived, without it being done
// twice: a request that carries an Idempotency-Key gets, for the same key
// and the same request from the same credential within TTL, the first
// request's answer again, stored (Stripe's convention, and the IETF
// draft's header).
//
// The rules, which docs/decisions.md records:
//   - A key belongs to a project and a credential (Scope): an API key, or
//     the sessions of one API key for one wallet. The same key from
//     another credential is another key. Keys are stored hashed.
//   - The request is fingerprinted whole (its decoded message and the
//     operation): the same key with another request is ErrKeyReused.
//   - While the first request runs, a second one with its key waits for its
//     answer, up to Service.Wait, then gets ErrKeyInUse.
//   - Answers the caller may not get again by retrying (success, and
//     refusals of the request itself: a 4xx) are stored; failures a retry
//     may cure (a 5xx, a 429, a dependency that did not answer, a timeout,
//     a success whose face says a retry may cure part of it) are not: the
//     key is released and the retry runs again.
//   - A claim's lease is the longest its request can run (Request.Lease),
//     so that after a crash a retry runs as soon as the first request can
//     no longer be running.
//
// The face (backend/server) fingerprints requests, encodes answers and
// maps the errors; storage keeps the records.
package idempotency

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// Header is the request header that carries the key.
const Header = "Idempotency-Key"

// ReplayedHeader is set, to "true", on an answer that is a stored one.
const ReplayedHeader = "Idempotent-Replayed"

// TTL is how long a key's answer is kept: a retry within it gets the
// answer again; after it the key is new.
const TTL = 24 * time.Hour

// ErrKeyReused is a key sent again with another request.
var ErrKeyReused = fault.Invalid(Header,
	"this Idempotency-Key was used with a different request (another body, wallet or operation) in the last 24 hours: send the original request again, or use a new key for a new request")

// ErrKeyInUse is a key whose first request is still running.
var ErrKeyInUse = fault.New(fault.KindConflict,
	"a request with this Idempotency-Key is still in progress: retry in a moment to get its answer")

// Answer is what the first request answered, as the face encodes it:
// Code 0 with the response message's bytes, or an error's code, message
// and the field at fault.
type Answer struct {
	Code    int
	Body    []byte
	Message string
	Param   string
}

// Record is a key's entry.
type Record struct {
	ProjectID string
	// KeyHash is Hash(scope, key).
	KeyHash []byte
	// Fingerprint identifies the request (Fingerprint).
	Fingerprint []byte
	// Token names the claim of the request that runs it, so that only it
	// completes or releases the record.
	Token string
	// Done is set once the answer is stored.
	Done   bool
	Answer Answer
	// LeaseUntil ends a claim whose request never finished (its instance
	// died): after it, a retry runs the request.
	LeaseUntil time.Time
	CreatedAt  time.Time
}

// Store keeps the records (storage.IdempotencyKeys).
type Store interface {
	// ClaimKey inserts rec, in flight, unless a record of its key exists
	// that is done and younger than TTL, or in flight with a lease not over
	// at now: then it returns that record and false. An older record is
	// replaced by rec.
	ClaimKey(ctx context.Context, rec Record, now time.Time) (Record, bool, error)
	// CompleteKey stores the answer of the claim token holds.
	CompleteKey(ctx context.Context, projectID string, keyHash []byte, token string, a Answer) error
	// ReleaseKey deletes the claim token holds.
	ReleaseKey(ctx context.Context, projectID string, keyHash []byte, token string) error
	// KeyRecord returns the record of a key, and false when there is none.
	KeyRecord(ctx context.Context, projectID string, keyHash []byte) (Record, bool, error)
}

// Request is one request carrying a key.
type Request struct {
	ProjectID string
	// Scope names the credential (Scope).
	Scope string
	Key   string
	// Fingerprint identifies the request (Fingerprint).
	Fingerprint []byte
	// Lease bounds the claim of a request that can run no longer than it
	// (0: Service.Lease), so that a key does not outlive what it protects:
	// after its instance died, a retry runs once the request cannot be
	// running any more.
	Lease time.Duration
}

// Scope names a credential for keys: an API key alone, or a session's
// API key and wallet (every session of that key for that wallet is one
// credential, so a page that refreshed its session still gets its
// answers).
func Scope(apiKeyID, wallet string) string {
	if wallet == "" {
		return "key:" + apiKeyID
	}
	return "key:" + apiKeyID + "/wallet:" + wallet
}

// Hash is what is stored of a key: SHA-256 of the scope and the key.
func Hash(scope, key string) []byte {
	h := sha256.New()
	h.Write([]byte("reclaim idempotency key\x00"))
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return h.Sum(nil)
}

// Fingerprint identifies a request: SHA-256 of its operation and its
// decoded message's bytes (so that two encodings of one request, REST's
// JSON and Connect's protobuf, are the same request).
func Fingerprint(operation string, message []byte) []byte {
	h := sha256.New()
	h.Write([]byte(operation))
	h.Write([]byte{0})
	h.Write(message)
	return h.Sum(nil)
}

// Service runs requests that carry keys.
type Service struct {
	store Store
	now   func() time.Time
	log   *slog.Logger
	// Wait bounds how long a request waits for the first one of its key
	// (15 s).
	Wait time.Duration
	// Lease bounds a claim (90 s) unless its Request says less: more than
	// any request takes.
	Lease time.Duration
	// poll is the first pause between two looks at a key in flight; it
	// doubles up to 250 ms.
	poll time.Duration
}

// NewService returns a Service over store.
func NewService(store Store, log *slog.Logger, now func() time.Time) *Service {
	return &Service{store: store, now: now, log: log, Wait: 15 * time.Second, Lease: 90 * time.Second, poll: 20 * time.Millisecond}
}

// Run is the request itself: its answer, and whether to keep it (false
// for a failure a retry may cure). An error is a failure that has no
// answer (the face could not encode one): the key is released.
type Run func(ctx context.Context) (a Answer, keep bool, err error)

// Do answers r: with the stored answer of its key (replayed true), or by
// running run once and storing its answer. A key used with another request
// is ErrKeyReused; one still in flight after Wait is ErrKeyInUse.
func (s *Service) Do(ctx context.Context, r Request, run Run) (a Answer, replayed bool, err error) {
	rec := Record{ProjectID: r.ProjectID, KeyHash: Hash(r.Scope, r.Key), Fingerprint: r.Fingerprint}
	deadline := s.now().Add(s.Wait)
	pause := s.poll
	lease := s.Lease
	if r.Lease > 0 {
		lease = r.Lease
	}
	for {
		now := s.now()
		rec.Token, rec.CreatedAt, rec.LeaseUntil = newToken(), now, now.Add(lease)
		prior, claimed, err := s.store.ClaimKey(ctx, rec, now)
		if err != nil {
			return Answer{}, false, fault.Unavailable("the idempotency store did not answer; retry shortly", err)
		}
		if claimed {
			return s.run(ctx, rec, run)
		}
		if !bytes.Equal(prior.Fingerprint, rec.Fingerprint) {
			return Answer{}, false, ErrKeyReused
		}
		if prior.Done {
			return prior.Answer, true, nil
		}
		// In flight: wait for its answer, or its release, or its lease.
		if !now.Before(deadline) {
			return Answer{}, false, ErrKeyInUse
		}
		wait := min(pause, deadline.Sub(now), prior.LeaseUntil.Sub(now)+time.Millisecond)
		timer := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-ctx.Done():
			timer.Stop()
			return Answer{}, false, ctx.Err()
		case <-timer.C:
		}
		pause = min(2*pause, 250*time.Millisecond)
	}
}

// run runs a claimed request and stores or releases its answer; a client
// that leaves does not leave the claim behind.
func (s *Service) run(ctx context.Context, rec Record, run Run) (Answer, bool, error) {
	a, keep, err := run(ctx)
	after, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err != nil || !keep {
		if rerr := s.store.ReleaseKey(after, rec.ProjectID, rec.KeyHash, rec.Token); rerr != nil {
			s.log.WarnContext(ctx, "idempotency: a key's claim was not released; it ends with its lease",
				"lease_until", rec.LeaseUntil, "err", rerr)
		}
		return a, false, err
	}
	if cerr := s.store.CompleteKey(after, rec.ProjectID, rec.KeyHash, rec.Token, a); cerr != nil {
		// The request was done: answer it. A retry after the lease runs it
		// again, as without a key.
		s.log.WarnContext(ctx, "idempotency: an answer was not stored; a retry of its key after the lease runs again",
			"lease_until", rec.LeaseUntil, "err", cerr)
	}
	return a, false, nil
}

func newToken() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprint("crypto/rand: ", err)) // never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}
