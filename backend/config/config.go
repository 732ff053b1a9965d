// Package config reads the service's configuration from the environment.
// Every setting is also a flag of `reclaim serve` (see backend/cmd/reclaim).
package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
)

// Config is the whole configuration of one reclaim process.
type Config struct {
	// Addr is the listen address of the HTTP server (h2c).
	Addr string
	// DataDir holds the SQLite database and the generated signing keys.
	DataDir string
	// DatabaseURL switches storage to Postgres when it is a postgres:// URL.
	DatabaseURL string
	// SolanaRPCURL is the cluster's JSON-RPC endpoint.
	SolanaRPCURL string
	// RPCTimeout bounds every call to the cluster.
	RPCTimeout time.Duration
	// RPCConcurrency bounds the cluster calls one request (a listing, a
	// stream, a build) has in flight at once; its independent calls go out
	// together up to this many.
	RPCConcurrency int
	// RedisURL, when set, keeps rate-limit buckets in Redis.
	RedisURL string
	// RateLimitRPS is the sustained requests per second of a project that
	// has no quota of its own (`reclaim project limits`), spent by all its
	// API keys and sessions together.
	RateLimitRPS float64
	// RateLimitBurst is that quota's burst.
	RateLimitBurst int
	// RateLimitWalletShare is the percentage of its project's quota that
	// one wallet may spend (1 to 100).
	RateLimitWalletShare int
	// RateLimitIPRPS and RateLimitIPBurst are the bucket of a client
	// address, which every request spends from before its credentials are
	// checked; zero means twice RateLimitRPS and RateLimitBurst (see
	// IPRateLimit).
	RateLimitIPRPS   float64
	RateLimitIPBurst int
	// ServiceFeeBPS is the operator's fee in basis points of the gross rebate.
	ServiceFeeBPS int
	// TreasuryWallet receives the service fee.
	TreasuryWallet string
	// TicketTTL is the longest life of a submission ticket.
	TicketTTL time.Duration
	// GuardHeadroomBytes is kept free in each transaction for wallet guards:
	// Phantom's four Lighthouse assertions took 163 bytes, 195 with one on an
	// account not in the message; Solflare's two 58.
	GuardHeadroomBytes int
	// GuardHeadroomUnits are added to each transaction's compute unit limit
	// for wallet guards: Lighthouse's tests bound an assertion at about 830
	// units, and Phantom adds up to four.
	GuardHeadroomUnits int
	// MaxComputeUnitPrice is the highest compute unit price, in
	// micro-lamports, a wallet may set when it signs (when the built price
	// is lower): a page that changes the transaction before the wallet
	// shows it cannot spend the rebate on fees. The limit may grow by
	// GuardHeadroomUnits at most, and the priority fee by half the net
	// rebate at most (signedcheck).
	MaxComputeUnitPrice int
	// ChainPollMS is how often, in milliseconds, the latest blockhash, the
	// recent prioritization fees and the p-token feature are read in the
	// background for builds (txbuild.Poller); a poll serves builds for
	// three intervals, then they ask for themselves. 0 turns it off.
	ChainPollMS int
	// PriceURL is a Jupiter-compatible price endpoint.
	PriceURL string
	// DASRPCURL is a DAS (Helius-compatible) endpoint for compressed assets.
	DASRPCURL string
	// PhotonRPCURL is a Photon endpoint for ZK-compressed tokens.
	PhotonRPCURL string
	// AllowSignup lets anyone create an owner account in the console.
	AllowSignup bool
	// WebhookAllowInsecure lets webhook endpoints be http and reach private
	// and loopback addresses: local development and tests only
	// (RECLAIM_WEBHOOK_ALLOW_INSECURE).
	WebhookAllowInsecure bool
	// Cluster names the cluster for block explorer links: mainnet-beta,
	// devnet, testnet or localnet (the explorer's custom cluster at
	// http://127.0.0.1:8899). Links never carry SolanaRPCURL.
	Cluster string
	// ExplorerURL, when set, is the template of explorer links: a URL
	// holding {kind} ("tx" or "address") and {id}.
	ExplorerURL string
	// SigningKey, when set, is the base64 Ed25519 seed that signs session
	// tokens and tickets; otherwise a key is generated in DataDir.
	SigningKey string
	// NextSigningKey is the base64 seed of the key the next rotation
	// switches to: accepted, not signing (`reclaim keys rotate --prepare`).
	NextSigningKey string
	// RetiredSigningKeys lists retired keys, PUBLIC@RETIRED_AT,
	// comma-separated: their tokens issued before that time are accepted.
	RetiredSigningKeys string
	// APIKeyPepper, when set, is the base64 secret of the API keys' keyed
	// hash; otherwise one is generated in DataDir. Every instance sharing a
	// database must share it.
	APIKeyPepper string
	// SessionCheckInterval bounds how long a revoked API key's sessions keep
	// working on an instance.
	SessionCheckInterval time.Duration
	// DBTimeout bounds every database call made for a request.
	DBTimeout time.Duration
	// SignURL is the signing page an MCP build links to with the build's
	// id (?build=ID), where a person signs and submits in a browser wallet
	// (the sample app's /sign); "" for none.
	SignURL string
	// MCPResourceURL is the public URL of /mcp, the resource its
	// protected-resource metadata (RFC 9728) names ("": the URL each
	// request reached); MCPAuthorizationServers the issuers of an OAuth
	// authorization server an operator puts in front (none by default).
	MCPResourceURL          string
	MCPAuthorizationServers []string
	// CORSOrigins are the browser origins allowed to call the API with any
	// project's session tokens, on top of each project's own list; ["*"]
	// allows every origin.
	CORSOrigins []string
	// Operations: metrics, logs, stopping (operations.go).
	Operations
	// Edge: trusted proxies, Secure cookies (edge.go).
	Edge
	// Storage: the rankings' memory, the submission log's retention
	// (storage.go).
	Storage
	// Landing: rebroadcasting and extra send paths (landing.go).
	Landing
}

