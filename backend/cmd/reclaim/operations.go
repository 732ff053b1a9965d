package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/telemetry"
)

// stopGrace is how long the requests still running when the drain bound
// passes get to return once cancelled, before their connections are closed.
const stopGrace = 5 * time.Second

// operationsFlags binds the operations settings to serve's flags.
func operationsFlags(fs *flag.FlagSet, o *config.Operations) {
	fs.StringVar(&o.MetricsAddr, "metrics-addr", o.MetricsAddr, `GET /metrics listen address; "" turns metrics off (RECLAIM_METRICS_ADDR, "off")`)
	fs.StringVar(&o.LogFormat, "log-format", o.LogFormat, "json or text (RECLAIM_LOG_FORMAT)")
	fs.TextVar(&o.LogLevel, "log-level", o.LogLevel, "debug, info, warn or error (RECLAIM_LOG_LEVEL)")
	fs.DurationVar(&o.ShutdownDelay, "shutdown-delay", o.ShutdownDelay, "keep serving this long after SIGTERM, /readyz failing (RECLAIM_SHUTDOWN_DELAY_SECONDS)")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", o.ShutdownTimeout, "then wait at most this long for requests and streams (RECLAIM_SHUTDOWN_TIMEOUT_SECONDS)")
}

// operations is how a serving process is watched and stopped: its metrics
// (on their own listener), tracing, and the server's lifecycle.
type operations struct {
	metrics  *telemetry.Metrics
	tracing  *telemetry.Tracing
	life     *server.Lifecycle
	endpoint *http.Server // GET /metrics; nil when off
	// metricsAddr is where endpoint listens; nil when off.
	metricsAddr net.Addr
	log         *slog.Logger
	// rpcConcurrency sizes the cluster clients' connection pools
	// (RECLAIM_RPC_CONCURRENCY; zero: the default).
	rpcConcurrency int
}

// newLogger is the process's logger, as configured.
func newLogger(w io.Writer, o config.Operations) (*slog.Logger, error) {
	h, err := telemetry.NewLogHandler(w, o.LogFormat, o.LogLevel)
	if err != nil {
		return nil, err
	}
	return slog.New(h), nil
}

