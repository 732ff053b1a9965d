// Package netguard keeps the service's outbound connections to addresses
// chosen by others (metadata URIs, webhook URLs) off its own network: a
// connection to a loopback, private, link-local, CGNAT, multicast or other
// special address (IPv6 outside the global unicast 2000::/3, and the
// transition ranges within it: Teredo, 6to4; see Public) is refused at dial
// time, after DNS resolution, so a URL (or a redirect, or a DNS answer that
// changed since the URL was checked) cannot make the service reach it.
//
// Use Control as a net.Dialer's Control: it sees the address the dialler
// is about to connect to, whatever name led there.
package netguard

import (
	"errors"
	"net/netip"
	"syscall"
)

// blocked4 are special-purpose IPv4 ranges netip has no predicate for
// (IANA's special-purpose registry, RFC 6890 and its updates).
var blocked4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // this network
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
}

// globalUnicast6 is the only IPv6 space a connection may reach. Outside it
// lie loopback, the IPv4-compatible ::/96 and IPv4-translated
// ::ffff:0:0:0/96 forms, NAT64 (64:ff9b::/96 and the local-use
// 64:ff9b:1::/48, which reach an IPv4 address through a translator, private
// ones included), discard 100::/64, unique local fc00::/7, link-local,
// site-local and multicast.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// blocked6 are the ranges within 2000::/3 that are not plain global unicast:
// the tunnels that embed an IPv4 address (Teredo in 2001::/32, 6to4
// 2002::/16) and the IETF's assignments beside Teredo, and documentation.
var blocked6 = []netip.Prefix{
	netip.MustParsePrefix("2001::/23"),     // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
	netip.MustParsePrefix("2001:db8::/32"), // documentation
	netip.MustParsePrefix("2002::/16"),     // 6to4
	netip.MustParsePrefix("3fff::/20"),     // documentation (RFC 9637)
}

// ErrPrivate refuses a connection to an address that is not public.
var ErrPrivate = errors.New("refusing to connect to a non-public address")

// Control is a net.Dialer Control that refuses to connect to an address
// that is not Public, with ErrPrivate.
func Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !Public(ap.Addr()) {
		return ErrPrivate
	}
	return nil
}

// Public reports whether ip is a public unicast address: an IPv4 address
// (IPv4-mapped IPv6 included) outside the private and special ranges, or an
// IPv6 address in 2000::/3 outside the transition and documentation ranges.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid() || ip.Zone() != "":
		return false
	case ip.Is4():
		if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() || !ip.IsGlobalUnicast() {
			return false
		}
		return !inAny(blocked4, ip)
	}
	return globalUnicast6.Contains(ip) && !inAny(blocked6, ip)
}

func inAny(prefixes []netip.Prefix, ip netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
