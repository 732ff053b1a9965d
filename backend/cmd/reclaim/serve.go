package main

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/assets/images"
	"github.com/reclaim-sol/reclaim/backend/engine/assets/indexers"
	"github.com/reclaim-sol/reclaim/backend/engine/cnft"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
	"github.com/reclaim-sol/reclaim/backend/pkg/seal"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/server"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/service/wallet"
	webhooks "github.com/reclaim-sol/reclaim/backend/service/webhook"
	"github.com/reclaim-sol/reclaim/backend/storage"
	"github.com/reclaim-sol/reclaim/backend/upstream/das"
	"github.com/reclaim-sol/reclaim/backend/upstream/jupiter"
	"github.com/reclaim-sol/reclaim/backend/upstream/photon"
	"github.com/reclaim-sol/reclaim/backend/upstream/receiver"
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
	fs.Float64Var(&cfg.RateLimitRPS, "rate-limit-rps", cfg.RateLimitRPS, "requests per second of a project without a quota of its own, shared by all its keys and sessions (RECLAIM_RATE_LIMIT_RPS)")
	fs.IntVar(&cfg.RateLimitBurst, "rate-limit-burst", cfg.RateLimitBurst, "that quota's burst (RECLAIM_RATE_LIMIT_BURST)")
	fs.IntVar(&cfg.RateLimitWalletShare, "rate-limit-wallet-share", cfg.RateLimitWalletShare, "percent of its project's quota one wallet may spend, 1 to 100 (RECLAIM_RATE_LIMIT_WALLET_SHARE)")
	fs.Float64Var(&cfg.RateLimitIPRPS, "rate-limit-ip-rps", cfg.RateLimitIPRPS, "requests per second per client address, valid credentials or not; 0: twice -rate-limit-rps (RECLAIM_RATE_LIMIT_IP_RPS)")
	fs.IntVar(&cfg.RateLimitIPBurst, "rate-limit-ip-burst", cfg.RateLimitIPBurst, "a client address's bucket capacity; 0: twice -rate-limit-burst (RECLAIM_RATE_LIMIT_IP_BURST)")
	fs.IntVar(&cfg.ServiceFeeBPS, "service-fee-bps", cfg.ServiceFeeBPS, "service fee in basis points (RECLAIM_SERVICE_FEE_BPS)")
	fs.StringVar(&cfg.TreasuryWallet, "treasury-wallet", cfg.TreasuryWallet, "service fee recipient (RECLAIM_TREASURY_WALLET)")
	fs.DurationVar(&cfg.TicketTTL, "ticket-ttl", cfg.TicketTTL, "submission ticket lifetime (RECLAIM_TICKET_TTL_SECONDS)")
	fs.IntVar(&cfg.GuardHeadroomBytes, "guard-headroom-bytes", cfg.GuardHeadroomBytes, "bytes kept for wallet guards (RECLAIM_GUARD_HEADROOM_BYTES)")
	fs.IntVar(&cfg.GuardHeadroomUnits, "guard-headroom-units", cfg.GuardHeadroomUnits, "compute units added to each limit for wallet guards (RECLAIM_GUARD_HEADROOM_UNITS)")
	fs.IntVar(&cfg.MaxComputeUnitPrice, "max-compute-unit-price", cfg.MaxComputeUnitPrice, "highest compute unit price (micro-lamports) a wallet may set when signing (RECLAIM_MAX_COMPUTE_UNIT_PRICE)")
	fs.IntVar(&cfg.ChainPollMS, "chain-poll-ms", cfg.ChainPollMS, "how often builds' blockhash and fees are read in the background, in milliseconds; 0 off (RECLAIM_CHAIN_POLL_MS)")
	fs.StringVar(&cfg.PriceURL, "price-url", cfg.PriceURL, "price endpoint (RECLAIM_PRICE_URL)")
	fs.StringVar(&cfg.DASRPCURL, "das-rpc-url", cfg.DASRPCURL, "DAS endpoint (DAS_RPC_URL)")
	fs.StringVar(&cfg.PhotonRPCURL, "photon-rpc-url", cfg.PhotonRPCURL, "Photon endpoint (PHOTON_RPC_URL)")
	fs.BoolVar(&cfg.AllowSignup, "allow-signup", cfg.AllowSignup, "console sign-up (RECLAIM_ALLOW_SIGNUP)")
	fs.StringVar(&cfg.Cluster, "cluster", cfg.Cluster, "explorer links: mainnet-beta, devnet, testnet, localnet (RECLAIM_CLUSTER)")
	fs.StringVar(&cfg.SignURL, "sign-url", cfg.SignURL, "the signing page MCP builds link to, e.g. http://127.0.0.1:5173/sign (RECLAIM_SIGN_URL)")
	fs.StringVar(&cfg.ExplorerURL, "explorer-url", cfg.ExplorerURL, "explorer link template with {kind} (tx, address) and {id} (RECLAIM_EXPLORER_URL)")
	fs.Func("cors-origins", "browser origins allowed for every project, comma-separated, or * (RECLAIM_CORS_ORIGINS)", func(v string) error {
		origins, err := config.CORSOrigins(v)
		cfg.CORSOrigins = origins
		return err
	})
	operationsFlags(fs, &cfg.Operations)
	// The defaults come from the environment, and usage (-help, a flag
	// mistake) prints them: a URL setting shows its scheme and host alone.
	for _, name := range []string{"database-url", "solana-rpc-url", "redis-url", "price-url", "das-rpc-url", "photon-rpc-url"} {
		f := fs.Lookup(name)
		f.DefValue = redact.URL(f.DefValue)
	}
	edgeFlags(fs, &cfg.Edge)
	storageFlags(fs, &cfg.Storage)
	landingFlags(fs, &cfg.Landing)
	return fs
}

