package gateway

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/otelconnect"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/reclaim-sol/reclaim/backend/telemetry"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// Every request is observed once, by the outermost handler (observer.wrap):
// one access log line, reclaim_request_duration_seconds and the in-flight
// gauge, a request id. Its labels are filled in on the way: the protocol
// from the request itself (path, Upgrade, Content-Type), the procedure and
// the code by the Connect interceptor (for Connect, gRPC, gRPC-Web and REST
// through vanguard) or by the WebSocket handler; whatever was answered
// before (a malformed body, an unknown route) falls back to the HTTP status.
//
// Traces: otelconnect makes the RPCs' spans, otelhttp those of REST, the
// WebSocket and the console. Neither records headers or query strings (the
// WebSocket's ?token=): otelhttp's server span has the path only, and
// otelconnect records no header unless asked.

// Protocol label values beside connect-go's own (connect, grpc, grpcweb).
const (
	protocolREST      = "rest"
	protocolWebSocket = "websocket"
	protocolHTTP      = "http" // the console, the probes, the API reference, unknown paths
)

// call is what is known of one request, filled in as it is served.
type call struct {
	mu        sync.Mutex
	procedure string
	protocol  string
	code      string
	span      trace.SpanContext
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// Settle records the procedure (when known), the outcome (nil: ok, or the
// error's Connect code) and the span of the request ctx belongs to.
func Settle(ctx context.Context, procedure string, err error) {
	c := callFrom(ctx)
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if procedure != "" {
		c.procedure = procedure
	}
	c.code = "ok"
	if err != nil {
		c.code = connect.CodeOf(err).String()
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		c.span = sc
	}
}

// classify labels a request before it is served. Procedures are known
// ones only, so that a scanner's paths never become series.
func classify(r *http.Request, procedures map[string]bool) *call {
	p := r.URL.Path
	switch {
	case p == "/v1/openapi.json":
		return &call{procedure: p, protocol: protocolHTTP}
	case p == "/docs" || strings.HasPrefix(p, "/docs/"):
		return &call{procedure: "docs", protocol: protocolHTTP}
	case strings.HasPrefix(p, "/v1/") && IsWebSocket(r):
		return &call{procedure: reclaimv1connect.WalletServiceStreamWalletAssetsProcedure, protocol: protocolWebSocket}
	case strings.HasPrefix(p, "/v1/"):
		return &call{procedure: "unknown", protocol: protocolREST}
	case p == "/healthz" || p == "/readyz":
		return &call{procedure: p, protocol: protocolHTTP}
	case p == "/admin" || strings.HasPrefix(p, "/admin/"):
		return &call{procedure: "console", protocol: protocolHTTP}
	case strings.Count(p, "/") == 2 && strings.Contains(p, "."):
		c := &call{procedure: "unknown", protocol: "connect"}
		if procedures[p] {
			c.procedure = p
		}
		switch ct := r.Header.Get("Content-Type"); {
		case strings.HasPrefix(ct, "application/grpc-web"):
			c.protocol = "grpcweb"
		case strings.HasPrefix(ct, "application/grpc"):
			c.protocol = "grpc"
		}
		return c
	}
	return &call{procedure: "unknown", protocol: protocolHTTP}
}

// observer observes every request (wrap) and every RPC (interceptors).
type observer struct {
	log        *slog.Logger
	metrics    *telemetry.Metrics
	tracing    *telemetry.Tracing
	life       *Lifecycle
	procedures map[string]bool
}

// NewObserver returns the observer of every request: metrics and tracing
// (nil: not recorded), the access log, the lifecycle's active requests.
func NewObserver(log *slog.Logger, metrics *telemetry.Metrics, tracing *telemetry.Tracing, life *Lifecycle) *observer {
	return &observer{log: log, metrics: metrics, tracing: tracing, life: life, procedures: map[string]bool{}}
}

// Interceptors are the RPCs' tracing (outermost, so the span covers the
// credential checks) and labelling.
func (o *observer) Interceptors() []connect.Interceptor {
	var out []connect.Interceptor
	if o.spans() {
		otel, err := otelconnect.NewInterceptor(
			otelconnect.WithTracerProvider(o.tracing.Provider),
			otelconnect.WithPropagator(o.tracing.Propagator),
			otelconnect.WithMeterProvider(noop.NewMeterProvider()),
			otelconnect.WithoutMetrics(), // Prometheus has them
			// An incoming traceparent continues the caller's trace (an
			// operator's gateway, or REST's own span, see wrap).
			otelconnect.WithTrustRemote(),
		)
		if err == nil { // it fails only creating metric instruments, which are off
			out = append(out, otel)
		}
	}
	return append(out, &rpcObserver{o: o})
}

// Wrap is the outermost handler.
func (o *observer) Wrap(next http.Handler) http.Handler {
	traced := next
	if o.spans() {
		traced = otelhttp.NewHandler(o.inward(next), "http",
			otelhttp.WithTracerProvider(o.tracing.Provider),
			otelhttp.WithPropagators(o.tracing.Propagator),
			otelhttp.WithMeterProvider(noop.NewMeterProvider()),
			otelhttp.WithSpanNameFormatter(spanName),
		)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start, method, path := time.Now(), r.Method, r.URL.Path // vanguard rewrites the URL it shares
		c := classify(r, o.procedures)
		id := requestID(r)
		w.Header().Set("X-Request-Id", id)
		ctx := telemetry.WithRequestID(context.WithValue(r.Context(), callKey{}, c), id)
		if o.tracing != nil && o.tracing.IDsOnly {
			c.span = o.traceIDs(r)
			ctx = trace.ContextWithSpanContext(ctx, c.span)
		}
		// Left last: Lifecycle.Wait returns once the request is recorded.
		defer o.life.enter()()
		done := o.metrics.RequestStarted(c.protocol)
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h := next
		if c.protocol == protocolREST || c.protocol == protocolWebSocket || c.procedure == "console" {
			h = traced // the RPCs' spans are otelconnect's; the probes make none
		}
		h.ServeHTTP(sw, r.WithContext(ctx))
		done()
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.code == "" {
			c.code = fallbackCode(c.protocol, sw)
		}
		d := time.Since(start)
		o.metrics.ObserveRequest(c.procedure, c.protocol, c.code, d)
		level := slog.LevelInfo
		if c.protocol == protocolHTTP && (c.procedure == "/healthz" || c.procedure == "/readyz") {
			level = slog.LevelDebug // a load balancer asks every few seconds
		}
		// Never headers or query strings: credentials travel there.
		if !trace.SpanContextFromContext(ctx).Equal(c.span) {
			ctx = trace.ContextWithSpanContext(ctx, c.span)
		}
		o.log.LogAttrs(ctx, level, "request", slog.String("method", method), slog.String("path", path),
			slog.Int("status", sw.status), slog.Int64("ms", d.Milliseconds()), slog.String("procedure", c.procedure),
			slog.String("protocol", c.protocol), slog.String("code", c.code))
	})
}

