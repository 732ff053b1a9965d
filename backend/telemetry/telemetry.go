// Package telemetry is how an operator watches Reclaim: the Prometheus
// metrics of one process (Metrics, served by Handler on their own listener),
// OpenTelemetry tracing (NewTracing), the instrumented transport of the
// JSON-RPC clients (Metrics.JSONRPC), and the log handler that stamps every
// line with its request and trace ids (NewLogHandler).
//
// It is an adapter, like backend/server: the domain packages know nothing of
// it. They expose counters (relay.Tracker.Counts) or small hooks, and
// backend/cmd wires them here. Nothing here is a package global: a process
// makes one prometheus.Registry and passes it in.
//
// What is never recorded, in a metric label, a span attribute or a log line:
// credentials (headers, query strings, the WebSocket's ?token=), endpoint
// URLs (RPC providers put API keys in them) and SQL argument values.
package telemetry

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// namespace prefixes every metric of ours.
const namespace = "reclaim"

// Metrics are the Prometheus metrics of one process. The zero value is not
// usable; a nil *Metrics is, and records nothing (tests and tools that do not
// serve metrics pass nil).
type Metrics struct {
	reg *prometheus.Registry

	inFlight     *prometheus.GaugeVec
	requests     *prometheus.HistogramVec
	submissions  *prometheus.CounterVec
	rateLimited  *prometheus.CounterVec
	limiterFails prometheus.Counter
	rpcCalls     *prometheus.HistogramVec
	lag          prometheus.Histogram
}

// NewMetrics registers the process's metrics on reg: ours, the Go runtime's
// and the process's (go_*, process_*), and reclaim_build_info.
func NewMetrics(reg *prometheus.Registry) *Metrics {
	// Past DefBuckets' 10 s: streams and slow clusters.
	requestBuckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	m := &Metrics{
		reg: reg,
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Name: "requests_in_flight",
			Help: "Requests being served, WebSocket and server streams included, by protocol.",
		}, []string{"protocol"}),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "request_duration_seconds",
			Help:    "Requests served, by procedure, protocol (connect, grpc, grpcweb, rest, websocket, http) and Connect code; _count is the number of requests.",
			Buckets: requestBuckets,
		}, []string{"procedure", "protocol", "code"}),
		submissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "submissions_total",
			Help: "Signed transactions submitted, by result status (submitted, duplicate, failed) and failure code.",
		}, []string{"status", "code"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "rate_limited_total",
			Help: "Requests refused by the rate limiter, by the bucket that refused (ip: a client address; project: a project's quota; wallet: one wallet's share of it).",
		}, []string{"bucket"}),
		limiterFails: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "rate_limiter_errors_total",
			Help: "Rate limiter calls to Redis that failed; this instance decided the request alone, in memory.",
		}),
		rpcCalls: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "jsonrpc_call_duration_seconds",
			Help:    "JSON-RPC calls to the cluster and the indexers, by upstream (cluster, send_path, das, photon), caller (api, tracker, readyz, relay), method and outcome (ok, rpc_error, http_error, transport_error).",
			Buckets: requestBuckets,
		}, []string{"upstream", "caller", "method", "outcome"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "tracker_confirmation_lag_seconds",
			Help:    "From a transaction's claim at submit to the tracker counting it confirmed (finalized) in the ledger.",
			Buckets: []float64{5, 10, 15, 20, 30, 45, 60, 90, 120, 300, 600},
		}),
	}
	reg.MustRegister(m.inFlight, m.requests, m.submissions, m.rateLimited, m.limiterFails, m.rpcCalls, m.lag,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo())
	return m
}

// Registry is the registry the metrics are on, for Handler and for the
// collectors backend/cmd adds (storage's pool, the tracker).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// RequestStarted counts a request in flight until the returned func runs.
func (m *Metrics) RequestStarted(protocol string) (done func()) {
	if m == nil {
		return func() {}
	}
	g := m.inFlight.WithLabelValues(protocol)
	g.Inc()
	return g.Dec
}

// ObserveRequest records one served request.
func (m *Metrics) ObserveRequest(procedure, protocol, code string, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(procedure, protocol, code).Observe(d.Seconds())
}

// Submitted counts one submission result. Status and code come from our own
// relay (a handful of values each); anything else is counted as "other".
func (m *Metrics) Submitted(status, code string) {
	if m == nil {
		return
	}
	m.submissions.WithLabelValues(bounded(status), bounded(code)).Inc()
}

// ObserveConfirmationLag records the time from a claim to its confirmation.
func (m *Metrics) ObserveConfirmationLag(d time.Duration) {
	if m == nil {
		return
	}
	m.lag.Observe(d.Seconds())
}

// bounded keeps a label value from our own vocabulary: short words of
// letters, digits and underscores; "other" otherwise, so a label can never
// grow without bound or carry something it should not.
func bounded(v string) string {
	if len(v) > 40 {
		return "other"
	}
	for _, c := range v {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return "other"
		}
	}
	return v
}
