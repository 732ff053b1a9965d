package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"

	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/telemetry"
	"github.com/reclaim-sol/reclaim/backend/telemetry/telemetrytest"
)

func TestLogLinesCarryRequestAndTraceIDs(t *testing.T) {
	tracing, err := telemetry.NewTracing(context.Background(), func(string) string { return "" }, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, span := tracing.Provider.Tracer("test").Start(telemetry.WithRequestID(context.Background(), "req-1"), "op")
	defer span.End()
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			h, err := telemetry.NewLogHandler(&buf, format, slog.LevelInfo)
			if err != nil {
				t.Fatal(err)
			}
			log := slog.New(h).With("component", "x")
			log.DebugContext(ctx, "hidden below info")
			log.InfoContext(ctx, "hello")
			log.Info("no context")
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("%d lines:\n%s", len(lines), buf.String())
			}
			traceID := span.SpanContext().TraceID().String()
			for _, want := range []string{"req-1", traceID, span.SpanContext().SpanID().String(), "component"} {
				if !strings.Contains(lines[0], want) {
					t.Errorf("line %q lacks %q", lines[0], want)
				}
			}
			if strings.Contains(lines[1], "request_id") || strings.Contains(lines[1], "trace_id") {
				t.Errorf("line without a context has ids: %q", lines[1])
			}
			if format == "json" && !json.Valid([]byte(lines[0])) {
				t.Errorf("not JSON: %q", lines[0])
			}
		})
	}
	if _, err := telemetry.NewLogHandler(&bytes.Buffer{}, "xml", slog.LevelInfo); err == nil {
		t.Fatal("format xml accepted")
	}
}

// TestLogLinesKeepURLsToTheirHost: whatever a line holds (its message, a
// string, an error wrapping net/http's, a grouped attribute, one added with
// With), a URL keeps its scheme and host, in both formats; and the
// OpenTelemetry SDK's own errors come through it too (LogErrors).
func TestLogLinesKeepURLsToTheirHost(t *testing.T) {
	const secret = "pr0v1d3r-k3y"
	endpoint := "https://user:" + secret + "@rpc.example/v2/" + secret + "?api-key=" + secret
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			h, err := telemetry.NewLogHandler(&buf, format, slog.LevelInfo)
			if err != nil {
				t.Fatal(err)
			}
			log := slog.New(h).With("upstream", endpoint)
			ue := &url.Error{Op: "Post", URL: endpoint, Err: context.DeadlineExceeded}
			log.Warn("calling "+endpoint, "url", endpoint, "err", fmt.Errorf("rpc call getHealth() on %s: %w", endpoint, ue),
				slog.Group("g", "inner", endpoint))
			telemetry.LogErrors(log)
			otel.Handle(errors.New("failed to send to " + endpoint + ": 500 Internal Server Error"))
			out := buf.String()
			if strings.Contains(out, secret) {
				t.Fatalf("the secret is logged:\n%s", out)
			}
			if n := strings.Count(out, "https://rpc.example"); n < 7 {
				t.Fatalf("%d mentions of the host, want 7 or more:\n%s", n, out)
			}
		})
	}
}

// Without an exporter every span still has ids (for the logs) and records
// nothing; OTEL_TRACES_EXPORTER=console writes each span as JSON.
func TestNewTracing(t *testing.T) {
	off, err := telemetry.NewTracing(context.Background(), func(string) string { return "" }, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	_, span := off.Provider.Tracer("t").Start(context.Background(), "x")
	if !span.SpanContext().IsValid() || span.IsRecording() || off.Exporter != "" {
		t.Fatalf("off: valid %v recording %v exporter %q", span.SpanContext().IsValid(), span.IsRecording(), off.Exporter)
	}

	var out bytes.Buffer
	env := map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "reclaim-test"}
	console, err := telemetry.NewTracing(context.Background(), func(k string) string { return env[k] }, &out, "v1")
	if err != nil {
		t.Fatal(err)
	}
	_, span = console.Provider.Tracer("t").Start(context.Background(), "sample", trace.WithSpanKind(trace.SpanKindServer))
	span.End()
	if err := console.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Name     string
		Resource []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Name != "sample" {
		t.Fatalf("console span %v: %s", err, out.String())
	}
	if !strings.Contains(out.String(), "reclaim-test") {
		t.Fatalf("service name missing: %s", out.String())
	}

	for _, bad := range []map[string]string{
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
	} {
		if _, err := telemetry.NewTracing(context.Background(), func(k string) string { return bad[k] }, nil, "v"); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	otlp, err := telemetry.NewTracing(context.Background(), func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://user:pw@collector:4318/x?k=v"}[k]
	}, nil, "v")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = otlp.Shutdown(context.Background()) }()
	if otlp.Exporter != "otlp http://collector:4318" {
		t.Fatalf("exporter %q", otlp.Exporter)
	}
}

type fakeLimiter struct{ allowed, fail bool }

func (f fakeLimiter) Allow(context.Context, string) (ratelimit.Result, error) {
	if f.fail {
		return ratelimit.Result{}, errors.New("redis down")
	}
	return ratelimit.Result{Allowed: f.allowed}, nil
}