// Default returns the embedded defaults: a whole offline stack with
// `make validator` and `make run`.
func Default() Config {
	return Config{
		Addr:                 "127.0.0.1:8080",
		DataDir:              "./data",
		SolanaRPCURL:         "http://127.0.0.1:8899",
		RPCTimeout:           3 * time.Second,
		RPCConcurrency:       32,
		RateLimitRPS:         200,
		RateLimitBurst:       400,
		RateLimitWalletShare: 5,
		ServiceFeeBPS:        0,
		TicketTTL:            ticket.MaxTTL,
		GuardHeadroomBytes:   200,
		GuardHeadroomUnits:   6_000,
		MaxComputeUnitPrice:  signedcheck.DefaultMaxPrice,
		ChainPollMS:          1000,
		SessionCheckInterval: 2 * time.Second,
		DBTimeout:            5 * time.Second,
		Cluster:              "localnet",
		Operations:           defaultOperations(),
		Storage:              defaultStorage(),
		Landing:              defaultLanding(),
	}
}

// MaxChainPollMS is the longest RECLAIM_CHAIN_POLL_MS: a blockhash
// served up to 30 s old would leave a build's transactions half their life.
const MaxChainPollMS = 10_000

// MaxComputeUnitPrice is the largest RECLAIM_MAX_COMPUTE_UNIT_PRICE: a
// million lamports a unit.
const MaxComputeUnitPrice = 1_000_000_000_000

