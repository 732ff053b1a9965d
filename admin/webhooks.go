package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/webhook"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// Webhooks reads a project's webhook endpoints and their deliveries
// (service/webhook.Service).
type Webhooks interface {
	List(ctx context.Context, projectID string) ([]webhook.Endpoint, error)
	Deliveries(ctx context.Context, projectID, id string, limit int) ([]webhook.Delivery, error)
}

// WebhookChanges adds, removes, rotates, enables and tests endpoints and
// redelivers events, audited, owners only (owner.Service).
type WebhookChanges interface {
	AddWebhook(ctx context.Context, a owner.Actor, url string, events []string) (webhook.Endpoint, string, error)
	RemoveWebhook(ctx context.Context, a owner.Actor, id string) error
	RotateWebhookSecret(ctx context.Context, a owner.Actor, id string) (webhook.Endpoint, string, error)
	EnableWebhook(ctx context.Context, a owner.Actor, id string) error
	SendTestWebhook(ctx context.Context, a owner.Actor, id string) error
	RedeliverWebhook(ctx context.Context, a owner.Actor, endpointID, deliveryID string) error
}

// deliveriesShown is how many deliveries the page lists per endpoint.
const deliveriesShown = 20

// webhooksData is the webhooks page.
type webhooksData struct {
	Endpoints []endpointItem
	Types     []string
	Audit     []memberEvent
	// NewSecret is a secret just made (added or rotated): shown once, on
	// this response only; NewSecretFor is its endpoint's id.
	NewSecret, NewSecretFor string
	// URL is the add form as filled in, with its message.
	URL, URLErr string
}

// endpointItem is one endpoint as the page shows it: its URL without
// its query (which may hold a credential), never its secret.
type endpointItem struct {
	ID, URL, Events, Created string
	// Disabled is when it was disabled and why; "" while enabled.
	Disabled, DisabledReason string
	Deliveries               []deliveryItem
}

// deliveryItem is one delivery: status, attempts, latency, the answer's
// first bytes.
type deliveryItem struct {
	ID, Event, Type, State, Created, Next, Latency, Response, Error string
	Attempts, Status                                                int
}

func newDeliveryItem(d webhook.Delivery) deliveryItem {
	it := deliveryItem{
		ID: d.ID, Event: d.EventID, Type: d.Type, State: string(d.State), Created: when(d.CreatedAt),
		Attempts: d.Attempts, Status: d.Last.Status, Response: d.Last.Response, Error: d.Last.Error,
	}
	if d.Attempts > 0 {
		it.Latency = strconv.FormatInt(d.Last.Latency.Milliseconds(), 10) + " ms"
	}
	if d.State == webhook.StatePending && d.Attempts > 0 {
		it.Next = when(d.NextAttemptAt)
	}
	return it
}

func webhookEvents(entries []owner.AuditEntry) []memberEvent {
	verbs := map[owner.Action]string{
		owner.ActionWebhookAdded: "added", owner.ActionWebhookRemoved: "removed",
		owner.ActionWebhookRotated: "rotated the secret of", owner.ActionWebhookEnabled: "enabled",
	}
	out := make([]memberEvent, len(entries))
	for i, e := range entries {
		out[i] = memberEvent{When: when(e.CreatedAt), By: e.OwnerEmail, Text: verbs[e.Action] + " " + e.Webhook.URL}
	}
	return out
}

func (c *console) webhooksPage(w http.ResponseWriter, r *http.Request, rq *request) {
	p := rq.page("Webhooks", "webhooks")
	switch r.URL.Query().Get("done") {
	case "removed":
		p.Notice = "Endpoint removed: it receives no more events."
	case "enabled":
		p.Notice = "Endpoint enabled: deliveries resume."
	case "test":
		p.Notice = "Test event queued: it appears below once sent."
	case "redeliver":
		p.Notice = "Delivery queued again: it is sent now."
	}
	c.renderWebhooks(w, r, rq, p, http.StatusOK, webhooksData{})
}

func (c *console) renderWebhooks(w http.ResponseWriter, r *http.Request, rq *request, p page, status int, d webhooksData) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	eps, err := c.Webhooks.List(ctx, rq.actor.Project.ID)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	for _, e := range eps {
		ds, err := c.Webhooks.Deliveries(ctx, rq.actor.Project.ID, e.ID, deliveriesShown)
		if err != nil {
			c.serverError(w, r, err)
			return
		}
		it := endpointItem{ID: e.ID, URL: webhook.Redacted(e.URL), Events: "all events but submission.landed", Created: when(e.CreatedAt), DisabledReason: e.DisabledReason}
		if len(e.Events) > 0 {
			it.Events = strings.Join(e.Events, ", ")
		}
		it.Disabled = whenPtr(e.DisabledAt, "")
		for _, dl := range ds {
			it.Deliveries = append(it.Deliveries, newDeliveryItem(dl))
		}
		d.Endpoints = append(d.Endpoints, it)
	}
	audit, err := c.Audit.AuditLog(ctx, rq.actor.Project.ID, owner.WebhookActions, auditShown)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d.Audit, d.Types = webhookEvents(audit), webhook.Types
	c.render(w, r, status, webhooksView(p, d))
}

