package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/telemetry"
	"github.com/reclaim-sol/reclaim/backend/telemetry/telemetrytest"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// Every request is counted once, labelled with the procedure it reached,
// its protocol and its Connect code, whatever answered it: a handler
// through any of the four faces, the WebSocket, the request check, routing.
func TestRequestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	metrics := telemetry.NewMetrics(reg)
	e := newEnv(t, withDeps(func(d *server.Deps) {
		d.Metrics = metrics
		d.Admin = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) })
	}))
	wallet := newWallet()
	tok := e.session(wallet)

	e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	for _, opts := range [][]connect.ClientOption{nil, {connect.WithGRPC()}, {connect.WithGRPCWeb()}} {
		if _, err := e.connectClients(opts...).project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, apiKey(e.apiKey))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.connectClients().project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, noCred())); err == nil {
		t.Fatal("GetStats without credentials passed")
	}
	e.rest("GET", "/v1/nothing", apiKey(e.apiKey), nil).status(404)
	e.rest("POST", "/v1/sessions", apiKey(e.apiKey), `{"walletAddress": 12`).status(400)
	e.rest("POST", "/v1/wallet/"+wallet+"/transactions/submit", bearer(tok),
		map[string]any{"signed": []any{map[string]any{"transactionBase64": "AQID", "submissionTicket": "t"}}}).status(200)
	e.rest("GET", "/healthz", noCred(), nil).status(200)
	e.rest("POST", "/some.Scanner/Probe", noCred(), "{}").status(501) // Connect's unimplemented
	e.rest("GET", "/wp-login.php", noCred(), nil).status(404)
	e.rest("GET", "/admin/projects/prj_1/keys", noCred(), nil).status(403)
	res := readAll(t, e.dialStream(t, wallet, tokenQuery(tok), nil)) // the cluster is down
	if res.close.Code != 4503 {
		t.Fatalf("stream close %v", res.close)
	}
	e.idle(t)

	const stats = "/reclaim.v1.ProjectService/GetStats"
	for _, tc := range []struct{ procedure, protocol, code string }{
		{stats, "rest", "ok"},
		{stats, "connect", "ok"},
		{stats, "grpc", "ok"},
		{stats, "grpcweb", "ok"},
		{stats, "connect", "unauthenticated"},
		{"unknown", "rest", "not_found"},
		{"unknown", "rest", "invalid_argument"},
		{"/reclaim.v1.WalletService/SubmitTransactions", "rest", "ok"},
		{"/reclaim.v1.WalletService/StreamWalletAssets", "websocket", "unavailable"},
		{"/healthz", "http", "ok"},
		{"unknown", "connect", "unimplemented"},
		{"unknown", "http", "not_found"},
		{"console", "http", "permission_denied"},
	} {
		labels := map[string]string{"procedure": tc.procedure, "protocol": tc.protocol, "code": tc.code}
		if m := telemetrytest.Series(t, reg, "reclaim_request_duration_seconds", labels); m == nil || m.GetHistogram().GetSampleCount() != 1 {
			t.Errorf("%v: %v, want one request", labels, m)
		}
	}
	if m := telemetrytest.Series(t, reg, "reclaim_submissions_total", map[string]string{"status": "failed", "code": "INVALID_TICKET"}); m.GetCounter().GetValue() != 1 {
		t.Errorf("submissions %v", m)
	}
	for _, p := range []string{"rest", "connect", "grpc", "websocket", "http"} {
		if v := telemetrytest.Series(t, reg, "reclaim_requests_in_flight", map[string]string{"protocol": p}).GetGauge().GetValue(); v != 0 {
			t.Errorf("%s: %v in flight after the requests ended", p, v)
		}
	}
}

// Requests carry an X-Request-Id: the balancer's when it sent one, else a
// new one; both are in the access log line.
func TestRequestIDs(t *testing.T) {
	logs := &syncBuffer{}
	e := newEnv(t, withDeps(func(d *server.Deps) { d.Log = jsonLog(t, logs) }))
	r := e.rest("GET", "/v1/stats", header("X-Request-Id", "lb-1234"), nil)
	if got := r.header.Get("X-Request-Id"); got != "lb-1234" {
		t.Fatalf("X-Request-Id %q", got)
	}
	e.idle(t) // its line is written before the next request's
	r = e.rest("GET", "/v1/stats", header("X-Request-Id", "not a {valid} id"), nil)
	generated := r.header.Get("X-Request-Id")
	if len(generated) != 24 {
		t.Fatalf("generated X-Request-Id %q", generated)
	}
	e.idle(t)
	lines := logs.lines(t)
	if len(lines) != 2 || lines[0]["request_id"] != "lb-1234" || lines[1]["request_id"] != generated {
		t.Fatalf("log lines %v", lines)
	}
	if lines[0]["code"] != "unauthenticated" || lines[0]["procedure"] != "/reclaim.v1.ProjectService/GetStats" || lines[0]["status"] != 401.0 ||
		lines[0]["path"] != "/v1/stats" || lines[0]["protocol"] != "rest" {
		t.Fatalf("access line %v", lines[0])
	}
}

// syncBuffer collects log output written from several goroutines.
type syncBuffer struct{ telemetrytest.Logs }

// lines are the access log's lines ("request"), decoded.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

func jsonLog(t *testing.T, w *syncBuffer) *slog.Logger {
	t.Helper()
	h, err := telemetry.NewLogHandler(w, "json", slog.LevelInfo)
	if err != nil {
		t.Fatal(err)
	}
	return slog.New(h)
}
