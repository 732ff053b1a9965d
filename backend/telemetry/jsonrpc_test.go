package telemetry_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/reclaim-sol/reclaim/backend/telemetry"
	"github.com/reclaim-sol/reclaim/backend/telemetry/telemetrytest"
)

// fakeCluster answers getBlockHeight, refuses getBalance with a JSON-RPC
// error, and answers getSlot with a 502.
func fakeCluster(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case bytes.Contains(body, []byte(`"getBlockHeight"`)):
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":1234,"id":1}`))
		case bytes.Contains(body, []byte(`"getBalance"`)):
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid param"},"id":1}`))
		default:
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func client(url string, rt http.RoundTripper) *rpc.Client {
	return rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(url, &jsonrpc.RPCClientOpts{HTTPClient: &http.Client{Transport: rt}}))
}

// The transport labels each call with the method read from its body and
// its outcome, and makes a span only inside a traced operation; neither
// the metrics nor the spans carry the endpoint's URL, where providers put
// their API keys.
func TestJSONRPCTransport(t *testing.T) {
	srv := fakeCluster(t)
	reg := prometheus.NewRegistry()
	m := telemetry.NewMetrics(reg)
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	const secret = "s3cr3t-api-key"
	c := client(srv.URL+"/?api-key="+secret, telemetry.JSONRPCTransport(nil, m, tp, "cluster", "api"))

	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	if h, err := c.GetBlockHeight(ctx, rpc.CommitmentConfirmed); err != nil || h != 1234 {
		t.Fatalf("getBlockHeight: %d %v", h, err)
	}
	if _, err := c.GetBalance(ctx, solana.SystemProgramID, rpc.CommitmentConfirmed); err == nil {
		t.Fatal("getBalance: want the JSON-RPC error")
	}
	if _, err := c.GetSlot(ctx, rpc.CommitmentConfirmed); err == nil {
		t.Fatal("getSlot: want the 502")
	}
	parent.End()
	// Outside a traced operation (the tracker's polling): metrics, no span.
	if _, err := c.GetBlockHeight(context.Background(), rpc.CommitmentConfirmed); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if _, err := c.GetBlockHeight(ctx, rpc.CommitmentConfirmed); err == nil {
		t.Fatal("closed server: want an error")
	}

	for _, tc := range []struct {
		method, outcome string
		want            uint64
	}{
		{"getBlockHeight", "ok", 2},
		{"getBalance", "rpc_error", 1},
		{"getSlot", "http_error", 1},
		{"getBlockHeight", "transport_error", 1},
	} {
		labels := map[string]string{"upstream": "cluster", "caller": "api", "method": tc.method, "outcome": tc.outcome}
		if got := histogramCount(t, reg, "reclaim_jsonrpc_call_duration_seconds", labels); got != tc.want {
			t.Errorf("%s %s: %d calls, want %d", tc.method, tc.outcome, got, tc.want)
		}
	}

	var names []string
	for _, s := range spans.GetSpans() {
		names = append(names, s.Name+":"+s.Status.Code.String())
		for _, a := range s.Attributes {
			if strings.Contains(a.Value.String(), secret) || strings.Contains(a.Value.String(), "/?") {
				t.Errorf("span %s: attribute %s = %q carries the URL", s.Name, a.Key, a.Value.String())
			}
		}
		if strings.Contains(s.Status.Description, secret) {
			t.Errorf("span %s: status %q carries the URL", s.Name, s.Status.Description)
		}
		for _, e := range s.Events {
			for _, a := range e.Attributes {
				if strings.Contains(a.Value.String(), secret) {
					t.Errorf("span %s: event attribute %s carries the URL", s.Name, a.Key)
				}
			}
		}
	}
	want := "cluster getBlockHeight:Unset cluster getBalance:Error cluster getSlot:Error request:Unset cluster getBlockHeight:Error"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("spans %q\nwant  %q", got, want)
	}
}

func TestTopLevelKeyThroughOutcomes(t *testing.T) {
	cases := []struct {
		name, body, outcome string
	}{
		{"result first", `{"jsonrpc":"2.0","result":{"value":{"err":null,"error":"nested"}},"id":1}`, "ok"},
		{"error first", `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind"},"id":1}`, "rpc_error"},
		{"id before error", `{"id":"reclaim","jsonrpc":"2.0","error":{"code":1,"message":"x"}}`, "rpc_error"},
		{"long result", `{"jsonrpc":"2.0","result":"` + strings.Repeat("a", 4096) + `","id":1}`, "ok"},
		{"not json", `<html>`, "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			reg := prometheus.NewRegistry()
			rt := telemetry.JSONRPCTransport(nil, telemetry.NewMetrics(reg), nil, "das", "api")
			res, err := (&http.Client{Transport: rt}).Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"getAsset","params":[]}`))
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			labels := map[string]string{"upstream": "das", "caller": "api", "method": "getAsset", "outcome": tc.outcome}
			if got := histogramCount(t, reg, "reclaim_jsonrpc_call_duration_seconds", labels); got != 1 {
				t.Fatalf("%d calls with outcome %s", got, tc.outcome)
			}
		})
	}
}

// histogramCount is the sample count of the histogram series with exactly
// these labels (0 when absent).
func histogramCount(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) uint64 {
	t.Helper()
	if m := telemetrytest.Series(t, reg, name, labels); m != nil {
		return m.GetHistogram().GetSampleCount()
	}
	return 0
}