// landingFlags binds the landing settings (config.Landing).
func landingFlags(fs *flag.FlagSet, l *config.Landing) {
	fs.Func("rebroadcast-interval", "how often a transaction in flight the cluster does not have is sent again: whole seconds (2s); 0 never (RECLAIM_REBROADCAST_INTERVAL; default "+
		l.RebroadcastInterval.String()+")", func(v string) error {
		d, err := config.ParseRebroadcastInterval(v)
		l.RebroadcastInterval = d
		return err
	})
	// The default shows each URL's scheme and host alone: they carry keys.
	shown := make([]string, len(l.SendURLs))
	for i, u := range l.SendURLs {
		shown[i] = redact.URL(u)
	}
	fs.Func("send-urls", "extra send endpoints, comma-separated: each gets every accepted transaction and rebroadcast (RECLAIM_SEND_URLS; default "+
		strconv.Quote(strings.Join(shown, ","))+")", func(v string) error {
		urls, err := config.SendURLs(v)
		l.SendURLs = urls
		return err
	})
}

// edgeFlags binds the edge settings (config.Edge).
func edgeFlags(fs *flag.FlagSet, e *config.Edge) {
	fs.Func("trusted-proxies", "balancers and proxies whose X-Forwarded-For names the client: addresses and CIDR networks, comma-separated (RECLAIM_TRUSTED_PROXIES)", func(v string) error {
		p, err := clientip.ParsePrefixes(v)
		e.TrustedProxies = p
		return err
	})
	fs.BoolFunc("secure-cookies", "Secure console cookies and HSTS: true or false; default on unless -addr is loopback (RECLAIM_SECURE_COOKIES)", func(v string) error {
		b, err := strconv.ParseBool(v)
		e.SecureCookies = &b
		return err
	})
}

// serve runs the API server until ctx ends, then stops it gracefully.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return serveListening(ctx, args, getenv, stdout, stderr, nil)
}

