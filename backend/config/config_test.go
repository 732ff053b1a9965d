package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	t.Parallel()
	c, err := config.Load(env(map[string]string{
		"RECLAIM_RATE_LIMIT_RPS": "2.5", "RECLAIM_RATE_LIMIT_BURST": "7", "RECLAIM_TICKET_TTL_SECONDS": "30",
		"DATABASE_URL": "postgres://x", "RECLAIM_SERVICE_FEE_BPS": "50", "RECLAIM_TREASURY_WALLET": "T",
		"RECLAIM_CORS_ORIGINS":         " https://App.Example/ , http://localhost:5173",
		"RECLAIM_GUARD_HEADROOM_UNITS": "8000", "RECLAIM_RPC_CONCURRENCY": "8",
		"RECLAIM_MAX_COMPUTE_UNIT_PRICE": "2000000", "RECLAIM_EXPLORER_URL": "https://solscan.io/{kind}/{id}",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.RateLimitRPS != 2.5 || c.RateLimitBurst != 7 || c.TicketTTL != 30*time.Second || c.DatabaseURL != "postgres://x" || c.ServiceFeeBPS != 50 ||
		c.GuardHeadroomUnits != 8000 || c.GuardHeadroomBytes != 200 || c.RPCConcurrency != 8 ||
		c.MaxComputeUnitPrice != 2_000_000 || c.ExplorerURL != "https://solscan.io/{kind}/{id}" {
		t.Fatalf("%+v", c)
	}
	if strings.Join(c.CORSOrigins, " ") != "https://app.example http://localhost:5173" {
		t.Errorf("CORSOrigins = %q", c.CORSOrigins)
	}
	if c, err := config.Load(env(map[string]string{"RECLAIM_CORS_ORIGINS": "*"})); err != nil || len(c.CORSOrigins) != 1 || c.CORSOrigins[0] != "*" {
		t.Errorf("RECLAIM_CORS_ORIGINS=*: %q, %v", c.CORSOrigins, err)
	}
	if d := config.Default(); d.CORSOrigins != nil {
		t.Errorf("default CORSOrigins = %q, want none", d.CORSOrigins)
	}
	if d := config.Default(); d.Addr != "127.0.0.1:8080" || d.DataDir != "./data" || d.SolanaRPCURL != "http://127.0.0.1:8899" || d.RPCConcurrency != 32 ||
		d.MaxComputeUnitPrice != 5_000_000 || d.ExplorerURL != "" {
		t.Fatalf("defaults %+v", d)
	}
}

func TestLoadRejects(t *testing.T) {
	t.Parallel()
	cases := map[string]map[string]string{
		"RECLAIM_RATE_LIMIT_RPS":          {"RECLAIM_RATE_LIMIT_RPS": "fast"},
		"RECLAIM_RATE_LIMIT_BURST":        {"RECLAIM_RATE_LIMIT_BURST": "0"},
		"RECLAIM_RATE_LIMIT_WALLET_SHARE": {"RECLAIM_RATE_LIMIT_WALLET_SHARE": "0"},
		"RECLAIM_SERVICE_FEE_BPS":         {"RECLAIM_SERVICE_FEE_BPS": "10001"},
		"RECLAIM_TICKET_TTL_SECONDS":      {"RECLAIM_TICKET_TTL_SECONDS": "-1"},
		"RECLAIM_ALLOW_SIGNUP":            {"RECLAIM_ALLOW_SIGNUP": "maybe"},
		"RECLAIM_CLUSTER":                 {"RECLAIM_CLUSTER": "moonnet"},
		"RECLAIM_TREASURY_WALLET":         {"RECLAIM_SERVICE_FEE_BPS": "10"},
		"RECLAIM_GUARD_HEADROOM_UNITS":    {"RECLAIM_GUARD_HEADROOM_UNITS": "-1"},
		"RECLAIM_CORS_ORIGINS":            {"RECLAIM_CORS_ORIGINS": "https://app.example/login"},
		"RECLAIM_RPC_CONCURRENCY":         {"RECLAIM_RPC_CONCURRENCY": "0"},
		"RECLAIM_MAX_COMPUTE_UNIT_PRICE":  {"RECLAIM_MAX_COMPUTE_UNIT_PRICE": "-1"},
		"RECLAIM_RATE_LIMIT_IP_RPS":       {"RECLAIM_RATE_LIMIT_IP_RPS": "-1"},
		"RECLAIM_RATE_LIMIT_IP_BURST":     {"RECLAIM_RATE_LIMIT_IP_BURST": "0"},
		"RECLAIM_RETIRED_SIGNING_KEYS":    {"RECLAIM_RETIRED_SIGNING_KEYS": "AAAA"},
		"RECLAIM_WEBHOOK_ALLOW_INSECURE":  {"RECLAIM_WEBHOOK_ALLOW_INSECURE": "sometimes"},
	}
	for _, v := range []string{"*, https://app.example", "https://app.example,*"} {
		if _, err := config.Load(env(map[string]string{"RECLAIM_CORS_ORIGINS": v})); err == nil || !strings.Contains(err.Error(), "give it alone") {
			t.Errorf("RECLAIM_CORS_ORIGINS=%q: %v, want \"*\" refused in a list", v, err)
		}
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := config.Load(env(m)); err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("got %v, want an error naming %s", err, name)
			}
		})
	}
	// A refused rate names the bound it breaks, the one the limiters
	// really have (a newcomer read "want a number above 0" for 10000000).
	for v, bound := range map[string]string{
		"10000000":  "at most 1000000",
		"0":         "above 0",
		"0.0000001": "at least 4.44e-05 requests per second for a burst of 400",
	} {
		_, err := config.Load(env(map[string]string{"RECLAIM_RATE_LIMIT_RPS": v}))
		if err == nil || !strings.Contains(err.Error(), bound) {
			t.Errorf("RECLAIM_RATE_LIMIT_RPS=%s: %v, want the bound %q", v, err, bound)
		}
	}
	if _, err := config.Load(env(map[string]string{"RECLAIM_TICKET_TTL_SECONDS": "90"})); err == nil || !strings.Contains(err.Error(), "from 1 to 60") {
		t.Errorf("a ticket lifetime past the tickets' 60 s: %v", err)
	}
}

