package webhook

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/pkg/lease"
	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
	"github.com/reclaim-sol/reclaim/backend/upstream/receiver"
)

// Outbox is what the delivery loop needs of the outbox (storage.Webhooks).
type Outbox interface {
	WebhooksDue(ctx context.Context, now time.Time) (bool, error)
	LeaseWebhookDeliveries(ctx context.Context, owner string, share webhook.Share, now, until time.Time) ([]webhook.Delivery, error)
	ReleaseWebhookLeases(ctx context.Context, owner string, ids []string, now time.Time) error
	RecordWebhookAttempt(ctx context.Context, owner string, d webhook.Delivery, disableAfter time.Duration) (bool, error)
	WebhookEndpointsByID(ctx context.Context, ids []string) (map[string]webhook.Endpoint, error)
}

// Poster posts one attempt (receiver.Client).
type Poster interface {
	Post(ctx context.Context, url string, header map[string]string, body []byte) (receiver.Answer, error)
}

// Signer gives the secrets an endpoint signs with (Service.Secrets).
type Signer interface {
	Secrets(e webhook.Endpoint, now time.Time) ([]string, error)
}

// Dispatcher delivers the outbox. Every instance runs one; they share the
// work through leases in the database, as the confirmation trackers do:
// each delivery is leased (LeaseWebhookDeliveries) before it is attempted,
// so that it is sent by one instance at a time, and its attempt is recorded
// under its lease. An instance that dies leaves its deliveries to the
// others once their lease ends: each event is delivered at least once, and
// exactly once to a receiver that answers within Timeout.
//
// Attempts run on a steady pool of Concurrency workers with no pass
// between them: a worker that is free leases the next run (up to PerRun of
// one endpoint's oldest deliveries, sent one after the other) while others
// still wait on slow receivers. Leases are fair between tenants
// (webhook.Share): an endpoint has at most PerEndpoint runs under way, so
// as many attempts in flight, and a project PerProject, over every
// instance, and the next run goes to the projects with the fewest under
// way, so a project's hanging receivers hold a few workers and delay no
// other project. A run stops at its first failure and releases the rest,
// so a hanging receiver holds its worker for one Timeout per lease. An
// endpoint's deliveries leave oldest first, up to PerEndpoint at once; a
// failed one does not hold back the next for long (it is retried on its
// own schedule), so order is a matter of course, not a promise: events
// carry their timestamp.
type Dispatcher struct {
	outbox Outbox
	poster Poster
	signer Signer
	log    *slog.Logger
	now    func() time.Time
	// Timeout bounds an attempt (the receiver's answer).
	Timeout time.Duration
	// Lease bounds a delivery's lease, longer than Timeout: the attempt
	// starts as soon as it is leased.
	Lease time.Duration
	// Poll is how often the outbox is looked at when nothing nudged and no
	// attempt ended.
	Poll time.Duration
	// Batch is the most deliveries one lease takes; Concurrency the most
	// attempts under way at once on this instance (its workers).
	Batch, Concurrency int
	// PerEndpoint and PerProject bound the runs under way (the attempts in
	// flight) of one endpoint and of one project, over every instance;
	// PerRun is the most deliveries a run takes (webhook.Share).
	PerEndpoint, PerProject, PerRun int
	// RetryFor is how long a failing delivery is tried again.
	RetryFor time.Duration
	// DisableAfter is how long an endpoint may fail every attempt before it
	// is disabled (webhook.ShouldDisable); 0 never disables.
	DisableAfter time.Duration
	// Observe, when set, sees every attempt (metrics).
	Observe func(d webhook.Delivery)

	owner  string
	leases atomic.Uint64
	nudge  Nudge
	rand   func() float64
}

// DefaultConcurrency is an instance's workers. An attempt waiting on a
// receiver costs a goroutine and a connection, tens of kilobytes: 256 of
// them hold 32 projects' hanging receivers at their full share
// (webhook.DefaultPerProject) and still leave another project's delivery a
// worker at once.
const DefaultConcurrency = 256

// Nudge wakes a dispatcher at once instead of at its next poll: storage
// rings it once a transaction that wrote deliveries commits. Made first, it
// is handed to the storage rooms that write deliveries and to
// NewDispatcher, so neither is configured after it is built.
type Nudge chan struct{}

// NewNudge returns a Nudge for one dispatcher.
func NewNudge() Nudge { return make(Nudge, 1) }

// Ring wakes the dispatcher. It never blocks.
func (n Nudge) Ring() {
	select {
	case n <- struct{}{}:
	default:
	}
}

