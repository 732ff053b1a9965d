package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Outcomes of a JSON-RPC call, the outcome label.
const (
	outcomeOK        = "ok"
	outcomeRPCError  = "rpc_error"       // the server answered with a JSON-RPC error object
	outcomeHTTPError = "http_error"      // a status other than 2xx
	outcomeTransport = "transport_error" // no answer: refused, reset, timed out, cancelled
)

// prefixBytes of each answer are kept to tell a result from an error object:
// JSON-RPC servers put "error" or "result" within the first few dozen.
const prefixBytes = 512

// JSONRPCTransport wraps next (nil: http.DefaultTransport) so that every
// JSON-RPC call through it is observed: its method (read from the request
// body), duration and outcome in reclaim_jsonrpc_call_duration_seconds, and
// a client span when the call is made within a traced operation (a request;
// the tracker's polling makes none). Upstream names the server (cluster, das,
// photon) and caller what calls it (api, tracker, readyz).
//
// The endpoint's URL is never recorded, nor put in a span's error: RPC
// providers put API keys in it. Spans carry the method, the host and the
// HTTP status.
func JSONRPCTransport(next http.RoundTripper, m *Metrics, tp trace.TracerProvider, upstream, caller string) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	t := &jsonrpcTransport{next: next, m: m, upstream: upstream, caller: caller}
	if tp != nil {
		t.tracer = tp.Tracer(tracerName)
	}
	return t
}

type jsonrpcTransport struct {
	next             http.RoundTripper
	m                *Metrics
	tracer           trace.Tracer
	upstream, caller string
}

func (t *jsonrpcTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	method, req, err := requestMethod(req)
	if err != nil {
		return nil, err
	}
	call := &rpcCall{t: t, method: method, start: start}
	if ctx := req.Context(); t.tracer != nil && trace.SpanContextFromContext(ctx).IsValid() {
		ctx, call.span = t.tracer.Start(ctx, t.upstream+" "+method,
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(
				attribute.String("rpc.system", "jsonrpc"),
				attribute.String("rpc.method", method),
				attribute.String("server.address", req.URL.Hostname()),
				attribute.String("reclaim.caller", t.caller),
			))
		req = req.WithContext(ctx)
	}
	res, err := t.next.RoundTrip(req)
	if err != nil {
		call.finish(outcomeTransport, 0, causeOf(err))
		return nil, err
	}
	res.Body = &observedBody{rc: res.Body, call: call, status: res.StatusCode}
	return res, nil
}

// requestMethod reads the JSON-RPC method from the request's body ("batch"
// for a batch, "other" for anything that is not a plain method name) and
// returns the request with its body restored.
func requestMethod(req *http.Request) (string, *http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return "other", req, nil
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return "", nil, err
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		return "batch", r, nil
	}
	var msg struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.Method == "" {
		return "other", r, nil //nolint:nilerr // a body we cannot read a method from is still sent, labelled "other"
	}
	return bounded(msg.Method), r, nil
}

// causeOf is a transport error without the URL url.Error puts in front.
func causeOf(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// rpcCall is one call being observed; finish records it once.
type rpcCall struct {
	t      *jsonrpcTransport
	method string
	start  time.Time
	span   trace.Span
	once   sync.Once
}

func (c *rpcCall) finish(outcome string, status int, err error) {
	c.once.Do(func() {
		if c.t.m != nil {
			c.t.m.rpcCalls.WithLabelValues(c.t.upstream, c.t.caller, c.method, outcome).Observe(time.Since(c.start).Seconds())
		}
		if c.span == nil {
			return
		}
		if status != 0 {
			c.span.SetAttributes(attribute.Int("http.response.status_code", status))
		}
		switch outcome {
		case outcomeOK:
		case outcomeTransport:
			c.span.SetStatus(codes.Error, err.Error())
		case outcomeHTTPError:
			c.span.SetStatus(codes.Error, "HTTP "+strconv.Itoa(status))
		default:
			c.span.SetStatus(codes.Error, "JSON-RPC error")
		}
		c.span.End()
	})
}

// observedBody ends the observation when the answer has been read (or
// closed): the duration covers the body, and its first bytes tell a result
// from an error object.
type observedBody struct {
	rc     io.ReadCloser
	call   *rpcCall
	status int
	prefix []byte
}

func (b *observedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if room := prefixBytes - len(b.prefix); room > 0 {
		b.prefix = append(b.prefix, p[:min(n, room)]...)
	}
	switch {
	case errors.Is(err, io.EOF):
		b.done(nil)
	case err != nil:
		b.done(err)
	}
	return n, err
}

func (b *observedBody) Close() error {
	err := b.rc.Close()
	b.done(nil)
	return err
}

func (b *observedBody) done(readErr error) {
	switch {
	case readErr != nil:
		b.call.finish(outcomeTransport, b.status, readErr)
	case b.status < 200 || b.status > 299:
		b.call.finish(outcomeHTTPError, b.status, nil)
	case topLevelKey(b.prefix) == "error":
		b.call.finish(outcomeRPCError, b.status, nil)
	default:
		b.call.finish(outcomeOK, b.status, nil)
	}
}

// topLevelKey is the first of "result" and "error" among the keys of the
// JSON object prefix begins (a truncated object is fine), or "".
func topLevelKey(prefix []byte) string {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		key, ok := tok.(string)
		if !ok {
			return ""
		}
		if key == "result" || key == "error" {
			return key
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
}
