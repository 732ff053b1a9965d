// Package config reads the service's configuration from the environment.
// Every setting is also a flag of `reclaim serve` (see backend/cmd/reclaim).
package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/project"
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
	// RateLimitRPS is the sustained requests per second of one bucket.
	RateLimitRPS float64
	// RateLimitBurst is the bucket's capacity.
	RateLimitBurst int
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
	// PriceURL is a Jupiter-compatible price endpoint.
	PriceURL string
	// DASRPCURL is a DAS (Helius-compatible) endpoint for compressed assets.
	DASRPCURL string
	// PhotonRPCURL is a Photon endpoint for ZK-compressed tokens.
	PhotonRPCURL string
	// AllowSignup lets anyone create an owner account in the console.
	AllowSignup bool
	// Cluster names the cluster for block explorer links: mainnet-beta,
	// devnet, testnet or localnet (links to SolanaRPCURL as a custom cluster).
	Cluster string
	// SigningKey, when set, is the base64 Ed25519 seed that signs session
	// tokens and tickets; otherwise a key is generated in DataDir.
	SigningKey string
	// APIKeyPepper, when set, is the base64 secret of the API keys' keyed
	// hash; otherwise one is generated in DataDir. Every instance sharing a
	// database must share it.
	APIKeyPepper string
	// SessionCheckInterval bounds how long a revoked API key's sessions keep
	// working on an instance.
	SessionCheckInterval time.Duration
	// DBTimeout bounds every database call made for a request.
	DBTimeout time.Duration
	// CORSOrigins are the browser origins allowed to call the API with any
	// project's session tokens, on top of each project's own list; ["*"]
	// allows every origin.
	CORSOrigins []string
	// Operations: metrics, logs, stopping (operations.go).
	Operations
	// Storage: the rankings' memory, the submission log's retention
	// (storage.go).
	Storage
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
		RateLimitRPS:         20,
		RateLimitBurst:       40,
		ServiceFeeBPS:        0,
		TicketTTL:            90 * time.Second,
		GuardHeadroomBytes:   200,
		GuardHeadroomUnits:   6_000,
		SessionCheckInterval: 2 * time.Second,
		DBTimeout:            5 * time.Second,
		Cluster:              "localnet",
		Operations:           defaultOperations(),
		Storage:              defaultStorage(),
	}
}

// Load reads the configuration from getenv (os.Getenv in main), on top of
// Default. It rejects malformed values with a message naming the variable.
func Load(getenv func(string) string) (Config, error) {
	c := Default()
	var errs []string
	str := func(name string, dst *string) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			*dst = v
		}
	}
	integer := func(name string, dst *int, lo, hi int) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Sprintf("%s=%q: want a whole number from %d to %d", name, v, lo, hi))
			return
		}
		*dst = n
	}
	seconds := func(name string, dst *time.Duration, lo, hi int) {
		n := -1
		integer(name, &n, lo, hi)
		if n >= 0 {
			*dst = time.Duration(n) * time.Second
		}
	}
	str("RECLAIM_ADDR", &c.Addr)
	str("RECLAIM_DATA_DIR", &c.DataDir)
	str("DATABASE_URL", &c.DatabaseURL)
	str("SOLANA_RPC_URL", &c.SolanaRPCURL)
	str("REDIS_URL", &c.RedisURL)
	str("RECLAIM_TREASURY_WALLET", &c.TreasuryWallet)
	str("RECLAIM_PRICE_URL", &c.PriceURL)
	str("DAS_RPC_URL", &c.DASRPCURL)
	str("PHOTON_RPC_URL", &c.PhotonRPCURL)
	str("RECLAIM_SIGNING_KEY", &c.SigningKey)
	str("RECLAIM_API_KEY_PEPPER", &c.APIKeyPepper)
	str("RECLAIM_CLUSTER", &c.Cluster)
	switch c.Cluster {
	case "mainnet-beta", "devnet", "testnet", "localnet":
	default:
		errs = append(errs, fmt.Sprintf("RECLAIM_CLUSTER=%q: want mainnet-beta, devnet, testnet or localnet", c.Cluster))
	}
	if v := strings.TrimSpace(getenv("RECLAIM_RATE_LIMIT_RPS")); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f > 1e6 {
			errs = append(errs, fmt.Sprintf("RECLAIM_RATE_LIMIT_RPS=%q: want a number above 0", v))
		} else {
			c.RateLimitRPS = f
		}
	}
	integer("RECLAIM_RATE_LIMIT_BURST", &c.RateLimitBurst, 1, 1_000_000)
	integer("RECLAIM_SERVICE_FEE_BPS", &c.ServiceFeeBPS, 0, 10_000)
	integer("RECLAIM_GUARD_HEADROOM_BYTES", &c.GuardHeadroomBytes, 0, 512)
	integer("RECLAIM_GUARD_HEADROOM_UNITS", &c.GuardHeadroomUnits, 0, 200_000)
	integer("RECLAIM_RPC_CONCURRENCY", &c.RPCConcurrency, 1, 1024)
	seconds("RECLAIM_TICKET_TTL_SECONDS", &c.TicketTTL, 1, 3600)
	if v := strings.TrimSpace(getenv("RECLAIM_ALLOW_SIGNUP")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("RECLAIM_ALLOW_SIGNUP=%q: want true or false", v))
		}
		c.AllowSignup = b
	}
	origins, err := CORSOrigins(getenv("RECLAIM_CORS_ORIGINS"))
	if err != nil {
		errs = append(errs, err.Error())
	}
	c.CORSOrigins = origins
	if c.ServiceFeeBPS > 0 && c.TreasuryWallet == "" {
		errs = append(errs, "RECLAIM_SERVICE_FEE_BPS is set but RECLAIM_TREASURY_WALLET is empty: the fee needs a wallet to go to")
	}
	errs = append(errs, c.Operations.load(getenv)...)
	errs = append(errs, c.Storage.load(getenv)...)
	if len(errs) > 0 {
		return c, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
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
