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

	"github.com/reclaim-sol/reclaim/backend/ledger"
)

// Pool is the database's connection pool, for its statistics
// (backend/telemetry's go_sql_* metrics).
func (s *Store) Pool() *sql.DB { return s.db.DB }

// Trace records every statement made within a traced operation (a request)
// as a span of tp: its operation, table and SQL with placeholders, never
// the values (bun formats values into the statement; the span gets the
// query before that), and the rows it touched. A transaction is its BEGIN,
// statements and COMMIT, each a span. Statements made outside a traced
// operation (the tracker's polling, migrations) make none. Call it before
// the store is used.
func (s *Store) Trace(tp trace.TracerProvider) {
	s.db.AddQueryHook(tracedQueries{bunotel.NewQueryHook(
		bunotel.WithTracerProvider(tp),
		bunotel.WithMeterProvider(noop.NewMeterProvider()), // Prometheus has the pool's metrics
		bunotel.WithFormattedQueries(false),
	)})
}

// tracedQueries is bunotel's hook, started only under a span. It is not
// an embedding: bunotel's Init would report pool metrics to the global
// OpenTelemetry meter.
type tracedQueries struct{ hook *bunotel.QueryHook }

func (h tracedQueries) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	return h.hook.BeforeQuery(ctx, e)
}

func (h tracedQueries) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	h.hook.AfterQuery(ctx, e) // ends the span BeforeQuery started, if any
}

// InFlightSummary counts the ledger's entries still in flight (being sent or
// submitted, not yet settled) and returns the claim time of the oldest.
func (s *Store) InFlightSummary(ctx context.Context) (int, time.Time, error) {
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