// spans tells whether requests make spans (an exporter records them).
func (o *observer) spans() bool { return o.tracing != nil && !o.tracing.IDsOnly }

// traceIDs are the trace ids of a request when spans go nowhere
// (Tracing.IDsOnly): the caller's trace when its traceparent names one, else
// a new one, and a new span id, unsampled, as the SDK's spans that are never
// sampled would have, without their cost (a sixth of an authenticated
// read's processor time went to making and ending spans nobody records).
func (o *observer) traceIDs(r *http.Request) trace.SpanContext {
	var cfg trace.SpanContextConfig
	if parent := trace.SpanContextFromContext(o.tracing.Propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))); parent.IsValid() {
		cfg.TraceID = parent.TraceID()
	} else {
		binary.LittleEndian.PutUint64(cfg.TraceID[:8], rand.Uint64()) //nolint:gosec // an id, not a secret
		binary.LittleEndian.PutUint64(cfg.TraceID[8:], rand.Uint64()) //nolint:gosec // an id, not a secret
	}
	binary.LittleEndian.PutUint64(cfg.SpanID[:], rand.Uint64()|1) //nolint:gosec // an id, not a secret; never zero
	return trace.NewSpanContext(cfg)
}

// inward runs inside otelhttp's span: it keeps the span for the log line,
// and hands it to the Connect handler behind vanguard as its parent
// (otelconnect reads the traceparent header).
func (o *observer) inward(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := callFrom(r.Context()); c != nil {
			c.mu.Lock()
			c.span = trace.SpanContextFromContext(r.Context())
			c.mu.Unlock()
		}
		o.tracing.Propagator.Inject(r.Context(), propagation.HeaderCarrier(r.Header))
		next.ServeHTTP(w, r)
	})
}