// webhooksURL is the webhooks page with a done notice.
func webhooksURL(projectID, done string) string {
	return projectURL(projectID, "/webhooks?done="+done)
}

// webhookDone answers a change: the page again on success, a refusal as
// the domain says (another project's endpoint is a 404).
func (c *console) webhookDone(w http.ResponseWriter, r *http.Request, rq *request, err error, done string) {
	if err != nil {
		c.refuseWebhook(w, r, err)
		return
	}
	http.Redirect(w, r, webhooksURL(rq.actor.Project.ID, done), http.StatusSeeOther)
}

// refuseWebhook answers a refused change: another project's endpoint is a
// 404, a send over the endpoint's throttle a 429 saying when to try again,
// a redelivery under way a 409 saying so.
func (c *console) refuseWebhook(w http.ResponseWriter, r *http.Request, err error) {
	var throttled *webhook.ThrottledError
	if errors.As(err, &throttled) {
		wait := webhook.RetryAfterSeconds(throttled.RetryAfter)
		w.Header().Set("Retry-After", strconv.FormatInt(wait, 10))
		c.fail(w, r, http.StatusTooManyRequests, fmt.Sprintf(
			"This endpoint had its %d test events and redeliveries for now (one more every %d seconds): try again in %d seconds.",
			webhook.ManualBurst, int(webhook.ManualEvery/time.Second), wait))
		return
	}
	if nf, ok := fault.As(err, fault.KindNotFound); ok {
		c.fail(w, r, http.StatusNotFound, nf.Error())
		return
	}
	if conflict, ok := fault.As(err, fault.KindConflict); ok {
		c.fail(w, r, http.StatusConflict, conflict.Error())
		return
	}
	c.refuse(w, r, err)
}

func (c *console) addWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := r.ParseForm(); err != nil {
		c.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	u := strings.TrimSpace(r.PostFormValue("url"))
	ctx, cancel := context.WithTimeout(r.Context(), c.DBTimeout+10*time.Second) // the URL's host is resolved
	defer cancel()
	e, secret, err := c.WebhookChanges.AddWebhook(ctx, rq.actor, u, r.PostForm["event"])
	if invalid, ok := fault.As(err, fault.KindInvalid); ok {
		c.renderWebhooks(w, r, rq, rq.page("Webhooks", "webhooks"), http.StatusUnprocessableEntity, webhooksData{URL: u, URLErr: invalid.Error()})
		return
	}
	if err != nil {
		c.refuse(w, r, err)
		return
	}
	p := rq.page("Webhooks", "webhooks")
	p.Notice = "Endpoint added. Copy its signing secret now: it will not be shown again."
	c.renderWebhooks(w, r, rq, p, http.StatusOK, webhooksData{NewSecret: secret, NewSecretFor: e.ID})
}

func (c *console) removeWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	c.webhookDone(w, r, rq, c.WebhookChanges.RemoveWebhook(ctx, rq.actor, r.PathValue("endpoint")), "removed")
}

func (c *console) rotateWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	e, secret, err := c.WebhookChanges.RotateWebhookSecret(ctx, rq.actor, r.PathValue("endpoint"))
	if err != nil {
		c.refuseWebhook(w, r, err)
		return
	}
	p := rq.page("Webhooks", "webhooks")
	p.Notice = "New signing secret. Copy it now: events are signed with both secrets for 24 hours, then with this one only."
	c.renderWebhooks(w, r, rq, p, http.StatusOK, webhooksData{NewSecret: secret, NewSecretFor: e.ID})
}

func (c *console) enableWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	c.webhookDone(w, r, rq, c.WebhookChanges.EnableWebhook(ctx, rq.actor, r.PathValue("endpoint")), "enabled")
}

func (c *console) testWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	c.webhookDone(w, r, rq, c.WebhookChanges.SendTestWebhook(ctx, rq.actor, r.PathValue("endpoint")), "test")
}

func (c *console) redeliverWebhook(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	err := c.WebhookChanges.RedeliverWebhook(ctx, rq.actor, r.PathValue("endpoint"), r.PathValue("delivery"))
	c.webhookDone(w, r, rq, err, "redeliver")
}
