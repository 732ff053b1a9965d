package netguard

import (
	"net/netip"
	"testing"
)

// TestPublic is the SSRF filter's table: every special range,
// written every way an address can reach the dialler (IPv4-mapped,
// IPv4-compatible, NAT64 with an embedded private address, the tunnels
// the audit found open: local-use NAT64 64:ff9b:1::/48, 6to4 2002::/16 and
// Teredo 2001::/32), is refused; public unicast of both families passes.
func TestPublic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr string
		want bool
	}{
		{"8.8.8.8", true},
		{"104.18.2.1", true},
		{"2606:4700::6810:1", true},
		{"2a00:1450:4001:82b::200e", true},
		{"::ffff:8.8.8.8", true}, // IPv4-mapped public: reaches 8.8.8.8
		{"127.0.0.1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"100.64.0.1", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"224.0.0.1", false},
		{"255.255.255.255", false},
		{"240.0.0.1", false},
		{"198.18.0.1", false},
		{"192.0.0.8", false},
		{"192.0.2.1", false},
		{"198.51.100.7", false},
		{"203.0.113.9", false},
		{"192.88.99.1", false},
		{"::1", false},
		{"::", false},
		{"fe80::1", false},
		{"fe80::1%eth0", false},
		{"fec0::1", false}, // site-local (deprecated)
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"ff02::1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"::127.0.0.1", false},                 // IPv4-compatible
		{"::10.0.0.1", false},                  // IPv4-compatible
		{"::8.8.8.8", false},                   // IPv4-compatible: deprecated, never dialled
		{"::ffff:0:10.0.0.1", false},           // IPv4-translated (SIIT)
		{"64:ff9b::a00:1", false},              // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", false},             // NAT64 of 127.0.0.1
		{"64:ff9b::808:808", false},            // NAT64 of 8.8.8.8: a translator of the operator's network
		{"64:ff9b:1::a00:1", false},            // local-use NAT64 (the audit's)
		{"64:ff9b:1:ffff::1", false},           // local-use NAT64
		{"2002:7f00:1::1", false},              // 6to4 of 127.0.0.1 (the audit's)
		{"2002:a00:1::1", false},               // 6to4 of 10.0.0.1
		{"2001:0:4136:e378::1", false},         // Teredo (the audit's)
		{"2001:0:0:0:0:ffff:f5ff:fffe", false}, // Teredo, client 10.0.0.1 (obfuscated)
		{"2001:2::1", false},                   // benchmarking
		{"2001:10::1", false},                  // ORCHID
		{"2001:db8::1", false},                 // documentation
		{"3fff::1", false},                     // documentation
		{"100::1", false},                      // discard-only
		{"4000::1", false},                     // unallocated, outside 2000::/3
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			t.Parallel()
			ip := netip.MustParseAddr(c.addr)
			if got := Public(ip); got != c.want {
				t.Fatalf("Public(%s) = %v, want %v", c.addr, got, c.want)
			}
			// The dialler sees the address as host:port.
			err := Control("tcp", netip.AddrPortFrom(ip, 443).String(), nil)
			if (err == nil) != c.want {
				t.Fatalf("dial %s: %v", c.addr, err)
			}
		})
	}
}
