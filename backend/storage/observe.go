package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/extra/bunotel"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// Pool is the database's connection pool, for its statistics
// (backend/telemetry's go_sql_* metrics).
func (s *DB) Pool() *sql.DB { return s.db.DB }

// Option is a setting of Open.
type Option func(*core)

// WithTracing records every statement made within a traced operation (a
// request) as a span of tp: its operation, table and SQL with placeholders,
// never the values (bun formats values into the statement; the span gets
// the query before that), the rows it touched and the storage method that
// made it. A transaction is its BEGIN, statements and COMMIT, each a span.
// Statements made outside a traced operation (the tracker's polling,
// migrations) make none.
func WithTracing(tp trace.TracerProvider) Option {
	return func(c *core) { c.trace(tp) }
}

func (s *core) trace(tp trace.TracerProvider) {
	s.db.AddQueryHook(bunotel.NewQueryHook(
		bunotel.WithTracerProvider(childrenOnly{tp: tp}),
		bunotel.WithMeterProvider(noop.NewMeterProvider()), // Prometheus has the pool's metrics
		bunotel.WithFormattedQueries(false),
	))
}

// childrenOnly starts spans only under a span: bunotel starts one for every
// statement, and a root span each second from the tracker's polling would
// bury the requests' traces.
type childrenOnly struct {
	embedded.TracerProvider
	tp trace.TracerProvider
}

func (c childrenOnly) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return childTracer{t: c.tp.Tracer(name, opts...)}
}

type childTracer struct {
	embedded.Tracer
	t trace.Tracer
}

func (c childTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, trace.SpanFromContext(ctx) // records nothing
	}
	return c.t.Start(ctx, name, opts...)
}

// InFlightSummary counts the ledger's entries still in flight (being sent or
// submitted, not yet settled) and returns the claim time of the oldest.
func (s *Ledger) InFlightSummary(ctx context.Context) (int, time.Time, error) {
	inFlight := func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Model((*transactionRow)(nil)).Where("status IN (?, ?)", ledger.StatusSending, ledger.StatusSubmitted)
	}
	n, err := inFlight(s.db.NewSelect()).Count(ctx)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("count entries in flight: %w", err)
	}
	var oldest time.Time
	err = inFlight(s.db.NewSelect()).Column("created_at").OrderExpr("created_at ASC").Limit(1).Scan(ctx, &oldest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, fmt.Errorf("oldest entry in flight: %w", err)
	}
	return n, oldest, nil
}