// serveListening is serve, calling listening (when set) once the server
// listens, with the API's address and the metrics listener's (nil: off).
func serveListening(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, listening func(api, metrics net.Addr)) error {
	cfg, err := serveConfig(args, getenv)
	if err != nil {
		return err
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
	env, err := open(ctx, cfg, log, ops.storageOptions()...)
	if err != nil {
		return err
	}
	defer env.db.Close()
	ops.watch(env.db)

	limits, err := newLimiters(cfg, log, ops.metrics)
	if err != nil {
		return err
	}
	defer func() { _ = limits.close() }()
	console, err := newConsole(cfg, env, log)
	if err != nil {
		return err
	}
	wallet, tracker, poller, err := newWallet(cfg, env, log, ops)
	if err != nil {
		return err
	}
	ops.watchTracker(tracker, env.rooms.ledger)
	trackCtx, stopTracking := context.WithCancel(context.WithoutCancel(ctx))
	defer stopTracking()
	trackerDone := make(chan struct{})
	go func() {
		defer close(trackerDone)
		tracker.Run(trackCtx)
	}()
	dispatcherDone := startDispatcher(trackCtx, cfg, env, log)
	defer func() { stopTracking(); <-dispatcherDone }()
	refusalsDone := flushRefusals(trackCtx, env, cfg, log)
	defer func() { stopTracking(); <-refusalsDone }()
	if poller != nil {
		// The builds' blockhash and fees, read in the background until
		// the server stops (tracking stops then too).
		pollerDone := make(chan struct{})
		go func() {
			defer close(pollerDone)
			poller.Run(trackCtx)
		}()
		defer func() { stopTracking(); <-pollerDone }()
	}
	handler, err := newAPI(cfg, env, apiParts{console: console, wallet: wallet, limits: limits}, log, ops)
	if err != nil {
		return err
	}
	srv := newHTTPServer(handler, ops, log)
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.Addr)
	if err != nil {
		return err
	}
	log.Info("listening", append([]any{"addr", ln.Addr().String()}, endpoints(cfg)...)...)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if listening != nil {
		listening(ln.Addr(), ops.metricsAddr)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	ops.stop(srv, cfg.Operations, stopTracking, trackerDone)
	return nil
}

// serveConfig reads the environment, then the flags over it, and checks the
// settings whose flags take any number.
func serveConfig(args []string, getenv func(string) string) (config.Config, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return cfg, err
	}
	if err := serveFlags(&cfg).Parse(args); err != nil {
		return cfg, usageError{err.Error()}
	}
	if err := cfg.CheckRates(); err != nil {
		return cfg, usageError{err.Error()}
	}
	if cfg.GuardHeadroomUnits < 0 || cfg.GuardHeadroomUnits > 200_000 {
		return cfg, usageError{fmt.Sprintf("-guard-headroom-units %d: want a whole number from 0 to 200000", cfg.GuardHeadroomUnits)}
	}
	if cfg.MaxComputeUnitPrice < 0 || cfg.MaxComputeUnitPrice > config.MaxComputeUnitPrice {
		return cfg, usageError{fmt.Sprintf("-max-compute-unit-price %d: want a whole number from 0 to %d", cfg.MaxComputeUnitPrice, config.MaxComputeUnitPrice)}
	}
	if cfg.ChainPollMS < 0 || cfg.ChainPollMS > config.MaxChainPollMS {
		return cfg, usageError{fmt.Sprintf("-chain-poll-ms %d: want a whole number from 0 to %d", cfg.ChainPollMS, config.MaxChainPollMS)}
	}
	return cfg, nil
}

// statsTTL is how long a project's stats are answered from memory: a
// confirmation on this instance shows at once, one on another instance
// within it (README, "Stats").
const statsTTL = time.Second

// apiParts are what serve has built for the API server beside env.
type apiParts struct {
	console http.Handler
	wallet  *wallet.Service
	limits  limiters
}

