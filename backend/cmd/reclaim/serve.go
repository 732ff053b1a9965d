package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/redis/go-redis/v9"

	"github.com/reclaim-sol/reclaim/backend/assets"
	"github.com/reclaim-sol/reclaim/backend/assets/images"
	"github.com/reclaim-sol/reclaim/backend/assets/jupiter"
	"github.com/reclaim-sol/reclaim/backend/auth"
	"github.com/reclaim-sol/reclaim/backend/bubblegum"
	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/das"
	"github.com/reclaim-sol/reclaim/backend/ledger"
	"github.com/reclaim-sol/reclaim/backend/owner"
	"github.com/reclaim-sol/reclaim/backend/photon"
	"github.com/reclaim-sol/reclaim/backend/project"
	"github.com/reclaim-sol/reclaim/backend/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/reclaim"
	"github.com/reclaim-sol/reclaim/backend/relay"
	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/signing"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/ticket"
	"github.com/reclaim-sol/reclaim/backend/txbuild"
)

// serveFlags binds every setting to a flag whose default is the environment's.
func serveFlags(cfg *config.Config) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address (RECLAIM_ADDR)")
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "SQLite file and signing keys (RECLAIM_DATA_DIR)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", cfg.DatabaseURL, "postgres:// URL (DATABASE_URL)")
	fs.StringVar(&cfg.SolanaRPCURL, "solana-rpc-url", cfg.SolanaRPCURL, "cluster JSON-RPC (SOLANA_RPC_URL)")
	fs.IntVar(&cfg.RPCConcurrency, "rpc-concurrency", cfg.RPCConcurrency, "cluster calls one request has in flight at most (RECLAIM_RPC_CONCURRENCY)")
	fs.StringVar(&cfg.RedisURL, "redis-url", cfg.RedisURL, "Redis for rate limits (REDIS_URL)")
	fs.Float64Var(&cfg.RateLimitRPS, "rate-limit-rps", cfg.RateLimitRPS, "requests per second per bucket (RECLAIM_RATE_LIMIT_RPS)")
	fs.IntVar(&cfg.RateLimitBurst, "rate-limit-burst", cfg.RateLimitBurst, "bucket capacity (RECLAIM_RATE_LIMIT_BURST)")
	fs.IntVar(&cfg.ServiceFeeBPS, "service-fee-bps", cfg.ServiceFeeBPS, "service fee in basis points (RECLAIM_SERVICE_FEE_BPS)")
	fs.StringVar(&cfg.TreasuryWallet, "treasury-wallet", cfg.TreasuryWallet, "service fee recipient (RECLAIM_TREASURY_WALLET)")
	fs.DurationVar(&cfg.TicketTTL, "ticket-ttl", cfg.TicketTTL, "submission ticket lifetime (RECLAIM_TICKET_TTL_SECONDS)")
	fs.IntVar(&cfg.GuardHeadroomBytes, "guard-headroom-bytes", cfg.GuardHeadroomBytes, "bytes kept for wallet guards (RECLAIM_GUARD_HEADROOM_BYTES)")
	fs.IntVar(&cfg.GuardHeadroomUnits, "guard-headroom-units", cfg.GuardHeadroomUnits, "compute units added to each limit for wallet guards (RECLAIM_GUARD_HEADROOM_UNITS)")
	fs.StringVar(&cfg.PriceURL, "price-url", cfg.PriceURL, "price endpoint (RECLAIM_PRICE_URL)")
	fs.StringVar(&cfg.DASRPCURL, "das-rpc-url", cfg.DASRPCURL, "DAS endpoint (DAS_RPC_URL)")
	fs.StringVar(&cfg.PhotonRPCURL, "photon-rpc-url", cfg.PhotonRPCURL, "Photon endpoint (PHOTON_RPC_URL)")
	fs.BoolVar(&cfg.AllowSignup, "allow-signup", cfg.AllowSignup, "console sign-up (RECLAIM_ALLOW_SIGNUP)")
	fs.StringVar(&cfg.Cluster, "cluster", cfg.Cluster, "explorer links: mainnet-beta, devnet, testnet, localnet (RECLAIM_CLUSTER)")
	fs.Func("cors-origins", "browser origins allowed for every project, comma-separated, or * (RECLAIM_CORS_ORIGINS)", func(v string) error {
		origins, err := config.CORSOrigins(v)
		cfg.CORSOrigins = origins
		return err
	})
	operationsFlags(fs, &cfg.Operations)
	storageFlags(fs, &cfg.Storage)
	return fs
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	if err := serveFlags(&cfg).Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if cfg.GuardHeadroomUnits < 0 || cfg.GuardHeadroomUnits > 200_000 {
		return usageError{fmt.Sprintf("-guard-headroom-units %d: want a whole number from 0 to 200000", cfg.GuardHeadroomUnits)}
	}
	log, err := newLogger(stderr, cfg.Operations)
	if err != nil {
		return usageError{err.Error()}
	}
	ops, err := startOperations(ctx, cfg.Operations, getenv, stdout, log)
	if err != nil {
		return err
	}
	ops.rpcConcurrency = cfg.RPCConcurrency
	env, err := open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer env.store.Close()
	ops.watch(env.store)

	var limiter ratelimit.Limiter = ratelimit.NewMemory(cfg.RateLimitRPS, cfg.RateLimitBurst)
	if cfg.RedisURL != "" {
		opt, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("REDIS_URL: %w", err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = time.Second, 500*time.Millisecond, 500*time.Millisecond
		rc := redis.NewClient(opt)
		defer rc.Close()
		limiter = ratelimit.NewRedis(rc, cfg.RateLimitRPS, cfg.RateLimitBurst)
	}
	limiter = ops.metrics.Limiter(limiter)
	console, err := newConsole(cfg, env, log)
	if err != nil {
		return err
	}
	wallet, tracker, err := newWallet(cfg, env, log, ops)
	if err != nil {
		return err
	}
	ops.watchTracker(tracker, env.store)
	trackCtx, stopTracking := context.WithCancel(context.WithoutCancel(ctx))
	defer stopTracking()
	trackerDone := make(chan struct{})
	go func() {
		defer close(trackerDone)
		tracker.Run(trackCtx)
	}()
	handler, err := server.New(server.Deps{
		Admin:      console,
		CORS:       server.CORS{Default: cfg.CORSOrigins, Origins: env.projects, Refresh: cfg.SessionCheckInterval},
		Auth:       auth.NewAuthenticator(env.store, env.hasher, env.keys, cfg.SessionCheckInterval, time.Now),
		Issuer:     auth.NewIssuer(env.keys, time.Now),
		Limiter:    limiter,
		Ledger:     ledger.NewService(env.store),
		Wallet:     wallet,
		Ping:       env.store.Ready,
		Log:        log,
		DBTimeout:  cfg.DBTimeout,
		RPCTimeout: cfg.RPCTimeout,
		Cluster:    clusterReachable(ops.rpcClient(cfg.SolanaRPCURL, "readyz")),
		Lifecycle:  ops.life,
		Metrics:    ops.metrics,
		Tracing:    ops.tracing,
	})
	if err != nil {
		return err
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{
		Handler:           handler,
		BaseContext:       ops.life.BaseContext,
		Protocols:         &protocols,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.Addr)
	if err != nil {
		return err
	}
	log.Info("listening", "addr", ln.Addr().String(), "solana_rpc", cfg.SolanaRPCURL)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	ops.stop(srv, cfg.Operations, stopTracking, trackerDone)
	return nil
}

// newWallet wires the reclaim core: discovery, building, tickets, relay and
// the confirmation tracker, over one JSON-RPC client.
func newWallet(cfg config.Config, e *env, log *slog.Logger, ops *operations) (*reclaim.Service, *relay.Tracker, error) {
	rc := ops.rpcClient(cfg.SolanaRPCURL, "api")
	var treasury *solana.PublicKey
	if cfg.TreasuryWallet != "" {
		pk, err := solana.PublicKeyFromBase58(cfg.TreasuryWallet)
		if err != nil {
			return nil, nil, fmt.Errorf("RECLAIM_TREASURY_WALLET: %w", err)
		}
		treasury = &pk
	}
	var prices assets.PriceSource
	if cfg.PriceURL != "" {
		prices = jupiter.New(cfg.PriceURL, nil)
	}
	sources := []assets.Source{assets.NewCoreSource(rc)}
	buildOpts := []txbuild.Option{txbuild.WithGuardHeadroomUnits(uint32(cfg.GuardHeadroomUnits))}
	if cfg.DASRPCURL != "" {
		dasClient := das.New(cfg.DASRPCURL, ops.httpClient("das"), das.Options{})
		sources = append(sources, das.NewSource(dasClient))
		// cNFTs listed from DAS burn with Bubblegum; without DAS a cnft
		// selection is a 400.
		buildOpts = append(buildOpts, txbuild.WithCNFTPlanner(bubblegum.NewPlanner(dasClient, rc)))
	}
	if cfg.PhotonRPCURL != "" {
		sources = append(sources, photon.NewSource(photon.New(cfg.PhotonRPCURL, ops.httpClient("photon"), photon.Options{})))
	}
	discoverer := assets.NewDiscoverer(rc, prices, sources...).WithImages(images.New(images.Options{}))
	tickets := ticket.NewIssuer(e.keys)
	w := reclaim.New(reclaim.Deps{
		Discoverer:    discoverer,
		Builder:       txbuild.NewBuilder(rc, buildOpts...),
		Tickets:       tickets,
		Relay:         relay.New(rc, e.store, tickets, time.Now),
		Projects:      e.store,
		ServiceFeeBPS: cfg.ServiceFeeBPS,
		Treasury:      treasury,
		HeadroomBytes: cfg.GuardHeadroomBytes,
		TicketTTL:     cfg.TicketTTL,
		RPCTimeout:    cfg.RPCTimeout,
		RPCInFlight:   cfg.RPCConcurrency,
		DBTimeout:     cfg.DBTimeout,
		Now:           time.Now,
	})
	tracker := relay.NewTracker(ops.rpcClient(cfg.SolanaRPCURL, "tracker"), e.store, log, time.Now)
	tracker.Retention = cfg.AttemptsRetention
	return w, tracker, nil
}

// env is what every command opens: storage, the secrets kept beside it, and
// the console's domain services over them, which the management commands
// and the console share.
type env struct {
	store    *storage.Store
	hasher   *auth.Hasher
	keys     *signing.Keyring
	projects *project.Service
	owners   *owner.Service
}

// open opens storage (migrated) and the secrets, and builds the domain
// services; log receives what they report after the fact, such as an audit
// entry not written (nil for the management commands, which write none).
func open(ctx context.Context, cfg config.Config, log *slog.Logger) (*env, error) {
	store, err := storage.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	applyStorage(store, cfg.Storage, log)
	if err := store.Migrate(ctx); err != nil {
		store.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	pepper, err := loadPepper(cfg)
	if err != nil {
		store.Close()
		return nil, err
	}
	keys, err := signing.LoadKeyring(keysDir(cfg), cfg.SigningKey)
	if err != nil {
		store.Close()
		return nil, err
	}
	hasher := auth.NewHasher(pepper)
	projects := project.NewService(store, hasher, time.Now)
	owners := owner.NewService(store, projects, owner.Options{Now: time.Now, Log: log})
	return &env{store: store, hasher: hasher, keys: keys, projects: projects, owners: owners}, nil
}
