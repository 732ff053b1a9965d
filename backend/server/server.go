// Package server is the HTTP face of the service: one handler that serves
// every operation as Connect, gRPC, gRPC-Web and REST (through vanguard) from
// the same Connect handlers, plus the wallet stream's WebSocket, the probes
// (/healthz, /readyz) and the gRPC health and reflection services. Its
// handlers adapt requests to the services; the wiring here puts them behind
// the front door (package gateway: routing, checks, the codec, credentials,
// idempotency, CORS, the error mapping, observing) and mounts the MCP server
// (package mcp). Neither imports this package.
package server

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/vanguard"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	"github.com/reclaim-sol/reclaim/backend/server/mcp"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/wallet"
	"github.com/reclaim-sol/reclaim/backend/telemetry"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// compressMinBytes is the smallest answer compressed for a client that
// accepts gzip: below it, compressing costs more (a gzip writer's reset is
// most of a small request's work) than the bytes it saves.
const compressMinBytes = 1 << 10

// The settings of the front door (package gateway) Deps carries, by the
// names the wiring and the tests use.
type (
	// Quotas are the credentials' buckets' sizes (gateway.Quotas).
	Quotas = gateway.Quotas
	// IdempotencyKeys stores Idempotency-Key answers (gateway.IdempotencyKeys).
	IdempotencyKeys = gateway.IdempotencyKeys
	// CORS is the browsers' cross-origin policy (gateway.CORS).
	CORS = gateway.CORS
	// Lifecycle drains and stops the server (gateway.Lifecycle).
	Lifecycle = gateway.Lifecycle
)

// NewLifecycle returns the lifecycle of a server that is serving.
func NewLifecycle() *Lifecycle { return gateway.NewLifecycle() }

// Idempotent reports whether an operation (a Connect procedure) honours
// Idempotency-Key (gateway.Idempotent).
func Idempotent(procedure string) bool { return gateway.Idempotent(procedure) }

// Deps are the server's dependencies.
type Deps struct {
	Auth   *auth.Authenticator
	Issuer *auth.Issuer
	// Limiter holds the credentials' buckets: one per project, shared by
	// all its keys and sessions, and one per wallet of a project, its share
	// of the project's, sized by Quotas (nil: none). IPLimiter holds the
	// client addresses', which every request spends from before its
	// credentials are checked (nil: none); IPLimits is its size, which the
	// RateLimit-Policy header tells.
	Limiter   ratelimit.Limiter
	Quotas    Quotas
	IPLimiter ratelimit.Limiter
	IPLimits  ratelimit.Limits
	// ClientIP tells a request's client, whose address is its per-address
	// bucket (nil: the TCP peer).
	ClientIP *clientip.Resolver
	Ledger   *ledger.Service
	// Wallet is the wallet service behind WalletService and the stream.
	Wallet *wallet.Service
	// Ping checks the database for /readyz: nil when it answers and can
	// write, an error matching ledger.ErrStorageFull or ledger.ErrReadOnly
	// when it cannot write (storage.DB.Ready).
	Ping func(ctx context.Context) error
	// Idempotency runs the writes that carry an Idempotency-Key
	// (idempotency.go; nil: the header is ignored).
	Idempotency IdempotencyKeys
	// Admin is the console, served under /admin/ (nil: none).
	Admin http.Handler
	// CORS is the browsers' cross-origin policy (zero: no origin allowed).
	CORS CORS
	Log  *slog.Logger
	// DBTimeout bounds the database work of stats and leaderboards, and
	// /readyz's database check.
	DBTimeout time.Duration
	// RPCTimeout bounds /readyz's cluster check: what a request waits for
	// one cluster call (wallet.Deps.RPCTimeout).
	RPCTimeout time.Duration

	// Operations (observe.go, lifecycle.go, probes.go). Cluster checks the
	// cluster for /readyz (nil: not checked); Lifecycle drains and stops
	// the server (nil: one that never does); Metrics and Tracing observe
	// requests (nil: not recorded).
	Cluster   func(ctx context.Context) error
	Lifecycle *Lifecycle
	Metrics   *telemetry.Metrics
	Tracing   *telemetry.Tracing

	// SignURL is the signing page an MCP build's answer links to, with the
	// build's id (RECLAIM_SIGN_URL; "": no link). Now is the clock of the
	// builds kept for it (nil: time.Now).
	SignURL string
	// MCPResourceURL is the public URL of /mcp its protected-resource
	// metadata names ("": the URL each request reached), and
	// MCPAuthorizationServers the OAuth issuers it lists (none: API keys
	// and session tokens only).
	MCPResourceURL          string
	MCPAuthorizationServers []string
	Now                     func() time.Time
	// MCPStashBytes bounds the builds kept for the signing page, per
	// instance (0: 64 MiB); one project holds a quarter at most.
	MCPStashBytes int
}