// NewDispatcher returns a Dispatcher with the default settings, woken by n
// (a Nudge of its own when nil).
func NewDispatcher(o Outbox, p Poster, s Signer, n Nudge, log *slog.Logger, now func() time.Time) *Dispatcher {
	if n == nil {
		n = NewNudge()
	}
	return &Dispatcher{
		outbox: o, poster: p, signer: s, log: log, now: now,
		Timeout: webhook.Timeout, Lease: 6 * webhook.Timeout, Poll: time.Second, Batch: 64, Concurrency: DefaultConcurrency,
		PerEndpoint: webhook.DefaultPerEndpoint, PerProject: webhook.DefaultPerProject, PerRun: webhook.DefaultRun,
		RetryFor: webhook.DefaultRetryFor, DisableAfter: webhook.DefaultDisableAfter,
		owner: lease.Owner(), nudge: n, rand: mrand.Float64,
	}
}

// Nudge has the dispatcher look at the outbox now (its Nudge rung). It
// never blocks.
func (d *Dispatcher) Nudge() { d.nudge.Ring() }

// stopGrace bounds how long the attempts under way when Run's context ends
// may still take to be recorded.
const stopGrace = 15 * time.Second

// Run delivers until ctx is done, on Concurrency workers: whenever nudged,
// whenever an attempt ends (its worker is free, and its endpoint's and
// project's share too), and at least every Poll. Attempts under way when
// ctx ends are finished and recorded (for at most stopGrace).
func (d *Dispatcher) Run(ctx context.Context) {
	work, done := lease.Graceful(ctx, stopGrace)
	defer done()
	var workers sync.WaitGroup
	defer workers.Wait()
	ended := make(chan struct{}, d.Concurrency) // never full: one value per worker
	free := d.Concurrency
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.nudge:
		case <-timer.C:
		case <-ended:
			free++
		}
		for more := true; more; {
			select {
			case <-ended:
				free++
			default:
				more = false
			}
		}
		for free > 0 && ctx.Err() == nil {
			runs, err := d.lease(work, min(free, d.Batch))
			if err != nil {
				if work.Err() == nil {
					d.log.WarnContext(ctx, "webhook lease failed", "err", err)
				}
				break
			}
			if len(runs) == 0 {
				break // nothing more is due, or the rest waits for its share
			}
			free -= len(runs)
			for _, r := range runs {
				workers.Go(func() {
					defer func() { ended <- struct{}{} }()
					d.send(work, r)
				})
			}
		}
		timer.Reset(d.Poll)
	}
}