// newAPI mounts the API server (REST, Connect, gRPC, the WebSocket, the
// console) over what serve has opened.
func newAPI(cfg config.Config, env *env, parts apiParts, log *slog.Logger, ops *operations) (http.Handler, error) {
	return server.New(server.Deps{
		ClientIP: clientip.New(cfg.TrustedProxies),
		Admin:    parts.console,
		CORS:     server.CORS{Default: cfg.CORSOrigins, Origins: env.projects, Refresh: cfg.SessionCheckInterval},
		Auth:     auth.NewAuthenticator(env.rooms.projects, env.hasher, env.keys, cfg.SessionCheckInterval, time.Now),
		Issuer:   auth.NewIssuer(env.keys, time.Now),
		Limiter:  parts.limits.keys,
		Quotas: server.Quotas{
			Default:     ratelimit.Limits{RPS: cfg.RateLimitRPS, Burst: cfg.RateLimitBurst},
			WalletShare: cfg.RateLimitWalletShare, Source: env.projects, Refresh: cfg.SessionCheckInterval,
			Refusals: env.refusals,
		},
		IPLimiter:   parts.limits.ips,
		IPLimits:    parts.limits.ipLimits,
		Ledger:      ledger.NewService(env.rooms.rankings),
		Wallet:      parts.wallet,
		Ping:        env.db.Ready,
		Idempotency: idempotency.NewService(env.rooms.idempotency, log, time.Now),
		RPCTimeout:  cfg.RPCTimeout,
		Log:         log,
		DBTimeout:   cfg.DBTimeout,
		Cluster:     clusterReachable(ops.rpcClient(cfg.SolanaRPCURL, "readyz")),
		Lifecycle:   ops.life,
		Metrics:     ops.metrics,
		Tracing:     ops.tracing,
		SignURL:     cfg.SignURL,

		MCPResourceURL:          cfg.MCPResourceURL,
		MCPAuthorizationServers: cfg.MCPAuthorizationServers,
	})
}

// startDispatcher runs the webhook dispatcher until ctx ends: a status
// change written with its outbox rows nudges it, and it posts from its own
// goroutines, so a receiver's slowness never holds the API or the tracker.
// The channel closes once it has stopped.
func startDispatcher(ctx context.Context, cfg config.Config, env *env, log *slog.Logger) <-chan struct{} {
	dispatcher := webhooks.NewDispatcher(env.rooms.webhooks, receiver.New(receiver.Options{AllowPrivate: cfg.WebhookAllowInsecure}), env.webhooks, env.nudge, log, time.Now)
	done := make(chan struct{})
	go func() {
		defer close(done)
		dispatcher.Run(ctx)
	}()
	return done
}

