// Package webhook is the webhooks' service: the endpoints a project's owners
// manage (Service: add, list, remove, rotate a secret, enable, test,
// redeliver), and the delivery loop every instance runs (Dispatcher), which
// sends the outbox at least once, signed, retried, and shared between
// instances through leases in the database.
//
// The outbox itself is written by storage in the transaction of each status
// change (domain/webhook); this package never slows that transaction, the
// API or the tracker: deliveries run in the Dispatcher's own goroutines,
// bounded in number and in time.
package webhook

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/pkg/seal"
)

// EndpointStore keeps a project's endpoints (storage.Webhooks). Every lookup
// is by project and id: another project's endpoint is webhook.ErrNotFound.
type EndpointStore interface {
	CreateWebhookEndpoint(ctx context.Context, e webhook.Endpoint) error
	WebhookEndpoints(ctx context.Context, projectID string) ([]webhook.Endpoint, error)
	WebhookEndpoint(ctx context.Context, projectID, id string) (webhook.Endpoint, error)
	DeleteWebhookEndpoint(ctx context.Context, projectID, id string) (webhook.Endpoint, error)
	RotateWebhookSecret(ctx context.Context, projectID, id string, secret []byte, previousUntil time.Time) (webhook.Endpoint, error)
	EnableWebhookEndpoint(ctx context.Context, projectID, id string, now time.Time) (bool, error)
}

// DeliveryStore reads and adds to an endpoint's deliveries
// (storage.Webhooks).
type DeliveryStore interface {
	WebhookDeliveries(ctx context.Context, projectID, endpointID string, limit int) ([]webhook.Delivery, error)
	RedeliverWebhook(ctx context.Context, projectID, endpointID, deliveryID string, now time.Time) error
	EnqueueWebhook(ctx context.Context, d webhook.Delivery) error
}

// Resolver resolves a URL's host name (net.DefaultResolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Service manages a project's endpoints. The console's owners reach it
// through owner.Service, which checks roles and audits; the command line
// directly.
type Service struct {
	endpoints  EndpointStore
	deliveries DeliveryStore
	box        *seal.Box
	resolver   Resolver
	now        func() time.Time
	manual     ratelimit.Limiter
	// insecure allows http and private addresses
	// (RECLAIM_WEBHOOK_ALLOW_INSECURE).
	insecure bool
}

// Options are a Service's settings.
type Options struct {
	// Box seals the signing secrets for storage.
	Box *seal.Box
	// Resolver resolves hosts when an endpoint is added (net.DefaultResolver
	// when nil).
	Resolver Resolver
	// Insecure allows http and private addresses: local development only.
	Insecure bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Manual throttles the test events and redeliveries owners ask for,
	// one bucket per endpoint (nil: webhook.ManualBurst at once, then one
	// every webhook.ManualEvery, in this process's memory).
	Manual ratelimit.Limiter
}

// NewService returns a Service over the stores.
func NewService(endpoints EndpointStore, deliveries DeliveryStore, o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Resolver == nil {
		o.Resolver = defaultResolver{}
	}
	if o.Manual == nil {
		o.Manual = ratelimit.NewMemory(float64(time.Second)/float64(webhook.ManualEvery), webhook.ManualBurst, ratelimit.WithClock(o.Now))
	}
	return &Service{endpoints: endpoints, deliveries: deliveries, box: o.Box, resolver: o.Resolver, now: o.Now, manual: o.Manual, insecure: o.Insecure}
}

// newID is a random id with prefix, as storage.NewID makes them.
func newID(prefix string) string { return prefix + "_" + strings.ToLower(rand.Text()) }

// resolveTimeout bounds the lookup of a new endpoint's host.
const resolveTimeout = 5 * time.Second

// Add adds an endpoint to a project: rawURL checked (webhook.CheckURL, and
// its host resolved to public addresses only), events among webhook.Types
// (none: every type but the opt-in ones, webhook.Defaults). It returns the endpoint and its signing secret,
// which is never shown again.
func (s *Service) Add(ctx context.Context, projectID, rawURL string, events []string) (webhook.Endpoint, string, error) {
	u, err := s.CheckURL(ctx, rawURL)
	if err != nil {
		return webhook.Endpoint{}, "", err
	}
	types, err := eventTypes(events)
	if err != nil {
		return webhook.Endpoint{}, "", err
	}
	secret := webhook.NewSecret()
	e := webhook.Endpoint{ID: newID("whe"), ProjectID: projectID, URL: u, Events: types, CreatedAt: s.now().UTC()}
	e.Secret = s.box.Seal([]byte(secret), []byte(e.ID))
	if err := s.endpoints.CreateWebhookEndpoint(ctx, e); err != nil {
		return webhook.Endpoint{}, "", err
	}
	return e, secret, nil
}

// CheckURL checks an endpoint's URL as Add does.
func (s *Service) CheckURL(ctx context.Context, raw string) (string, error) {
	u, err := webhook.CheckURL(raw, s.insecure)
	if err != nil {
		return "", err
	}
	host := webhook.Host(u)
	if host == "" || s.insecure {
		return u, nil
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := s.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return "", fault.InvalidField("url", "host %s does not resolve: check the name", host)
	}
	return u, webhook.CheckAddrs(host, addrs, false)
}