// Load reads the configuration from getenv (os.Getenv in main), on top of
// Default. It rejects malformed values with a message naming the variable.
func Load(getenv func(string) string) (Config, error) {
	c := Default()
	r := &envReader{getenv: getenv}
	c.readEndpoints(r)
	c.readLimits(r)
	errs := r.errs
	if _, err := signing.ParseRetired(c.RetiredSigningKeys); err != nil {
		errs = append(errs, err.Error())
	}
	origins, err := CORSOrigins(getenv("RECLAIM_CORS_ORIGINS"))
	if err != nil {
		errs = append(errs, err.Error())
	}
	c.CORSOrigins = origins
	if c.ServiceFeeBPS > 0 && c.TreasuryWallet == "" {
		errs = append(errs, "RECLAIM_SERVICE_FEE_BPS is set but RECLAIM_TREASURY_WALLET is empty: the fee needs a wallet to go to")
	}
	errs = append(errs, c.checkRates()...)
	errs = append(errs, c.Operations.load(getenv)...)
	errs = append(errs, c.Edge.load(getenv)...)
	errs = append(errs, c.Storage.load(getenv)...)
	errs = append(errs, c.Landing.load(getenv)...)
	if len(errs) > 0 {
		return c, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// readEndpoints reads the addresses, URLs, keys and the cluster's name.
func (c *Config) readEndpoints(r *envReader) {
	r.str("RECLAIM_ADDR", &c.Addr)
	r.str("RECLAIM_DATA_DIR", &c.DataDir)
	r.str("DATABASE_URL", &c.DatabaseURL)
	r.str("SOLANA_RPC_URL", &c.SolanaRPCURL)
	r.str("REDIS_URL", &c.RedisURL)
	r.str("RECLAIM_TREASURY_WALLET", &c.TreasuryWallet)
	r.str("RECLAIM_PRICE_URL", &c.PriceURL)
	r.str("DAS_RPC_URL", &c.DASRPCURL)
	r.str("PHOTON_RPC_URL", &c.PhotonRPCURL)
	r.str("RECLAIM_SIGNING_KEY", &c.SigningKey)
	r.str("RECLAIM_NEXT_SIGNING_KEY", &c.NextSigningKey)
	r.str("RECLAIM_RETIRED_SIGNING_KEYS", &c.RetiredSigningKeys)
	r.str("RECLAIM_API_KEY_PEPPER", &c.APIKeyPepper)
	r.str("RECLAIM_CLUSTER", &c.Cluster)
	r.str("RECLAIM_EXPLORER_URL", &c.ExplorerURL)
	r.str("RECLAIM_SIGN_URL", &c.SignURL)
	if err := checkSignURL(c.SignURL); err != nil {
		r.errs = append(r.errs, err.Error())
	}
	r.str("RECLAIM_MCP_RESOURCE_URL", &c.MCPResourceURL)
	if err := checkResourceURL(c.MCPResourceURL); err != nil {
		r.errs = append(r.errs, err.Error())
	}
	servers, err := AuthorizationServers(r.getenv("RECLAIM_MCP_AUTHORIZATION_SERVERS"))
	if err != nil {
		r.errs = append(r.errs, err.Error())
	}
	c.MCPAuthorizationServers = servers
	switch c.Cluster {
	case "mainnet-beta", "devnet", "testnet", "localnet":
	default:
		r.errs = append(r.errs, fmt.Sprintf("RECLAIM_CLUSTER=%q: want mainnet-beta, devnet, testnet or localnet", c.Cluster))
	}
}

// readLimits reads the rate limits, the fee, the guards' headroom, the
// ticket's life and sign-up.
func (c *Config) readLimits(r *envReader) {
	r.rate("RECLAIM_RATE_LIMIT_RPS", &c.RateLimitRPS)
	r.integer("RECLAIM_RATE_LIMIT_BURST", &c.RateLimitBurst, 1, ratelimit.MaxBurst)
	r.integer("RECLAIM_RATE_LIMIT_WALLET_SHARE", &c.RateLimitWalletShare, 1, 100)
	r.rate("RECLAIM_RATE_LIMIT_IP_RPS", &c.RateLimitIPRPS)
	r.integer("RECLAIM_RATE_LIMIT_IP_BURST", &c.RateLimitIPBurst, 1, ratelimit.MaxBurst)
	r.integer("RECLAIM_SERVICE_FEE_BPS", &c.ServiceFeeBPS, 0, 10_000)
	r.integer("RECLAIM_GUARD_HEADROOM_BYTES", &c.GuardHeadroomBytes, 0, 512)
	r.integer("RECLAIM_GUARD_HEADROOM_UNITS", &c.GuardHeadroomUnits, 0, 200_000)
	r.integer("RECLAIM_MAX_COMPUTE_UNIT_PRICE", &c.MaxComputeUnitPrice, 0, MaxComputeUnitPrice)
	r.integer("RECLAIM_RPC_CONCURRENCY", &c.RPCConcurrency, 1, 1024)
	r.integer("RECLAIM_CHAIN_POLL_MS", &c.ChainPollMS, 0, MaxChainPollMS)
	r.seconds("RECLAIM_TICKET_TTL_SECONDS", &c.TicketTTL, 1, int(ticket.MaxTTL/time.Second))
	if v := strings.TrimSpace(r.getenv("RECLAIM_ALLOW_SIGNUP")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			r.errs = append(r.errs, fmt.Sprintf("RECLAIM_ALLOW_SIGNUP=%q: want true or false", v))
		}
		c.AllowSignup = b
	}
	if v := strings.TrimSpace(r.getenv("RECLAIM_WEBHOOK_ALLOW_INSECURE")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			r.errs = append(r.errs, fmt.Sprintf("RECLAIM_WEBHOOK_ALLOW_INSECURE=%q: want true or false (1 or 0)", v))
		}
		c.WebhookAllowInsecure = b
	}
}