// New returns the service's root handler.
func New(d Deps) (http.Handler, error) {
	if d.Lifecycle == nil {
		d.Lifecycle = gateway.NewLifecycle()
	}
	obs := gateway.NewObserver(d.Log, d.Metrics, d.Tracing, d.Lifecycle)
	plans := gateway.NewJSONPlans()
	codec := gateway.NewJSONCodec(nil, plans)
	if d.Limiter != nil {
		if err := ratelimit.Check(d.Quotas.Default.RPS, d.Quotas.Default.Burst); err != nil {
			return nil, fmt.Errorf("server: the default project quota: %w", err)
		}
		if d.Quotas.WalletShare < 0 || d.Quotas.WalletShare > 100 {
			return nil, fmt.Errorf("server: the wallet share must be from 0 to 100 percent, got %d", d.Quotas.WalletShare)
		}
	}
	g := gateway.NewAuthInterceptor(gateway.GateDeps{Auth: d.Auth, PerIP: d.IPLimiter, IPLimits: d.IPLimits, Limiter: d.Limiter,
		Quotas: d.Quotas, DBTimeout: d.DBTimeout, Clients: d.ClientIP, Log: d.Log})
	origins := gateway.NewOriginPolicy(d.CORS, gateway.CORSPaths{
		API:    []string{mcp.Path},
		Public: []string{openAPIPath, mcp.ProtectedResourcePath, mcp.ProtectedResourcePath + mcp.Path},
	}, d.Auth, d.DBTimeout, d.Log)
	// The handover first: the other interceptors see the whole request.
	interceptors := append([]connect.Interceptor{gateway.Handover{}}, obs.Interceptors()...)
	opts := connect.WithHandlerOptions(
		connect.WithInterceptors(append(interceptors, g, gateway.NewIdempotencyInterceptor(d.Idempotency, d.Log))...),
		connect.WithCodec(codec.Connect()),
		connect.WithReadMaxBytes(gateway.MaxRequestBytes),
		connect.WithCompressMinBytes(compressMinBytes),
		connect.WithCompression("gzip", newGzipReader, newFastGzipWriter),
	)
	mux := http.NewServeMux()
	var services []*vanguard.Service
	handlers := map[string]http.Handler{}
	add := func(path string, h http.Handler) {
		// Connect, gRPC and gRPC-Web reach the handler directly; vanguard
		// only transcodes REST.
		mux.Handle(path, h)
		handlers[path] = h
		services = append(services, vanguard.NewService(path, h))
	}
	add(reclaimv1connect.NewSessionServiceHandler(NewSessionServer(d.Issuer), opts))
	wallet := newWalletServer(d.Wallet)
	add(reclaimv1connect.NewWalletServiceHandler(wallet, opts))
	add(reclaimv1connect.NewProjectServiceHandler(NewProjectServer(d.Ledger, d.DBTimeout), opts))

	transcoder, err := vanguard.NewTranscoder(services,
		vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec { return gateway.NewJSONCodec(res, plans) }),
		vanguard.WithDefaultServiceOptions(vanguard.WithMaxMessageBufferBytes(gateway.MaxRequestBytes)),
		vanguard.WithUnknownHandler(http.HandlerFunc(gateway.NotFound)),
	)
	if err != nil {
		return nil, err
	}
	addDocs(mux) // GET /v1/openapi.json and /docs
	if err := addAgents(mux, d, g, wallet, codec, origins); err != nil {
		return nil, err
	}
	if d.Admin != nil {
		mux.Handle("/admin/", d.Admin)
		mux.Handle("GET /admin", http.RedirectHandler("/admin/", http.StatusFound))
	}
	// The wallet stream's WebSocket, before the REST routes (vanguard cannot
	// upgrade); it checks credentials through the auth interceptor.
	mux.Handle(streamPath, newWalletSocket(g, wallet, codec, origins))
	mux.Handle("/v1/", transcoder)
	mux.HandleFunc("/", gateway.NotFound)
	descriptors := gateway.APIServices
	ops := mountOps(mux, newReadiness(d), descriptors, connect.WithInterceptors(obs.Interceptors()...))
	obs.Known(descriptors, ops)
	door := &gateway.FrontDoor{
		Check:    gateway.NewRequestCheck(descriptors, connect.NewErrorWriter(opts), streamPath),
		Auth:     g,
		Rest:     gateway.RestErrors(transcoder),
		Mux:      gateway.RestErrors(mux),
		Services: handlers,
		Ops:      map[string]bool{},
	}
	for _, p := range ops {
		door.Ops[p] = true
	}
	return obs.Wrap(origins.Handler(door)), nil
}

// streamPath is the wallet stream's WebSocket.
const streamPath = "/v1/wallet/{address}/stream"

// Answers are compressed with gzip at its fastest level when the client
// accepts it: a build's answer is mostly base64 transactions and signed
// tickets, which the default level shrinks little more, at about three
// times the processor time (BenchmarkBuildREST500's profile).
func newFastGzipWriter() connect.Compressor {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // a valid level: no error
	return w
}

func newGzipReader() connect.Decompressor { return &gzip.Reader{} }
