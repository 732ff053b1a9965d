package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Landing are the settings of how a submitted transaction reaches a leader:
// how often one in flight is sent again, and the paths it is sent by beside
// the cluster's RPC.
type Landing struct {
	// RebroadcastInterval is how often a transaction in flight that the
	// cluster does not have is sent again, the same bytes, until it lands
	// or its blockhash expires; whole seconds (the tracker's passes are a
	// second apart). Zero never sends again.
	RebroadcastInterval time.Duration
	// SendURLs are extra send endpoints (a staked RPC, a sender service, a
	// block engine's sendTransaction): each gets every transaction the
	// cluster accepted and every rebroadcast, beside SolanaRPCURL. One that
	// fails is logged and counted, never fatal.
	SendURLs []string
}

func defaultLanding() Landing {
	return Landing{RebroadcastInterval: 2 * time.Second}
}

// maxSendURLs bounds RECLAIM_SEND_URLS: each path is a send per
// transaction and rebroadcast.
const maxSendURLs = 8

// load reads the landing settings from getenv; it returns what is wrong.
func (l *Landing) load(getenv func(string) string) []string {
	var errs []string
	if v := strings.TrimSpace(getenv("RECLAIM_REBROADCAST_INTERVAL")); v != "" {
		d, err := ParseRebroadcastInterval(v)
		if err != nil {
			errs = append(errs, "RECLAIM_REBROADCAST_INTERVAL="+strconv.Quote(v)+": "+err.Error())
		}
		l.RebroadcastInterval = d
	}
	if v := strings.TrimSpace(getenv("RECLAIM_SEND_URLS")); v != "" {
		urls, err := SendURLs(v)
		if err != nil {
			errs = append(errs, "RECLAIM_SEND_URLS: "+err.Error())
		}
		l.SendURLs = urls
	}
	return errs
}

// ParseRebroadcastInterval reads a rebroadcast interval: a whole number of
// seconds from 1 to 60, as a duration (2s) or a number (2), or 0 to never
// send a transaction again.
func ParseRebroadcastInterval(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	d, err := time.ParseDuration(v)
	if n, nerr := strconv.Atoi(v); nerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d < 0 || d > time.Minute || d%time.Second != 0 {
		return 0, fmt.Errorf("want whole seconds from 1s to 60s, or 0 to never send a transaction again")
	}
	return d, nil
}

// SendURLs reads RECLAIM_SEND_URLS: http(s) URLs with a host, separated by
// commas. The errors name an entry by its position, never its text: a
// provider's URL carries its API key.
func SendURLs(v string) ([]string, error) {
	var out []string
	for i, raw := range strings.Split(v, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("entry %d is not an http:// or https:// URL with a host", i+1)
		}
		out = append(out, raw)
	}
	if len(out) > maxSendURLs {
		return nil, fmt.Errorf("%d URLs, at most %d", len(out), maxSendURLs)
	}
	return out, nil
}