// envReader reads variables into settings, collecting a message naming the
// variable for each malformed value.
type envReader struct {
	getenv func(string) string
	errs   []string
}

// str sets dst to the variable when it is set.
func (r *envReader) str(name string, dst *string) {
	if v := strings.TrimSpace(r.getenv(name)); v != "" {
		*dst = v
	}
}

// integer sets dst to the variable when it is a whole number from lo to hi.
func (r *envReader) integer(name string, dst *int, lo, hi int) {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		r.errs = append(r.errs, fmt.Sprintf("%s=%q: want a whole number from %d to %d", name, v, lo, hi))
		return
	}
	*dst = n
}

// seconds sets dst to the variable, a whole number of seconds from lo to hi.
func (r *envReader) seconds(name string, dst *time.Duration, lo, hi int) {
	n := -1
	r.integer(name, &n, lo, hi)
	if n >= 0 {
		*dst = time.Duration(n) * time.Second
	}
}

// rate sets dst to the variable when it is requests per second above 0,
// at most what the buckets take (ratelimit.MaxRPS).
func (r *envReader) rate(name string, dst *float64) {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0) || f > ratelimit.MaxRPS {
		r.errs = append(r.errs, fmt.Sprintf("%s=%q: want requests per second above 0 and at most %d (one a microsecond, the resolution of the buckets kept in Redis)", name, v, ratelimit.MaxRPS))
		return
	}
	*dst = f
}

// Keys returns the signing keys the environment gives.
func (c Config) Keys() signing.Settings {
	return signing.Settings{Signer: c.SigningKey, Next: c.NextSigningKey, Retired: c.RetiredSigningKeys}
}

// ipFactor is how many times a project's default quota a client address
// gets unless configured: an integrator's backend, one address, can spend
// its project's whole quota twice over, while a flood of bad credentials
// from one address stops there.
const ipFactor = 2

// IPRateLimit returns the rate and burst of a client address's bucket:
// RateLimitIPRPS and RateLimitIPBurst, or twice a project's default quota.
func (c Config) IPRateLimit() (rps float64, burst int) {
	rps, burst = c.RateLimitIPRPS, c.RateLimitIPBurst
	if rps <= 0 {
		rps = min(ipFactor*c.RateLimitRPS, ratelimit.MaxRPS)
	}
	if burst <= 0 {
		burst = min(ipFactor*c.RateLimitBurst, ratelimit.MaxBurst)
	}
	return rps, burst
}

// CORSOrigins reads RECLAIM_CORS_ORIGINS: a comma-separated list of origins
// (scheme://host[:port]), or "*" alone, which allows any origin and so must
// be chosen explicitly.
func CORSOrigins(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []string
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		if o == "*" {
			out = append(out, o)
			continue
		}
		norm, err := project.ValidateOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("RECLAIM_CORS_ORIGINS: %w", err)
		}
		out = append(out, norm)
	}
	if len(out) > 1 && strings.Contains(v, "*") {
		return nil, fmt.Errorf("RECLAIM_CORS_ORIGINS=%q: \"*\" allows every origin; give it alone or list origins", v)
	}
	return out, nil
}