// A client address's bucket is twice a project's default quota unless set.
func TestIPRateLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		env   map[string]string
		rps   float64
		burst int
	}{
		{"default", nil, 400, 800},
		{"follows the projects' default quota", map[string]string{"RECLAIM_RATE_LIMIT_RPS": "1000", "RECLAIM_RATE_LIMIT_BURST": "1000"}, 2000, 2000},
		{"set", map[string]string{"RECLAIM_RATE_LIMIT_IP_RPS": "50", "RECLAIM_RATE_LIMIT_IP_BURST": "60"}, 50, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Load(env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if rps, burst := c.IPRateLimit(); rps != tt.rps || burst != tt.burst {
				t.Fatalf("IPRateLimit() = %v, %d; want %v, %d", rps, burst, tt.rps, tt.burst)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	retired := "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=@2026-05-01T12:00:00Z"
	c, err := config.Load(env(map[string]string{"RECLAIM_SIGNING_KEY": "s", "RECLAIM_NEXT_SIGNING_KEY": "n", "RECLAIM_RETIRED_SIGNING_KEYS": retired}))
	if err != nil {
		t.Fatal(err)
	}
	if k := c.Keys(); k.Signer != "s" || k.Next != "n" || k.Retired != retired {
		t.Fatalf("Keys() = %+v", k)
	}
}

// RECLAIM_MCP_RESOURCE_URL and RECLAIM_MCP_AUTHORIZATION_SERVERS: /mcp's
// public URL and the issuers its metadata names; none by default, and a
// value that cannot be one refused naming the variable.
func TestMCPAuthorizationSettings(t *testing.T) {
	t.Parallel()
	c, err := config.Load(env(map[string]string{
		"RECLAIM_MCP_RESOURCE_URL":          "https://api.example.com/mcp",
		"RECLAIM_MCP_AUTHORIZATION_SERVERS": " https://auth.example.com , http://127.0.0.1:9000,https://auth.example.com",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.MCPResourceURL != "https://api.example.com/mcp" || strings.Join(c.MCPAuthorizationServers, " ") != "https://auth.example.com http://127.0.0.1:9000" {
		t.Errorf("got %q %q", c.MCPResourceURL, c.MCPAuthorizationServers)
	}
	if d := config.Default(); d.MCPResourceURL != "" || d.MCPAuthorizationServers != nil {
		t.Errorf("defaults %q %q, want none", d.MCPResourceURL, d.MCPAuthorizationServers)
	}
	for name, values := range map[string][]string{
		"RECLAIM_MCP_RESOURCE_URL": {"api.example.com/mcp", "https://api.example.com/", "https://api.example.com/mcp?x=1",
			"https://u:p@api.example.com/mcp", "ftp://api.example.com/mcp", `https://api.example.com/mcp"`},
		"RECLAIM_MCP_AUTHORIZATION_SERVERS": {"http://auth.example.com", "auth.example.com", "https://auth.example.com#x",
			"https://auth.example.com?tenant=1", `https://a.example.com",x`},
	} {
		for _, v := range values {
			if _, err := config.Load(env(map[string]string{name: v})); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want refused", name, v, err)
			}
		}
	}
}
