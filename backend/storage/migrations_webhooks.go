package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// webhookEndpointV15 is a project's webhook endpoint as of migration
// 20260521000015. Times the delivery loop compares are Unix milliseconds,
// as the tracker's leases are.
type webhookEndpointV15 struct {
	bun.BaseModel `bun:"table:webhook_endpoints"`

	ID        string `bun:"id,pk"`
	ProjectID string `bun:"project_id,notnull"`
	URL       string `bun:"url,notnull"`
	// Events is "" (every type) or the types between commas: ",a,b,".
	Events string `bun:"events,notnull"`
	// Secret and PreviousSecret are sealed (seal.Box, the endpoint's id as
	// additional data): a copy of the database alone does not sign.
	Secret         []byte     `bun:"secret,notnull"`
	PreviousSecret []byte     `bun:"previous_secret"`
	PreviousUntil  int64      `bun:"previous_until,notnull"`
	CreatedAt      time.Time  `bun:"created_at,notnull"`
	DisabledAt     *time.Time `bun:"disabled_at"`
	DisabledReason string     `bun:"disabled_reason,notnull"`
	FailingSince   int64      `bun:"failing_since,notnull"`
	Failures       int        `bun:"failures,notnull"`
}

// webhookDeliveryV15 is a row of the outbox as of migration 20260521000015:
// one event for one endpoint, written in the transaction that changed the
// status it reports.
type webhookDeliveryV15 struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	ID            string     `bun:"id,pk"`
	EventID       string     `bun:"event_id,notnull"`
	EndpointID    string     `bun:"endpoint_id,notnull"`
	ProjectID     string     `bun:"project_id,notnull"`
	Type          string     `bun:"type,notnull"`
	Wallet        string     `bun:"wallet,notnull"`
	Signature     string     `bun:"signature,notnull"`
	Payload       []byte     `bun:"payload,notnull"`
	State         string     `bun:"state,notnull"`
	Attempts      int        `bun:"attempts,notnull"`
	NextAttemptAt int64      `bun:"next_attempt_at,notnull"`
	LeaseOwner    string     `bun:"lease_owner,notnull"`
	LeaseUntil    int64      `bun:"lease_until,notnull"`
	CreatedAt     time.Time  `bun:"created_at,notnull"`
	DeliveredAt   *time.Time `bun:"delivered_at"`
	LastAt        *time.Time `bun:"last_at"`
	LastStatus    int        `bun:"last_status,notnull"`
	LastError     string     `bun:"last_error,notnull"`
	LastLatencyMS int64      `bun:"last_latency_ms,notnull"`
	LastResponse  string     `bun:"last_response,notnull"`
}

// idempotencyKeyV15 is a request's Idempotency-Key as of migration
// 20260521000015: its hash (never the key), the request's fingerprint and,
// once done, the answer. Times are Unix milliseconds.
type idempotencyKeyV15 struct {
	bun.BaseModel `bun:"table:idempotency_keys"`

	ProjectID   string `bun:"project_id,pk"`
	KeyHash     []byte `bun:"key_hash,pk"`
	Fingerprint []byte `bun:"fingerprint,notnull"`
	Token       string `bun:"token,notnull"`
	Done        bool   `bun:"done,notnull"`
	Code        int    `bun:"code,notnull"`
	Body        []byte `bun:"body"`
	Message     string `bun:"message,notnull"`
	Param       string `bun:"param,notnull"`
	LeaseUntil  int64  `bun:"lease_until,notnull"`
	CreatedAt   int64  `bun:"created_at,notnull"`
}

// upWebhooks adds the webhooks (endpoints and the outbox of their
// deliveries), the idempotency keys, and the audit log's columns for the
// endpoint an entry is about. The outbox is read by state and due time
// (the delivery loop) and by endpoint, newest first (the console); the
// keys by age (the tracker expires them).
func upWebhooks(ctx context.Context, db bun.IDB) error {
	const projectFK = `("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE`
	if _, err := db.NewCreateTable().Model((*webhookEndpointV15)(nil)).IfNotExists().ForeignKey(projectFK).Exec(ctx); err != nil {
		return fmt.Errorf("create webhook_endpoints: %w", err)
	}
	if _, err := db.NewCreateTable().Model((*webhookDeliveryV15)(nil)).IfNotExists().
		ForeignKey(`("endpoint_id") REFERENCES "webhook_endpoints" ("id") ON DELETE CASCADE`).Exec(ctx); err != nil {
		return fmt.Errorf("create webhook_deliveries: %w", err)
	}
	if _, err := db.NewCreateTable().Model((*idempotencyKeyV15)(nil)).IfNotExists().Exec(ctx); err != nil {
		return fmt.Errorf("create idempotency_keys: %w", err)
	}
	for _, ix := range []struct {
		model   any
		name    string
		columns []string
	}{
		{(*webhookEndpointV15)(nil), "webhook_endpoints_project_idx", []string{"project_id"}},
		{(*webhookDeliveryV15)(nil), "webhook_deliveries_due_idx", []string{"state", "next_attempt_at"}},
		{(*webhookDeliveryV15)(nil), "webhook_deliveries_endpoint_idx", []string{"endpoint_id", "created_at"}},
		{(*webhookDeliveryV15)(nil), "webhook_deliveries_created_idx", []string{"created_at"}},
		{(*idempotencyKeyV15)(nil), "idempotency_keys_created_idx", []string{"created_at"}},
	} {
		if _, err := db.NewCreateIndex().Model(ix.model).IfNotExists().Index(ix.name).Column(ix.columns...).Exec(ctx); err != nil {
			return fmt.Errorf("create index %s: %w", ix.name, err)
		}
	}
	pg := db.Dialect().Name() == dialect.PG
	for _, col := range []string{"webhook_id", "webhook_url"} {
		exists, err := hasColumn(ctx, db, pg, "console_audit", col)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		if _, err := db.NewAddColumn().Model((*auditV4)(nil)).ColumnExpr(col + " VARCHAR NOT NULL DEFAULT ''").Exec(ctx); err != nil {
			return fmt.Errorf("add console_audit.%s: %w", col, err)
		}
	}
	return nil
}