// Take refuses with its last bucket, or with none when allowed.
func (f fakeLimiter) Take(_ context.Context, buckets []ratelimit.Bucket) ([]ratelimit.Result, error) {
	if f.fail {
		return nil, errors.New("redis down")
	}
	res := make([]ratelimit.Result, len(buckets))
	for i := range res {
		res[i].Allowed = f.allowed || i < len(res)-1
	}
	return res, nil
}

func TestLimiterCountsRefusalsByKind(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := telemetry.NewMetrics(reg)
	for _, key := range []string{"sess:abc", "ip:1.2.3.4", "ip:1.2.3.4", "weird"} {
		_, _ = m.Limiter(fakeLimiter{}).Allow(context.Background(), key)
	}
	wallet := ratelimit.Bucket{Key: "w:{prj_1}:A"}
	project := ratelimit.Bucket{Key: "p:{prj_1}"}
	ctx := context.Background()
	_, _ = m.Limiter(fakeLimiter{}).Take(ctx, []ratelimit.Bucket{project, wallet})
	_, _ = m.Limiter(fakeLimiter{}).Take(ctx, []ratelimit.Bucket{wallet, project})
	_, _ = m.Limiter(fakeLimiter{}).Take(ctx, []ratelimit.Bucket{project})
	_, _ = m.Limiter(fakeLimiter{allowed: true}).Take(ctx, []ratelimit.Bucket{wallet, project})
	_, _ = m.Limiter(fakeLimiter{allowed: true}).Allow(ctx, "ip:1.2.3.4")
	_, _ = m.Limiter(fakeLimiter{fail: true}).Take(ctx, []ratelimit.Bucket{project})
	for kind, want := range map[string]float64{"wallet": 1, "project": 2, "ip": 2, "other": 2} {
		if got := telemetrytest.Series(t, reg, "reclaim_rate_limited_total", map[string]string{"bucket": kind}).GetCounter().GetValue(); got != want {
			t.Errorf("%s: %v refusals, want %v", kind, got, want)
		}
	}
	if got := telemetrytest.Series(t, reg, "reclaim_rate_limiter_errors_total", map[string]string{}).GetCounter().GetValue(); got != 1 {
		t.Errorf("limiter errors %v", got)
	}
	var nilMetrics *telemetry.Metrics
	if l := nilMetrics.Limiter(fakeLimiter{}); l != (fakeLimiter{}) {
		t.Error("nil metrics wrapped the limiter")
	}
}

// The handler serves what the tracker settled and the ledger's entries in
// flight, read at scrape time.
func TestMetricsHandler(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := telemetry.NewMetrics(reg)
	counts := relay.TrackerCounts{Landed: 6, Dropped: 1, Confirmed: 5, Differing: 1, Failed: 2, Expired: 3, Rebroadcasts: 40, RebroadcastFailures: 4}
	oldest := time.Now().Add(-90 * time.Second)
	m.WatchTracker(func() relay.TrackerCounts { return counts }, func(context.Context) (int, time.Time, error) {
		return 7, oldest, nil
	})
	m.WatchSendPaths(func() []uint64 { return []uint64{0, 12} })
	m.Submitted("failed", "HASH_MISMATCH")
	m.Submitted("submitted", "")
	m.Submitted("failed", "something else entirely")
	m.ObserveConfirmationLag(14 * time.Second)
	m.ObserveRequest("/reclaim.v1.ProjectService/GetStats", "rest", "ok", 3*time.Millisecond)

	srv := httptest.NewServer(m.Handler(slog.Default()))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(res.Body)
	for _, want := range []string{
		`reclaim_tracker_settled_total{status="confirmed"} 5`,
		`reclaim_tracker_settled_total{status="expired"} 3`,
		`reclaim_tracker_landed_mismatch_total 1`,
		`reclaim_tracker_landed_total{outcome="landed"} 6`,
		`reclaim_tracker_landed_total{outcome="dropped"} 1`,
		`reclaim_tracker_rebroadcasts_total{outcome="ok"} 36`,
		`reclaim_tracker_rebroadcasts_total{outcome="failed"} 4`,
		`reclaim_send_path_failures_total{path="1"} 0`,
		`reclaim_send_path_failures_total{path="2"} 12`,
		`reclaim_tracker_in_flight 7`,
		`reclaim_tracker_in_flight_up 1`,
		`reclaim_submissions_total{code="HASH_MISMATCH",status="failed"} 1`,
		`reclaim_submissions_total{code="",status="submitted"} 1`,
		`reclaim_submissions_total{code="other",status="failed"} 1`,
		`reclaim_tracker_confirmation_lag_seconds_bucket{le="15"} 1`,
		`reclaim_request_duration_seconds_count{code="ok",procedure="/reclaim.v1.ProjectService/GetStats",protocol="rest"} 1`,
		`reclaim_build_info{goversion="go`,
		`go_goroutines `,
	} {
		if !strings.Contains(body.String(), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if !strings.Contains(body.String(), "reclaim_tracker_oldest_in_flight_seconds 9") {
		t.Errorf("oldest in flight not about 90s:\n%s", grep(body.String(), "oldest"))
	}
	other, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	other.Body.Close()
	if other.StatusCode != 404 {
		t.Fatalf("/ on the metrics listener: %d", other.StatusCode)
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
