package clientip_test

import (
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
)

func mustPrefixes(t testing.TB, s string) []netip.Prefix {
	t.Helper()
	p, err := clientip.ParsePrefixes(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKey(t *testing.T) {
	t.Parallel()
	trusted := clientip.New(mustPrefixes(t, "10.0.0.0/8, 192.0.2.7, 2001:db8:ffff::/48"))
	cases := []struct {
		name   string
		r      *clientip.Resolver
		remote string
		xff    []string
		want   string
	}{
		{name: "no proxy trusted: the peer", r: nil, remote: "198.51.100.1:4000", want: "198.51.100.1"},
		{name: "untrusted peer's header is ignored", r: trusted, remote: "198.51.100.1:4000", xff: []string{"203.0.113.9"}, want: "198.51.100.1"},
		{name: "zero resolver trusts none", r: &clientip.Resolver{}, remote: "10.0.0.2:4000", xff: []string{"203.0.113.9"}, want: "10.0.0.2"},
		{name: "trusted proxy reports the client", r: trusted, remote: "10.0.0.2:4000", xff: []string{"203.0.113.9"}, want: "203.0.113.9"},
		{name: "a single trusted address", r: trusted, remote: "192.0.2.7:80", xff: []string{"203.0.113.9"}, want: "203.0.113.9"},
		{name: "what the client wrote is left of its address", r: trusted, remote: "10.0.0.2:4000", xff: []string{"6.6.6.6, 203.0.113.9"}, want: "203.0.113.9"},
		{name: "a client spoofing a trusted address is itself", r: trusted, remote: "10.0.0.2:4000", xff: []string{"10.9.9.9, 203.0.113.9"}, want: "203.0.113.9"},
		{name: "chain of trusted proxies", r: trusted, remote: "10.0.0.2:4000", xff: []string{"6.6.6.6, 203.0.113.9, 10.1.1.1"}, want: "203.0.113.9"},
		{name: "header lines are one list", r: trusted, remote: "10.0.0.2:4000", xff: []string{"6.6.6.6", "203.0.113.9, 10.1.1.1"}, want: "203.0.113.9"},
		{name: "all trusted: the furthest", r: trusted, remote: "10.0.0.2:4000", xff: []string{"10.1.1.1"}, want: "10.1.1.1"},
		{name: "trusted peer without header", r: trusted, remote: "10.0.0.2:4000", want: "10.0.0.2"},
		{name: "garbage stops at the proxy that wrote it", r: trusted, remote: "10.0.0.2:4000", xff: []string{"203.0.113.9, garbage"}, want: "10.0.0.2"},
		{name: "empty entry stops too", r: trusted, remote: "10.0.0.2:4000", xff: []string{"203.0.113.9,"}, want: "10.0.0.2"},
		{name: "entry with a port", r: trusted, remote: "10.0.0.2:4000", xff: []string{"203.0.113.9:5555"}, want: "203.0.113.9"},
		{name: "IPv4-mapped peer", r: trusted, remote: "[::ffff:10.0.0.2]:4000", xff: []string{"203.0.113.9"}, want: "203.0.113.9"},
		{name: "IPv6 client keyed by its /64", r: trusted, remote: "10.0.0.2:4000", xff: []string{"2001:db8:1:2:aaaa::1"}, want: "2001:db8:1:2::/64"},
		{name: "bracketed IPv6 entry with port", r: trusted, remote: "10.0.0.2:4000", xff: []string{"[2001:db8:1:2::9]:443"}, want: "2001:db8:1:2::/64"},
		{name: "IPv6 peer", r: nil, remote: "[2001:db8:5:6:7::1]:4000", want: "2001:db8:5:6::/64"},
		{name: "trusted IPv6 proxy", r: trusted, remote: "[2001:db8:ffff:1::2]:4000", xff: []string{"198.51.100.4"}, want: "198.51.100.4"},
		{name: "zone dropped", r: nil, remote: "[fe80::1%eth0]:4000", want: "fe80::/64"},
		{name: "no IP peer", r: trusted, remote: "pipe", xff: []string{"203.0.113.9"}, want: "pipe"},
		{name: "peer without port", r: nil, remote: "198.51.100.1", want: "198.51.100.1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := c.r.Key(c.remote, c.xff); got != c.want {
				t.Errorf("Key(%q, %q) = %q, want %q", c.remote, c.xff, got, c.want)
			}
		})
	}
}

