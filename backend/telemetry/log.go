package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
)

// Log formats (RECLAIM_LOG_FORMAT).
const (
	LogJSON = "json"
	LogText = "text"
)

// NewLogHandler writes log records to w as JSON (one object a line) or as
// slog's key=value text, from level up, each stamped with the ids of the
// context it was logged with (see ContextHandler). A URL in any message,
// string or error keeps its scheme and host alone (redactURLs).
func NewLogHandler(w io.Writer, format string, level slog.Level) (slog.Handler, error) {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: redactURLs}
	switch format {
	case LogJSON, "":
		return ContextHandler{slog.NewJSONHandler(w, opts)}, nil
	case LogText:
		return ContextHandler{slog.NewTextHandler(w, opts)}, nil
	}
	return nil, fmt.Errorf("log format %q: want json or text", format)
}

// redactURLs reduces every URL in a string or an error to its scheme and
// host: RPC providers put API keys in their URLs, database and Redis URLs
// carry passwords, and the errors of the HTTP clients, solana-go and the
// OpenTelemetry exporter print whole URLs. The URL settings are logged
// through redact.URL already; this keeps a dependency's error from
// logging one.
func redactURLs(_ []string, a slog.Attr) slog.Attr {
	switch v := a.Value; v.Kind() {
	case slog.KindString:
		if s := v.String(); strings.Contains(s, "://") {
			a.Value = slog.StringValue(redact.String(s))
		}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok && strings.Contains(err.Error(), "://") {
			a.Value = slog.StringValue(redact.Error(err).Error())
		}
	}
	return a
}

// ContextHandler adds to every record logged with a context (InfoContext and
// the like) the request's id (request_id) and its span's ids (trace_id,
// span_id), so one request's lines, and its trace, can be found together.
type ContextHandler struct{ slog.Handler }

// Handle implements slog.Handler.
func (h ContextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h ContextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return ContextHandler{h.Handler.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (h ContextHandler) WithGroup(name string) slog.Handler {
	return ContextHandler{h.Handler.WithGroup(name)}
}

type requestIDKey struct{}

// WithRequestID returns ctx carrying a request's id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID is the id of the request ctx belongs to, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