// newHTTPServer serves handler over HTTP/1.1 and unencrypted HTTP/2 (gRPC
// behind a balancer), with timeouts that drop slow clients.
func newHTTPServer(handler http.Handler, ops *operations, log *slog.Logger) *http.Server {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{
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
}

// endpoints are the URL settings as the start log names them: by their
// scheme and host alone (redact.URL), since providers put API keys in a
// URL's path or query, and database and Redis URLs carry passwords.
func endpoints(cfg config.Config) []any {
	var out []any
	for _, e := range []struct{ key, url string }{
		{"solana_rpc", cfg.SolanaRPCURL}, {"das_rpc", cfg.DASRPCURL}, {"photon_rpc", cfg.PhotonRPCURL},
		{"price", cfg.PriceURL}, {"redis", cfg.RedisURL}, {"database", cfg.DatabaseURL},
	} {
		if e.url != "" {
			out = append(out, e.key, redact.URL(e.url))
		}
	}
	if len(cfg.SendURLs) > 0 {
		shown := make([]string, len(cfg.SendURLs))
		for i, u := range cfg.SendURLs {
			shown[i] = redact.URL(u)
		}
		out = append(out, "send_paths", shown)
	}
	return out
}

// newWallet wires the reclaim core: discovery, building, tickets, relay and
// the confirmation tracker, over one JSON-RPC client.
func newWallet(cfg config.Config, e *env, log *slog.Logger, ops *operations) (*wallet.Service, *relay.Tracker, *txbuild.Poller, error) {
	rc := ops.rpcClient(cfg.SolanaRPCURL, "api")
	var treasury *solana.PublicKey
	var feeAccounts []solana.PublicKey // every build with a service fee writes the treasury
	if cfg.TreasuryWallet != "" {
		pk, err := solana.PublicKeyFromBase58(cfg.TreasuryWallet)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("RECLAIM_TREASURY_WALLET: %w", err)
		}
		treasury, feeAccounts = &pk, []solana.PublicKey{pk}
	}
	var prices assets.PriceSource
	if cfg.PriceURL != "" {
		prices = jupiter.New(cfg.PriceURL, nil)
	}
	sources := []assets.Source{assets.NewCoreSource(rc)}
	buildOpts := []txbuild.Option{
		//nolint:gosec // G115: serveConfig bounds both (0 to 200,000 units, 0 to config.MaxComputeUnitPrice)
		txbuild.WithGuardHeadroomUnits(uint32(cfg.GuardHeadroomUnits)), txbuild.WithMaxComputeUnitPrice(uint64(cfg.MaxComputeUnitPrice)),
	}
	var poller *txbuild.Poller
	if cfg.ChainPollMS > 0 {
		poller = txbuild.NewPoller(ops.rpcClient(cfg.SolanaRPCURL, "poller"), time.Duration(cfg.ChainPollMS)*time.Millisecond, feeAccounts...)
		buildOpts = append(buildOpts, txbuild.WithPoller(poller))
	}
	if cfg.DASRPCURL != "" {
		dasClient := das.New(cfg.DASRPCURL, ops.httpClient("das"), das.Options{})
		sources = append(sources, indexers.NewDASSource(dasClient))
		// cNFTs listed from DAS burn with Bubblegum; without DAS a cnft
		// selection is a 400.
		buildOpts = append(buildOpts, txbuild.WithCNFTPlanner(cnft.NewPlanner(dasClient, rc)))
	}
	if cfg.PhotonRPCURL != "" {
		sources = append(sources, indexers.NewPhotonSource(photon.New(cfg.PhotonRPCURL, ops.httpClient("photon"), photon.Options{})))
	}
	discoverer := assets.NewDiscoverer(rc, prices, sources...).WithImages(images.New(images.Options{}))
	tickets := ticket.NewIssuer(e.keys)
	paths := sendPaths(cfg.SendURLs, log, ops)
	rel := relay.New(rc, e.rooms.ledger, tickets, time.Now)
	rel.Paths = paths
	w := wallet.New(wallet.Deps{
		Discoverer:    discoverer,
		Builder:       txbuild.NewBuilder(rc, buildOpts...),
		Tickets:       tickets,
		Relay:         rel,
		Projects:      e.rooms.projects,
		ServiceFeeBPS: cfg.ServiceFeeBPS,
		Treasury:      treasury,
		HeadroomBytes: cfg.GuardHeadroomBytes,
		TicketTTL:     cfg.TicketTTL,
		RPCTimeout:    cfg.RPCTimeout,
		RPCInFlight:   cfg.RPCConcurrency,
		DBTimeout:     cfg.DBTimeout,
		Now:           time.Now,
	})
	tracker := relay.NewTracker(ops.rpcClient(cfg.SolanaRPCURL, "tracker"), e.rooms.ledger, log, time.Now)
	tracker.Retention = cfg.AttemptsRetention
	tracker.RebroadcastInterval = cfg.RebroadcastInterval
	tracker.Paths = paths
	tracker.Changed = rel.Changed // wakes this instance's status requests that wait
	ops.metrics.WatchSendPaths(paths.Failures)
	// Idempotency keys answer retries for a day; webhook deliveries done
	// stay in the console as long as the submission log's lines.
	tracker.Expiring = []relay.Expiring{
		{Name: "idempotency keys", Keep: idempotency.TTL, Prune: e.rooms.idempotency.PruneKeys},
		{Name: "webhook deliveries", Keep: cmp.Or(cfg.AttemptsRetention, relay.DefaultRetention), Prune: e.rooms.webhooks.PruneWebhookDeliveries},
	}
	return w, tracker, poller, nil
}

