package config

import (
	"fmt"
	"net/url"

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
