package config

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
)

// Edge are the settings of what stands between the service and its
// clients: the proxies whose word on a client's address is taken, and
// whether the console's cookies need HTTPS.
type Edge struct {
	// TrustedProxies are the load balancers and proxies whose
	// X-Forwarded-For names the client (RECLAIM_TRUSTED_PROXIES); none by
	// default, so a client's own header is never believed.
	TrustedProxies []netip.Prefix
	// SecureCookies, when set, says whether the console's cookies are
	// marked Secure (and HSTS sent); nil means on unless the service listens
	// on loopback only (SecureCookiesOn).
	SecureCookies *bool
}

// load reads the edge settings from getenv; it returns what is wrong.
func (e *Edge) load(getenv func(string) string) []string {
	var errs []string
	if v := strings.TrimSpace(getenv("RECLAIM_TRUSTED_PROXIES")); v != "" {
		p, err := clientip.ParsePrefixes(v)
		if err != nil {
			errs = append(errs, "RECLAIM_TRUSTED_PROXIES: "+err.Error())
		}
		e.TrustedProxies = p
	}
	if v := strings.TrimSpace(getenv("RECLAIM_SECURE_COOKIES")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("RECLAIM_SECURE_COOKIES=%q: want true or false", v))
		}
		e.SecureCookies = &b
	}
	return errs
}

// SecureCookiesOn reports whether the console's cookies are Secure for a
// service listening on addr: as set, or else unless addr is a loopback
// address (a developer's http://127.0.0.1, which browsers treat as secure
// anyway; anywhere else the console is meant to be reached over HTTPS).
func (e Edge) SecureCookiesOn(addr string) bool {
	if e.SecureCookies != nil {
		return *e.SecureCookies
	}
	return !Loopback(addr)
}

// Loopback reports whether the listen address addr (host:port) accepts
// connections from this machine only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}