// spanName names an HTTP span for what it served: the method and the
// procedure ("GET reclaim.v1.ProjectService/GetStats"), or the route
// pattern while the procedure is unknown (otelhttp names the span again
// once the handler has returned).
func spanName(_ string, r *http.Request) string {
	if c := callFrom(r.Context()); c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.procedure != "unknown" {
			return r.Method + " " + strings.TrimPrefix(c.procedure, "/")
		}
	}
	return strings.TrimSpace(r.Method + " " + r.Pattern)
}

// fallbackCode is the Connect code of a request no handler labelled: from
// grpc-status for gRPC, from the HTTP status otherwise.
func fallbackCode(protocol string, w *statusWriter) string {
	if protocol == "grpc" || protocol == "grpcweb" {
		h := w.Header()
		for _, k := range []string{"Grpc-Status", http.TrailerPrefix + "Grpc-Status"} {
			if v := h.Get(k); v != "" {
				var code connect.Code
				if code.UnmarshalText([]byte(v)) == nil {
					return code.String()
				}
			}
		}
	}
	if w.status < 400 {
		return "ok"
	}
	return CodeForStatus(w.status).String()
}

// requestID is the caller's X-Request-Id when it looks like one (a
// balancer's), else a new random one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == "" {
		return id
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64()) //nolint:gosec // an id, not a secret (ChaCha8 all the same)
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64()) //nolint:gosec // an id, not a secret
	return hex.EncodeToString(b[:12])
}

// statusWriter keeps the status for the log line; Unwrap lets
// http.ResponseController and the WebSocket's Accept reach the connection.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// rpcObserver labels RPCs with their procedure and code, counts submission
// results, and turns the failures of calls cut short by a stopping server
// into unavailable, so clients retry elsewhere.
type rpcObserver struct{ o *observer }

func (i *rpcObserver) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		resp, err := next(ctx, req)
		err = stopping(ctx, err)
		Settle(ctx, req.Spec().Procedure, err)
		if sub, ok := anyMessage(resp).(*reclaimv1.SubmitTransactionsResponse); ok && err == nil {
			for _, r := range sub.GetResults() {
				i.o.metrics.Submitted(r.GetStatus(), r.GetError().GetCode())
			}
		}
		return resp, err
	}
}

func (i *rpcObserver) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (i *rpcObserver) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		err := stopping(ctx, next(ctx, conn))
		Settle(ctx, conn.Spec().Procedure, err)
		return err
	}
}

func anyMessage(resp connect.AnyResponse) any {
	if resp == nil {
		return nil
	}
	return resp.Any()
}

// stopping is err, or unavailable when the call failed because the server
// is stopping (Lifecycle.Stop ended its context).
func stopping(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), ErrStopping) {
		return connect.NewError(connect.CodeUnavailable, ErrStopping)
	}
	return err
}

// Known records the procedures served, the only ones that label requests.
func (o *observer) Known(services []protoreflect.ServiceDescriptor, more []string) {
	for _, sd := range services {
		methods := sd.Methods()
		for i := range methods.Len() {
			o.procedures["/"+string(sd.FullName())+"/"+string(methods.Get(i).Name())] = true
		}
	}
	for _, p := range more {
		o.procedures[p] = true
	}
}
