package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
)

// CheckRates checks the rate limits as the limiters will take them, with
// the bounds they really have (ratelimit.Check): from the environment or
// from the flags of `reclaim serve`, which set the same fields.
func (c Config) CheckRates() error {
	if errs := c.checkRates(); len(errs) > 0 {
		return fmt.Errorf("configuration: %s", errs[0])
	}
	return nil
}

func (c Config) checkRates() []string {
	var errs []string
	if err := ratelimit.Check(c.RateLimitRPS, c.RateLimitBurst); err != nil {
		errs = append(errs, fmt.Sprintf("RECLAIM_RATE_LIMIT_RPS=%g with RECLAIM_RATE_LIMIT_BURST=%d: %v", c.RateLimitRPS, c.RateLimitBurst, err))
	}
	rps, burst := c.IPRateLimit()
	if err := ratelimit.Check(rps, burst); err != nil {
		errs = append(errs, fmt.Sprintf("RECLAIM_RATE_LIMIT_IP_RPS=%g with RECLAIM_RATE_LIMIT_IP_BURST=%d: %v (unset, they are twice the project's default quota, at most the bounds)", rps, burst, err))
	}
	return errs
}

// checkResourceURL checks RECLAIM_MCP_RESOURCE_URL: the absolute http(s)
// URL of /mcp as agents reach it: a scheme, a host, the path /mcp (RFC
// 9728 names a resource so; its metadata is served beside it).
func checkResourceURL(v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" || u.Path != "/mcp" || strings.ContainsAny(v, "\"\\ ") {
		return fmt.Errorf("RECLAIM_MCP_RESOURCE_URL=%q: want the http(s) URL agents reach /mcp at: a scheme, a host and the path /mcp, nothing else (https://api.example.com/mcp)", v)
	}
	return nil
}

// AuthorizationServers reads RECLAIM_MCP_AUTHORIZATION_SERVERS: a
// comma-separated list of the issuer URLs (RFC 8414) of OAuth authorization
// servers whose tokens /mcp would take, named in its protected-resource
// metadata: https URLs (http only on a loopback host), without credentials,
// a query or a fragment. Empty: none.
func AuthorizationServers(v string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		u, err := url.Parse(s)
		ok := err == nil && u.Host != "" && u.User == nil && u.RawQuery == "" && u.Fragment == "" && !strings.ContainsAny(s, "\"\\ ") &&
			(u.Scheme == "https" || u.Scheme == "http" && (u.Hostname() == "localhost" || net.ParseIP(u.Hostname()).IsLoopback()))
		if !ok {
			return nil, fmt.Errorf("RECLAIM_MCP_AUTHORIZATION_SERVERS: %q: want an issuer's https URL, without credentials, a query or a fragment (https://auth.example.com)", s)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// checkSignURL checks RECLAIM_SIGN_URL: an absolute http(s) URL without
// credentials, since every MCP build's answer shows it.
func checkSignURL(v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Fragment != "" {
		return fmt.Errorf("RECLAIM_SIGN_URL=%q: want an http(s) URL of the signing page, without credentials or a fragment (http://127.0.0.1:5173/sign)", v)
	}
	return nil
}