// startOperations sets up tracing from the OpenTelemetry environment and
// the metrics, serving them on cfg.MetricsAddr ("metrics listening" is
// logged before the API's "listening").
func startOperations(ctx context.Context, o config.Operations, getenv func(string) string, console io.Writer, log *slog.Logger) (*operations, error) {
	tracing, err := telemetry.NewTracing(ctx, getenv, console, telemetry.Version())
	if err != nil {
		return nil, err
	}
	telemetry.LogErrors(log)
	ops := &operations{metrics: telemetry.NewMetrics(prometheus.NewRegistry()), tracing: tracing, life: server.NewLifecycle(), log: log}
	if tracing.Exporter != "" {
		log.Info("tracing", "exporter", tracing.Exporter)
	}
	if o.MetricsAddr == "" {
		return ops, nil
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", o.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener (RECLAIM_METRICS_ADDR): %w", err)
	}
	ops.endpoint = &http.Server{
		Handler:           withPprof(ops.metrics.Handler(log), o.Pprof),
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      30 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ops.metricsAddr = ln.Addr()
	log.Info("metrics listening", "addr", ln.Addr().String())
	go func() {
		if err := ops.endpoint.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
	return ops, nil
}

// withPprof adds Go's profiles under /debug/pprof/ to the metrics listener
// when on (RECLAIM_PPROF): an operator's port, never the API's.
func withPprof(metrics http.Handler, on bool) http.Handler {
	if !on {
		return metrics
	}
	mux := http.NewServeMux()
	mux.Handle("/", metrics)
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// storageOptions add storage's statements to the traces.
func (o *operations) storageOptions() []storage.Option {
	if o.tracing.IDsOnly { // statements' spans would record nothing
		return nil
	}
	return []storage.Option{storage.WithTracing(o.tracing.Provider)}
}

// watch adds storage's pool to the metrics.
func (o *operations) watch(store *storage.DB) {
	o.metrics.WatchDB(store.Pool())
}

// watchTracker reports the tracker's settlements, confirmation lag and
// the ledger's entries in flight.
func (o *operations) watchTracker(t *relay.Tracker, store *storage.Ledger) {
	t.ObserveConfirmations(o.metrics.ObserveConfirmationLag)
	o.metrics.WatchTracker(t.Counts, store.InFlightSummary)
}

// rpcClient is a cluster client whose calls are observed as caller's, and
// whose errors name the endpoint by its scheme and host alone. Its transport
// keeps solana-go's defaults (9 connections, 5 minute timeouts as the outer
// bound; each call has the caller's deadline).
func (o *operations) rpcClient(endpoint, caller string) *rpc.Client {
	return o.rpcClientOf("cluster", endpoint, caller)
}

// rpcClientOf is rpcClient observed as another upstream (an extra send
// path).
func (o *operations) rpcClientOf(upstream, endpoint, caller string) *rpc.Client {
	return rpc.NewWithCustomRPCClient(redacting{
		JSONRPCClient: jsonrpc.NewClientWithOpts(endpoint, &jsonrpc.RPCClientOpts{
			HTTPClient: &http.Client{Timeout: 5 * time.Minute, Transport: callerHeader{o.jsonrpc(clusterTransport(o.rpcConcurrency), upstream, caller), caller}},
		}),
	})
}

// callerHeader names the part of the service that makes a cluster call
// (api, poller, tracker, relay, readyz) in its X-Reclaim-Caller header, so
// a provider's logs, and the latency benchmark's proxy, tell the background
// reads (the build poller, the tracker) from a request's.
type callerHeader struct {
	next   http.RoundTripper
	caller string
}

func (c callerHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("X-Reclaim-Caller", c.caller)
	return c.next.RoundTrip(req)
}

// redacting keeps the endpoint's URL out of errors: solana-go puts it in
// every error ("rpc call getHealth() on <url>: ..."), errors are logged, and
// RPC providers put API keys in the URL's query or path.
type redacting struct {
	rpc.JSONRPCClient
}

func (r redacting) CallForInto(ctx context.Context, out any, method string, params []any) error {
	return redact.Error(r.JSONRPCClient.CallForInto(ctx, out, method, params))
}

func (r redacting) CallWithCallback(ctx context.Context, method string, params []any, cb func(*http.Request, *http.Response) error) error {
	return redact.Error(r.JSONRPCClient.CallWithCallback(ctx, method, params, cb))
}

func (r redacting) CallBatch(ctx context.Context, reqs jsonrpc.RPCRequests) (jsonrpc.RPCResponses, error) {
	res, err := r.JSONRPCClient.CallBatch(ctx, reqs)
	return res, redact.Error(err)
}

// httpClient is a JSON-RPC indexer's client (DAS, Photon), observed.
func (o *operations) httpClient(upstream string) *http.Client {
	return &http.Client{Transport: o.jsonrpc(nil, upstream, "api")}
}

func (o *operations) jsonrpc(next http.RoundTripper, upstream, caller string) http.RoundTripper {
	return telemetry.JSONRPCTransport(next, o.metrics, o.tracing.Provider, upstream, caller)
}

// clusterReachable is /readyz's cluster check: the cluster answered
// getHealth, whatever it said (a node behind answers an error, and is
// reachable: readiness must not take every instance out of a balancer
// because their shared cluster lags).
func clusterReachable(rc *rpc.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := rc.GetHealth(ctx)
		var answered *jsonrpc.RPCError
		if errors.As(err, &answered) {
			return nil
		}
		return err
	}
}

// stop drains the API server on SIGTERM or SIGINT: /readyz fails at once
// and the tracker stops after its pass; the server keeps serving for
// o.ShutdownDelay (for load balancers to notice), then stops accepting and
// waits up to o.ShutdownTimeout for the requests and streams in flight;
// whatever still runs then is cancelled (WebSocket streams close with
// 1001 going away, RPCs fail unavailable) and given stopGrace to return.
func (o *operations) stop(srv *http.Server, cfg config.Operations, stopTracking func(), trackerDone <-chan struct{}) {
	start := time.Now()
	o.life.Drain()
	stopTracking()
	o.log.Info("draining", "in_flight", o.life.Active(), "delay", cfg.ShutdownDelay.String(), "timeout", cfg.ShutdownTimeout.String())
	if cfg.ShutdownDelay > 0 {
		<-time.After(cfg.ShutdownDelay)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(ctx) // the listener closes; plain requests and HTTP/2 streams finish
	if err == nil {
		err = o.life.Wait(ctx) // and the hijacked ones: WebSocket streams
	}
	if err != nil {
		o.log.Warn("drain timeout reached: ending what still runs", "in_flight", o.life.Active())
		o.life.Stop()
		grace, cancelGrace := context.WithTimeout(context.Background(), stopGrace)
		_ = o.life.Wait(grace)
		cancelGrace()
		_ = srv.Close()
	}
	<-trackerDone
	if o.endpoint != nil {
		sctx, scancel := context.WithTimeout(context.Background(), time.Second)
		_ = o.endpoint.Shutdown(sctx)
		scancel()
	}
	tctx, tcancel := context.WithTimeout(context.Background(), 5*time.Second)
	if err := o.tracing.Shutdown(tctx); err != nil {
		o.log.Warn("tracing: spans not exported at exit", "err", err)
	}
	tcancel()
	o.log.Info("stopped", "ms", time.Since(start).Milliseconds())
}