// A trusted chain longer than any deployment's stops at maxHops: the
// client is never read from past it.
func TestKeyBoundsHops(t *testing.T) {
	t.Parallel()
	r := clientip.New(mustPrefixes(t, "10.0.0.0/8"))
	xff := "203.0.113.9" + strings.Repeat(", 10.0.0.1", 40)
	if got := r.Key("10.0.0.2:1", []string{xff}); got != "10.0.0.1" {
		t.Errorf("Key behind 40 trusted hops = %q, want the last hop read", got)
	}
}

func TestParsePrefixes(t *testing.T) {
	t.Parallel()
	got, err := clientip.ParsePrefixes(" 10.1.2.3/8 ,192.0.2.7, ::ffff:192.0.2.8, 2001:db8::/32,")
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, p := range got {
		s = append(s, p.String())
	}
	if strings.Join(s, " ") != "10.0.0.0/8 192.0.2.7/32 192.0.2.8/32 2001:db8::/32" {
		t.Errorf("ParsePrefixes = %q", s)
	}
	if got, err := clientip.ParsePrefixes(""); err != nil || got != nil {
		t.Errorf("ParsePrefixes(\"\") = %v, %v, want none", got, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "lb", "10.0.0.1:80", "fe80::1%eth0", "10.0.0.0/8;"} {
		if _, err := clientip.ParsePrefixes(bad); err == nil || !strings.Contains(err.Error(), "CIDR") {
			t.Errorf("ParsePrefixes(%q) = %v, want an error saying what to write", bad, err)
		}
	}
}

// FuzzKey: whatever a client sends, Key never panics, an untrusted peer's
// header never changes its key, and a trusted peer's client is the peer or
// an address written in the header.
func FuzzKey(f *testing.F) {
	f.Add("10.0.0.2:4000", "6.6.6.6, 203.0.113.9")
	f.Add("[2001:db8::1]:1", "[::1]:2, garbage,")
	f.Add("198.51.100.1:1", "10.0.0.1")
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")}
	r := clientip.New(trusted)
	f.Fuzz(func(t *testing.T, remote, xff string) {
		key := r.Key(remote, []string{xff})
		a, ok := r.Addr(remote, []string{xff})
		peer, _ := r.Addr(remote, nil)
		if !ok {
			if key != remote {
				t.Fatalf("Key(%q) = %q, want the remote address itself", remote, key)
			}
			return
		}
		if !trustedBy(trusted, peer) {
			if want := (*clientip.Resolver)(nil).Key(remote, nil); key != want {
				t.Fatalf("untrusted peer %q with header %q: key %q, want %q", remote, xff, key, want)
			}
			return
		}
		if a != peer && !inHeader(a, xff) {
			t.Fatalf("peer %q, header %q: client %v is neither", remote, xff, a)
		}
	})
}

func trustedBy(trusted []netip.Prefix, a netip.Addr) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// inHeader reports whether an entry of xff is a, with or without a port.
func inHeader(a netip.Addr, xff string) bool {
	for _, e := range strings.Split(xff, ",") {
		e = strings.TrimSpace(e)
		if b, err := netip.ParseAddr(e); err == nil && b.Unmap().WithZone("") == a {
			return true
		}
		if ap, err := netip.ParseAddrPort(e); err == nil && ap.Addr().Unmap().WithZone("") == a {
			return true
		}
		if host, _, err := net.SplitHostPort(e); err == nil {
			if b, err := netip.ParseAddr(host); err == nil && b.Unmap().WithZone("") == a {
				return true
			}
		}
	}
	return false
}
