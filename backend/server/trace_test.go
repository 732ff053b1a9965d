package server_test

import (
	"context"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/telemetry"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// tracedEnv is a server whose spans go to an in-memory exporter and whose
// log to a buffer.
func tracedEnv(t *testing.T, opts ...option) (*env, *tracetest.InMemoryExporter, *syncBuffer) {
	spans := tracetest.NewInMemoryExporter()
	tracing := &telemetry.Tracing{
		Provider:   sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)),
		Propagator: propagation.TraceContext{},
	}
	logs := &syncBuffer{}
	opts = append(opts, withDeps(func(d *server.Deps) {
		d.Tracing = tracing
		d.Log = jsonLog(t, logs)
	}))
	return newEnv(t, opts...), spans, logs
}

// A REST request is one trace: otelhttp's server span, named for the
// procedure it reached, and otelconnect's beneath it, as vanguard hands the
// request to the Connect handler. Its access log line has its ids.
func TestTraceOfARESTRequest(t *testing.T) {
	e, spans, logs := tracedEnv(t)
	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	e.idle(t)

	got := spans.GetSpans()
	if len(got) != 2 {
		t.Fatalf("%d spans: %v", len(got), names(got))
	}
	rpc, httpSpan := got[0], got[1] // the inner one ends first
	if httpSpan.Name != "GET reclaim.v1.ProjectService/GetStats" || rpc.Name != "reclaim.v1.ProjectService/GetStats" {
		t.Fatalf("spans %v", names(got))
	}
	if rpc.Parent.SpanID() != httpSpan.SpanContext.SpanID() || rpc.SpanContext.TraceID() != httpSpan.SpanContext.TraceID() {
		t.Fatalf("the RPC span's parent is %v, want the HTTP span %v", rpc.Parent.SpanID(), httpSpan.SpanContext.SpanID())
	}
	line := logs.lines(t)[0]
	if line["trace_id"] != httpSpan.SpanContext.TraceID().String() || line["request_id"] == nil {
		t.Fatalf("access line %v, want trace %s", line, httpSpan.SpanContext.TraceID())
	}
}

// gatewayTrace is the trace of getStatsInTrace's traceparent.
const gatewayTrace = "4bf92f3577b34da6a3ce929d0e0e4736"

// getStatsInTrace calls GetStats over gRPC with a gateway's traceparent
// (trace gatewayTrace, span 00f067aa0ba902b7) and waits for it to be
// recorded.
func getStatsInTrace(t *testing.T, e *env) {
	t.Helper()
	req := withCred(&reclaimv1.GetStatsRequest{}, apiKey(e.apiKey))
	req.Header().Set("Traceparent", "00-"+gatewayTrace+"-00f067aa0ba902b7-01")
	if _, err := e.connectClients(connect.WithGRPC()).project.GetStats(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	e.idle(t)
}

// An incoming traceparent (an operator's gateway) is continued.
func TestTraceContinuesTheCallersTrace(t *testing.T) {
	e, spans, _ := tracedEnv(t)
	getStatsInTrace(t, e)
	got := spans.GetSpans()
	if len(got) != 1 || got[0].SpanContext.TraceID().String() != gatewayTrace {
		t.Fatalf("spans %v", names(got))
	}
}

// Credentials never reach a span or a log line: not the WebSocket's
// ?token= (nor its subprotocol), not an Authorization or X-Api-Key header.
func TestTracesAndLogsCarryNoCredentials(t *testing.T) {
	e, spans, logs := tracedEnv(t)
	wallet := newWallet()
	tok := e.session(wallet)
	readAll(t, e.dialStream(t, wallet, tokenQuery(tok)+"&chunkSize=5", nil))
	readAll(t, e.dialStream(t, wallet, "", &websocket.DialOptions{Subprotocols: []string{"reclaim.v1", "bearer." + tok}}))
	e.rest("GET", "/v1/stats", bearer(tok), nil).status(200)
	if _, err := e.connectClients().project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, apiKey(e.apiKey))); err != nil {
		t.Fatal(err)
	}
	const bogus = "ak_live_BogusKeyThatMustNotBeRecorded1111111111"
	e.rest("GET", "/v1/stats", apiKey(bogus), nil).status(401)
	readAll(t, e.dialStream(t, wallet, tokenQuery(bogus), nil))
	e.idle(t)
	secrets := []string{tok, e.apiKey, "token=", bogus}
	got := spans.GetSpans()
	if len(got) < 5 {
		t.Fatalf("spans %v", names(got))
	}
	for _, s := range got {
		var texts []string
		for _, a := range s.Attributes {
			texts = append(texts, string(a.Key)+"="+a.Value.String())
		}
		for _, ev := range s.Events {
			texts = append(texts, ev.Name)
			for _, a := range ev.Attributes {
				texts = append(texts, a.Value.String())
			}
		}
		texts = append(texts, s.Name, s.Status.Description)
		for _, text := range texts {
			for _, secret := range secrets {
				if strings.Contains(text, secret) {
					t.Errorf("span %s records a credential: %q", s.Name, text)
				}
			}
		}
	}
	for _, secret := range secrets {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log records a credential (%.12s...)", secret)
		}
	}
	// The stream's span is there, named for the stream, with the path.
	for _, s := range got {
		if s.Name == "GET reclaim.v1.WalletService/StreamWalletAssets" {
			for _, a := range s.Attributes {
				if a.Key == "url.path" && a.Value.AsString() != "/v1/wallet/"+wallet+"/stream" {
					t.Errorf("url.path %q", a.Value.AsString())
				}
			}
			return
		}
	}
	t.Fatalf("no stream span among %v", names(got))
}

func names(spans tracetest.SpanStubs) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}

// Without an exporter (Tracing.IDsOnly) no span is made, and every request
// still has trace ids for its log lines: a new trace, or the caller's.
func TestTraceIDsWithoutSpans(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tracing := &telemetry.Tracing{
		Provider:   sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)),
		Propagator: propagation.TraceContext{},
		IDsOnly:    true,
	}
	logs := &syncBuffer{}
	e := newEnv(t, withDeps(func(d *server.Deps) {
		d.Tracing = tracing
		d.Log = jsonLog(t, logs)
	}))
	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	e.idle(t) // its line is written before the next request's
	getStatsInTrace(t, e)
	if got := spans.GetSpans(); len(got) != 0 {
		t.Fatalf("%d spans made with no exporter: %v", len(got), names(got))
	}
	lines := logs.lines(t)
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2: %v", len(lines), lines)
	}
	first, _ := lines[0]["trace_id"].(string)
	if len(first) != 32 || first == gatewayTrace || lines[0]["span_id"] == nil {
		t.Fatalf("REST line %v: want a trace of its own", lines[0])
	}
	if lines[1]["trace_id"] != gatewayTrace || lines[1]["span_id"] == "00f067aa0ba902b7" {
		t.Fatalf("gRPC line %v: want the caller's trace %s and a span of its own", lines[1], gatewayTrace)
	}
}