// sendPaths are the extra send paths of RECLAIM_SEND_URLS, each named in
// logs by its scheme and host; their calls are observed as upstream
// send_path.
func sendPaths(urls []string, log *slog.Logger, ops *operations) *relay.Paths {
	paths := make([]relay.Path, len(urls))
	for i, u := range urls {
		paths[i] = relay.Path{Name: redact.URL(u), RPC: ops.rpcClientOf("send_path", u, "relay")}
	}
	return relay.NewPaths(log, paths...)
}

// env is what every command opens: storage, the secrets kept beside it, and
// the console's domain services over them, which the management commands
// and the console share.
type env struct {
	db       *storage.DB
	rooms    rooms
	nudge    webhooks.Nudge
	hasher   *auth.Hasher
	keys     *signing.Keyring
	projects *project.Service
	owners   *owner.Service
	webhooks *webhooks.Service
	// formKey signs the console's sign-in form tokens: derived from the
	// pepper, which every instance sharing a database shares.
	formKey []byte
	// refusals counts the rate limiter's refusals per project in memory;
	// serve adds them to the database once a minute (flushRefusals).
	refusals *project.RefusalCounter
}

// open opens storage (migrated, or checked with RECLAIM_SKIP_MIGRATIONS) and the secrets, and builds the domain
// services; log receives what they report after the fact, such as an audit
// entry not written (nil for the management commands, which write none).
func open(ctx context.Context, cfg config.Config, log *slog.Logger, opts ...storage.Option) (*env, error) {
	store, err := storage.Open(ctx, cfg.DatabaseURL, cfg.DataDir, opts...)
	if err != nil {
		return nil, err
	}
	nudge := webhooks.NewNudge()
	r := openRooms(store, cfg.Storage, nudge.Ring, log)
	if cfg.SkipMigrations {
		// One job migrates per release (the Helm chart's hook): refuse a
		// schema older than this version rather than serve on it.
		if err := store.CheckSchema(ctx); err != nil {
			store.Close()
			return nil, err
		}
	} else if err := store.Migrate(ctx); err != nil {
		store.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	pepper, err := loadPepper(cfg)
	if err != nil {
		store.Close()
		return nil, err
	}
	keys, err := signing.LoadKeyring(keysDir(cfg), cfg.Keys())
	if err != nil {
		store.Close()
		return nil, err
	}
	hasher := auth.NewHasher(pepper)
	projects := project.NewService(r.projects, hasher, time.Now)
	// The webhooks' signing secrets are sealed under a key derived from the
	// pepper, which every instance sharing the database shares.
	box, err := seal.New(deriveKey(pepper, "reclaim webhook secrets"))
	if err != nil {
		store.Close()
		return nil, err
	}
	hooks := webhooks.NewService(r.webhooks, r.webhooks, webhooks.Options{Box: box, Insecure: cfg.WebhookAllowInsecure, Now: time.Now})
	owners := owner.NewService(r.console, projects, owner.Options{Now: time.Now, Log: log, Webhooks: hooks})
	return &env{db: store, rooms: r, nudge: nudge, hasher: hasher, keys: keys, projects: projects, owners: owners, webhooks: hooks,
		formKey: deriveKey(pepper, "reclaim console form tokens"), refusals: project.NewRefusalCounter(r.projects, time.Now)}, nil
}

// deriveKey is the key for purpose under secret: HMAC-SHA256(secret,
// purpose), so that one secret serves purposes that never see each other's
// keys.
func deriveKey(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}