// eventTypes checks a list of event types and returns them in
// webhook.Types's order, each once.
func eventTypes(events []string) ([]string, error) {
	var out []string
	for _, t := range events {
		t = strings.TrimSpace(t)
		if !webhook.ValidType(t) {
			return nil, fault.InvalidField("events", "unknown event type %q: use %s", t, strings.Join(webhook.Types, ", "))
		}
	}
	for _, t := range webhook.Types {
		if slices.ContainsFunc(events, func(e string) bool { return strings.TrimSpace(e) == t }) {
			out = append(out, t)
		}
	}
	if slices.Equal(out, webhook.Defaults) {
		return nil, nil // every type but the opt-in ones: those added later too
	}
	return out, nil
}

// List returns a project's endpoints, oldest first.
func (s *Service) List(ctx context.Context, projectID string) ([]webhook.Endpoint, error) {
	return s.endpoints.WebhookEndpoints(ctx, projectID)
}

// Endpoint returns one of a project's endpoints.
func (s *Service) Endpoint(ctx context.Context, projectID, id string) (webhook.Endpoint, error) {
	return s.endpoints.WebhookEndpoint(ctx, projectID, id)
}

// Remove removes an endpoint and its deliveries, and returns it.
func (s *Service) Remove(ctx context.Context, projectID, id string) (webhook.Endpoint, error) {
	return s.endpoints.DeleteWebhookEndpoint(ctx, projectID, id)
}

// RotateSecret gives an endpoint a new signing secret, returned once; the
// old one signs too for webhook.RotationOverlap.
func (s *Service) RotateSecret(ctx context.Context, projectID, id string) (webhook.Endpoint, string, error) {
	secret := webhook.NewSecret()
	e, err := s.endpoints.RotateWebhookSecret(ctx, projectID, id, s.box.Seal([]byte(secret), []byte(id)),
		s.now().Add(webhook.RotationOverlap))
	if err != nil {
		return webhook.Endpoint{}, "", err
	}
	return e, secret, nil
}

// Enable enables a disabled endpoint; its pending deliveries go out at
// once. It reports whether it was disabled.
func (s *Service) Enable(ctx context.Context, projectID, id string) (bool, error) {
	return s.endpoints.EnableWebhookEndpoint(ctx, projectID, id, s.now())
}

// Deliveries returns an endpoint's latest limit deliveries, newest first.
func (s *Service) Deliveries(ctx context.Context, projectID, id string, limit int) ([]webhook.Delivery, error) {
	if _, err := s.endpoints.WebhookEndpoint(ctx, projectID, id); err != nil {
		return nil, err
	}
	return s.deliveries.WebhookDeliveries(ctx, projectID, id, limit)
}

// SendTest queues a test event (webhook.TypeTest) to one endpoint, due at
// once, tried once. Test events and redeliveries are throttled per
// endpoint: one over its share is a *webhook.ThrottledError.
func (s *Service) SendTest(ctx context.Context, projectID, id string) (webhook.Delivery, error) {
	if _, err := s.endpoints.WebhookEndpoint(ctx, projectID, id); err != nil {
		return webhook.Delivery{}, err
	}
	if err := s.throttle(ctx, projectID, id); err != nil {
		return webhook.Delivery{}, err
	}
	now := s.now().UTC()
	d := webhook.Delivery{
		EventID: newID("msg"), EndpointID: id, ProjectID: projectID, Type: webhook.TypeTest,
		Payload: webhook.TestEvent(projectID, id, now), State: webhook.StatePending, CreatedAt: now,
	}
	return d, s.deliveries.EnqueueWebhook(ctx, d)
}

// Redeliver sends a delivery again at once (the same event id), whatever
// its state; throttled as SendTest is.
func (s *Service) Redeliver(ctx context.Context, projectID, endpointID, deliveryID string) error {
	if err := s.throttle(ctx, projectID, endpointID); err != nil {
		return err
	}
	return s.deliveries.RedeliverWebhook(ctx, projectID, endpointID, deliveryID, s.now())
}

// throttle takes one of endpoint id's manual sends, or refuses with when
// the next is allowed. The bucket is the project's and the endpoint's:
// another project naming the endpoint spends nothing of it. A throttle
// that fails allows: the deliveries' fair shares still bound what the
// sends cost others.
func (s *Service) throttle(ctx context.Context, projectID, id string) error {
	res, err := s.manual.Allow(ctx, "webhook-manual:"+projectID+":"+id)
	if err != nil {
		return nil //nolint:nilerr // a throttle that fails allows (above)
	}
	if res.Allowed {
		return nil
	}
	return webhook.Throttled(res.RetryAfter)
}

// Secrets returns the secrets an endpoint signs with at now: its own, and
// the one a rotation replaced while they overlap.
func (s *Service) Secrets(e webhook.Endpoint, now time.Time) ([]string, error) {
	cur, err := s.box.Open(e.Secret, []byte(e.ID))
	if err != nil {
		return nil, fmt.Errorf("endpoint %s: signing secret: %w", e.ID, err)
	}
	out := []string{string(cur)}
	if len(e.PreviousSecret) > 0 && now.Before(e.PreviousUntil) {
		prev, err := s.box.Open(e.PreviousSecret, []byte(e.ID))
		if err == nil {
			out = append(out, string(prev))
		}
	}
	return out, nil
}
