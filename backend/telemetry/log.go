package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// Log formats (RECLAIM_LOG_FORMAT).
const (
	LogJSON = "json"
	LogText = "text"
)

// NewLogHandler writes log records to w as JSON (one object a line) or as
// slog's key=value text, from level up, each stamped with the ids of the
// context it was logged with (see ContextHandler).
func NewLogHandler(w io.Writer, format string, level slog.Level) (slog.Handler, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case LogJSON, "":
		return ContextHandler{slog.NewJSONHandler(w, opts)}, nil
	case LogText:
		return ContextHandler{slog.NewTextHandler(w, opts)}, nil
	}
	return nil, fmt.Errorf("log format %q: want json or text", format)
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
