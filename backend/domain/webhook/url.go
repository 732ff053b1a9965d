package webhook

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/netguard"
)

// MaxURL bounds an endpoint's URL.
const MaxURL = 2000

// CheckURL returns raw as an endpoint's URL, or an invalid fault naming
// "url" that says what to fix: an absolute https URL with a host, no user
// or password in it and no fragment; a host given as an address must be a
// public one (netguard.Public). A name is resolved by the caller, and every
// connection is checked again when it is made (DNS can change). insecure
// (RECLAIM_WEBHOOK_ALLOW_INSECURE, for local development) allows http and
// private addresses.
func CheckURL(raw string, insecure bool) (string, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return "", fault.InvalidField("url", "is required: the https URL of your webhook receiver")
	case len(raw) > MaxURL:
		return "", fault.InvalidField("url", "is longer than %d characters", MaxURL)
	case strings.ContainsFunc(raw, func(r rune) bool { return r < 0x21 || r == 0x7f }):
		return "", fault.InvalidField("url", "must not contain spaces or control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fault.InvalidField("url", "is not a URL: %s", urlMistake(err))
	}
	switch {
	case u.Scheme == "http" && !insecure:
		return "", fault.InvalidField("url", "must use https (http is allowed only on a server started with RECLAIM_WEBHOOK_ALLOW_INSECURE=1, for local development)")
	case u.Scheme != "https" && u.Scheme != "http":
		return "", fault.InvalidField("url", "must be an https:// URL")
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return "", fault.InvalidField("url", "must name a host: https://host/path")
	case u.User != nil:
		return "", fault.InvalidField("url", "must not carry a user or password: authenticate events by their signature")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "", fault.InvalidField("url", "must not have a fragment (#...)")
	case strings.Contains(u.Host, "%"):
		// An IPv6 zone names a local interface: never a public receiver.
		return "", fault.InvalidField("url", "must not name an IPv6 zone (%%...): webhooks go to public addresses")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fault.InvalidField("url", "has an invalid port %q", p)
		}
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !insecure && !netguard.Public(ip) {
			return "", fault.InvalidField("url", "points to a private or reserved address (%s): webhooks go to public addresses", ip)
		}
	} else if !validName(host) {
		return "", fault.InvalidField("url", "has an invalid host name %q", host)
	}
	u.Host = strings.ToLower(u.Host)
	return u.String(), nil
}

// urlMistake is url.Parse's complaint without the URL it quotes.
func urlMistake(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return "it does not parse"
}

// validName reports whether host is a DNS name: labels of letters, digits
// and hyphens (or an internationalized name's punycode), 1 to 63 bytes
// each, 253 at most, not starting or ending with a hyphen. A name that is
// not one can never resolve.
func validName(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return false
			}
		}
	}
	return true
}

// CheckAddrs refuses the addresses a URL's host resolved to when one is not
// public (unless insecure): an invalid fault naming "url".
func CheckAddrs(host string, addrs []netip.Addr, insecure bool) error {
	if len(addrs) == 0 {
		return fault.InvalidField("url", "host %s has no address", host)
	}
	if insecure {
		return nil
	}
	for _, a := range addrs {
		if !netguard.Public(a) {
			return fault.InvalidField("url", "host %s resolves to a private or reserved address (%s): webhooks go to public addresses", host, a)
		}
	}
	return nil
}

// Host is the host name of a URL that CheckURL accepted, as a resolver
// takes it ("" for an address).
func Host(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	h := parsed.Hostname()
	if _, err := netip.ParseAddr(h); err == nil {
		return ""
	}
	return h
}

// Redacted is u as the console and the logs show it: without its query,
// which may carry a token of the receiver's.
func Redacted(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(invalid URL)"
	}
	if parsed.RawQuery != "" {
		parsed.RawQuery = ""
		return parsed.String() + "?…"
	}
	return parsed.String()
}
