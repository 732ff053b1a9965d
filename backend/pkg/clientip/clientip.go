// Package clientip tells which client a request came from, for the limits
// that count per client: the API's per-address rate limit and the console's
// sign-in limits both key on Resolver.Key.
//
// The client is the TCP peer, unless the peer is a proxy the operator
// trusts (RECLAIM_TRUSTED_PROXIES): then it is the address that proxy
// reports in X-Forwarded-For, read from the right (the entry the nearest
// proxy appended) past every trusted proxy. What a client writes in the
// header itself is further left and never read, and a peer that is not
// trusted is never asked: its header is ignored, so no one spoofs an
// address by sending one.
//
// IPv6 clients are keyed by their /64 network, which one subscriber usually
// holds whole: counting single addresses there would let one client take
// 2^64 fresh budgets.
package clientip

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Header is the header trusted proxies report the client's address in.
const Header = "X-Forwarded-For"

// maxHops bounds the X-Forwarded-For entries read from the right: no
// deployment chains more proxies than this.
const maxHops = 16

// Resolver finds the client of a request. Its zero value (and nil) trusts
// no proxy: the client is always the TCP peer.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a Resolver trusting the proxies in trusted.
func New(trusted []netip.Prefix) *Resolver {
	return &Resolver{trusted: trusted}
}

// Addr returns the client of a request whose TCP peer is remoteAddr
// (host:port, as http.Request.RemoteAddr) and whose X-Forwarded-For header
// lines are forwardedFor. ok is false when remoteAddr is no IP address (a
// Unix socket, a test's pipe).
func (r *Resolver) Addr(remoteAddr string, forwardedFor []string) (netip.Addr, bool) {
	client, ok := parseAddr(remoteAddr)
	if !ok || !r.trusts(client) || len(forwardedFor) == 0 {
		return client, ok
	}
	entries := strings.Split(strings.Join(forwardedFor, ","), ",")
	for i, hops := len(entries)-1, 0; i >= 0 && hops < maxHops && r.trusts(client); i, hops = i-1, hops+1 {
		a, ok := parseAddr(strings.TrimSpace(entries[i]))
		if !ok {
			break // a proxy we trust wrote something we cannot read: stop at that proxy
		}
		client = a
	}
	return client, true
}

// Key returns the client's key for per-client limits: an IPv4 address, or
// an IPv6 client's /64 network; remoteAddr itself when it is no IP address.
func (r *Resolver) Key(remoteAddr string, forwardedFor []string) string {
	a, ok := r.Addr(remoteAddr, forwardedFor)
	if !ok {
		return remoteAddr
	}
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}

func (r *Resolver) trusts(a netip.Addr) bool {
	if r == nil {
		return false
	}
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseAddr reads an address with or without a port ("192.0.2.1",
// "192.0.2.1:443", "[2001:db8::1]:443", "2001:db8::1"), IPv4-mapped IPv6
// as IPv4, without a zone.
func parseAddr(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		host, _, splitErr := net.SplitHostPort(s)
		if splitErr != nil {
			return netip.Addr{}, false
		}
		if a, err = netip.ParseAddr(host); err != nil {
			return netip.Addr{}, false
		}
	}
	return a.Unmap().WithZone(""), true
}

// ParsePrefixes reads a comma-separated list of addresses and CIDR
// networks ("10.0.0.0/8, 192.0.2.7, 2001:db8::/32"); an address is a
// network of its own.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("%q: want an IP address or a CIDR network such as 10.0.0.0/8", f)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%q: want an IP address or a CIDR network such as 10.0.0.0/8", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