// Drain runs passes while deliveries are leased and stop is not done.
func (d *Dispatcher) Drain(ctx, stop context.Context) error {
	for stop.Err() == nil {
		n, err := d.Pass(ctx)
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// Pass leases what is due, as one of Run's leases would with every worker
// free, sends each run, waits for them, and returns how many deliveries it
// leased (tests and tools; Run never waits for a pass).
func (d *Dispatcher) Pass(ctx context.Context) (int, error) {
	runs, err := d.lease(ctx, min(d.Batch, d.Concurrency))
	if err != nil {
		return 0, err
	}
	n := 0
	var wg sync.WaitGroup
	for _, r := range runs {
		n += len(r.deliveries)
		wg.Go(func() { d.send(ctx, r) })
	}
	wg.Wait()
	return n, nil
}

// run is what one worker sends: deliveries of one endpoint, oldest first,
// leased to owner until until.
type run struct {
	owner      string
	until      time.Time
	endpoint   webhook.Endpoint
	found      bool
	deliveries []webhook.Delivery
}

// lease starts up to limit runs, fairly (webhook.Share), each under an
// owner of its own lease: the runs of one lease are told apart by
// endpoint.
func (d *Dispatcher) lease(ctx context.Context, limit int) ([]run, error) {
	now := d.now()
	due, err := d.outbox.WebhooksDue(ctx, now)
	if err != nil || !due {
		return nil, err
	}
	owner := fmt.Sprintf("%s.%d", d.owner, d.leases.Add(1))
	until := now.Add(max(d.Lease, d.Timeout+leaseMargin))
	share := webhook.Share{Limit: limit, PerEndpoint: d.PerEndpoint, PerProject: d.PerProject, Run: d.PerRun}
	batch, err := d.outbox.LeaseWebhookDeliveries(ctx, owner, share, now, until)
	if err != nil || len(batch) == 0 {
		return nil, err
	}
	var runs []run
	index := map[string]int{}
	for _, del := range batch {
		i, ok := index[del.EndpointID]
		if !ok {
			i = len(runs)
			index[del.EndpointID] = i
			runs = append(runs, run{owner: owner, until: until})
		}
		runs[i].deliveries = append(runs[i].deliveries, del)
	}
	endpoints, err := d.outbox.WebhookEndpointsByID(ctx, slices.Collect(maps.Keys(index)))
	if err != nil {
		d.release(ctx, owner, batch)
		return nil, err
	}
	for i := range runs {
		runs[i].endpoint, runs[i].found = endpoints[runs[i].deliveries[0].EndpointID]
	}
	return runs, nil
}

// leaseMargin is kept between an attempt's end and its lease's, whatever
// Lease says: a lease never ends while its attempt may still be under way.
const leaseMargin = 5 * time.Second

// send attempts a run's deliveries in order while its lease leaves time
// for one more and each is taken; it releases the rest, due again at once,
// when one fails (the endpoint may be down: the next lease decides), when
// the endpoint was disabled since, or when the lease runs short.
func (d *Dispatcher) send(ctx context.Context, r run) {
	if !r.found {
		return // removed since: its deliveries went with it
	}
	for i, del := range r.deliveries {
		if ctx.Err() != nil || r.endpoint.DisabledAt != nil || d.now().Add(d.Timeout+leaseMargin).After(r.until) {
			d.release(ctx, r.owner, r.deliveries[i:])
			return
		}
		if !d.attempt(ctx, r.owner, del, r.endpoint) {
			d.release(ctx, r.owner, r.deliveries[i+1:])
			return
		}
	}
}

// release frees deliveries leased to owner and not attempted, due again
// at once; if it fails, their lease ends by itself.
func (d *Dispatcher) release(ctx context.Context, owner string, ds []webhook.Delivery) {
	if len(ds) == 0 {
		return
	}
	ids := make([]string, len(ds))
	for i, del := range ds {
		ids[i] = del.ID
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := d.outbox.ReleaseWebhookLeases(ctx, owner, ids, d.now()); err != nil {
		d.log.WarnContext(ctx, "webhooks: leases not released; they end by themselves", "lease", d.Lease, "err", err)
	}
}

// attempt sends one delivery leased to owner, records what the receiver
// did, and reports whether it took the event.
func (d *Dispatcher) attempt(ctx context.Context, owner string, del webhook.Delivery, e webhook.Endpoint) bool {
	at := d.now()
	a := webhook.Attempt{At: at}
	secrets, err := d.signer.Secrets(e, at)
	var headers map[string]string
	if err == nil {
		headers, err = webhook.Sign(del.EventID, at, del.Payload, secrets...)
	}
	if err != nil {
		d.log.ErrorContext(ctx, "webhook secret does not open: rotate it", "endpoint", e.ID, "err", err)
		a.Error = "the endpoint's signing secret could not be read (the server's key changed?): rotate the secret"
	} else {
		ans, err := d.poster.Post(ctx, e.URL, headers, del.Payload)
		a.Status, a.Latency, a.Response = ans.Status, ans.Latency, ans.Body
		switch {
		case err != nil:
			a.Error = err.Error()
		case ans.Status/100 == 3:
			a.Error = fmt.Sprintf("HTTP %d: redirect to %s not followed: give the URL that answers", ans.Status, redact.URL(ans.Location))
		case ans.Status/100 != 2:
			a.Error = fmt.Sprintf("HTTP %d", ans.Status)
		}
	}
	del.Attempts++
	del.Last = a
	switch {
	case a.OK():
		del.State, del.NextAttemptAt = webhook.StateDelivered, time.Time{}
		delivered := d.now()
		del.DeliveredAt = &delivered
	case del.Type == webhook.TypeTest:
		del.State, del.NextAttemptAt = webhook.StateFailed, time.Time{} // a test is tried once
	default:
		del.State, del.NextAttemptAt = webhook.Next(del.CreatedAt, at, del.Attempts, d.RetryFor, d.rand())
	}
	if d.Observe != nil {
		d.Observe(del)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	disabled, err := d.outbox.RecordWebhookAttempt(rctx, owner, del, d.DisableAfter)
	switch {
	case err != nil:
		d.log.WarnContext(ctx, "webhook attempt not recorded; the delivery will be tried again", "delivery", del.ID, "err", err)
	case disabled:
		d.log.WarnContext(ctx, "webhook endpoint disabled: every attempt failed for too long",
			"endpoint", e.ID, "project", e.ProjectID, "url", redact.URL(e.URL), "last", a.Error)
	}
	return a.OK() && err == nil
}
