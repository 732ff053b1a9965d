package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
)

// tracerName is the instrumentation scope of the spans made here.
const tracerName = "github.com/reclaim-sol/reclaim/backend/telemetry"

// Tracing is the process's OpenTelemetry tracing: a provider for the
// instrumentation (otelhttp, otelconnect, the JSON-RPC transport, storage's
// query hook) and the W3C trace-context propagator.
type Tracing struct {
	// Provider makes the spans. Without an exporter it still gives every
	// request a trace id (continuing an incoming traceparent), for the logs,
	// but records nothing.
	Provider   trace.TracerProvider
	Propagator propagation.TextMapPropagator
	// Exporter says where spans go, for the startup log ("" when nowhere):
	// "otlp <scheme>://<host>" or "console". Never a URL's path or query.
	Exporter string
	// IDsOnly is set when spans go nowhere: then the server gives each
	// request its trace ids (continuing an incoming traceparent) for the
	// logs without making spans, which would record nothing at a cost.
	IDsOnly bool
	sdk     *sdktrace.TracerProvider
}

// NewTracing reads the standard OpenTelemetry environment through getenv:
// spans are exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, written to console (one JSON
// object per span) when OTEL_TRACES_EXPORTER=console, and not at all
// otherwise or with OTEL_TRACES_EXPORTER=none. The exporter itself reads the
// rest of OTEL_EXPORTER_OTLP_* (headers, timeout, compression) and the SDK
// OTEL_TRACES_SAMPLER; OTEL_SERVICE_NAME defaults to "reclaim".
func NewTracing(ctx context.Context, getenv func(string) string, console io.Writer, version string) (*Tracing, error) {
	t := &Tracing{Propagator: propagation.TraceContext{}}
	var exporter sdktrace.SpanExporter
	endpoint := firstOf(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	switch kind := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); kind {
	case "none":
	case "console":
		e, err := stdouttrace.New(stdouttrace.WithWriter(console))
		if err != nil {
			return nil, fmt.Errorf("tracing: %w", err)
		}
		exporter, t.Exporter = e, "console"
	case "", "otlp":
		if endpoint == "" {
			break
		}
		if p := firstOf(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_PROTOCOL=%q: only http/protobuf is supported (a collector's port 4318)", p)
		}
		e, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
		}
		exporter, t.Exporter = e, "otlp "+redact.URL(endpoint)
	default:
		return nil, fmt.Errorf("tracing: OTEL_TRACES_EXPORTER=%q: want otlp, console or none", kind)
	}
	name := firstOf(getenv("OTEL_SERVICE_NAME"), "reclaim")
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", name), attribute.String("service.version", version)))
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if exporter != nil {
		opts = append(opts, sdktrace.WithBatcher(exporter))
	} else {
		opts = append(opts, sdktrace.WithSampler(sdktrace.NeverSample()))
		t.IDsOnly = true
	}
	t.sdk = sdktrace.NewTracerProvider(opts...)
	t.Provider = t.sdk
	return t, nil
}

// LogErrors sends the OpenTelemetry SDK's own errors (an export that
// failed) to log, whose handler (NewLogHandler) keeps a URL to its scheme and
// host, rather than to the standard logger, which would print the
// exporter's whole URL ("failed to send to http://.../v1/traces: ...").
func LogErrors(log *slog.Logger) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing: export failed", "err", err)
	}))
}

// Shutdown exports the spans still buffered, within ctx.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.sdk == nil {
		return nil
	}
	return t.sdk.Shutdown(ctx)
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
