package webhook

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/netguard"
)

func TestCheckURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, raw string
		insecure  bool
		want      string // the URL kept, or "" when refused
		why       string // a part of the refusal's message
	}{
		{"https", "https://hooks.example.com/reclaim", false, "https://hooks.example.com/reclaim", ""},
		{"spaces around", "  https://hooks.example.com/x?a=1 ", false, "https://hooks.example.com/x?a=1", ""},
		{"host lowercased", "https://Hooks.Example.COM/Path", false, "https://hooks.example.com/Path", ""},
		{"port", "https://hooks.example.com:8443/x", false, "https://hooks.example.com:8443/x", ""},
		{"public address", "https://8.8.8.8/x", false, "https://8.8.8.8/x", ""},
		{"public IPv6", "https://[2606:4700::6810:1]/x", false, "https://[2606:4700::6810:1]/x", ""},
		{"empty", "", false, "", "is required"},
		{"http", "http://hooks.example.com/x", false, "", "must use https"},
		{"http insecure", "http://127.0.0.1:9000/x", true, "http://127.0.0.1:9000/x", ""},
		{"loopback", "https://127.0.0.1/x", false, "", "private or reserved"},
		{"loopback insecure", "https://127.0.0.1/x", true, "https://127.0.0.1/x", ""},
		{"metadata", "https://169.254.169.254/latest/meta-data", false, "", "private or reserved"},
		{"IPv6 loopback", "https://[::1]/x", false, "", "private or reserved"},
		{"IPv4-mapped private", "https://[::ffff:10.0.0.1]/x", false, "", "private or reserved"},
		{"CGNAT", "https://100.64.1.1/x", false, "", "private or reserved"},
		{"zero", "https://0.0.0.0/x", false, "", "private or reserved"},
		{"ftp", "ftp://hooks.example.com/x", false, "", "must be an https"},
		{"javascript", "javascript:alert(1)", false, "", "must be an https"},
		{"no host", "https:///x", false, "", "must name a host"},
		{"opaque", "https:hooks.example.com", false, "", "must name a host"},
		{"relative", "/hooks", false, "", "must be an https"},
		{"credentials", "https://user:pass@hooks.example.com/x", false, "", "user or password"},
		{"fragment", "https://hooks.example.com/x#frag", false, "", "fragment"},
		{"bad port", "https://hooks.example.com:99999/x", false, "", "invalid port"},
		{"space", "https://hooks.example.com/a b", false, "", "spaces"},
		{"newline", "https://hooks.example.com/\nx", false, "", "spaces"},
		{"bad name", "https://hooks_.example..com/x", false, "", "invalid host name"},
		{"too long", "https://hooks.example.com/" + strings.Repeat("a", MaxURL), false, "", "longer than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := CheckURL(c.raw, c.insecure)
			if c.want != "" {
				if err != nil || got != c.want {
					t.Fatalf("CheckURL(%q) = %q, %v; want %q", c.raw, got, err, c.want)
				}
				return
			}
			f, ok := fault.As(err, fault.KindInvalid)
			if !ok || f.Param() != "url" || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("CheckURL(%q) = %q, %v; want an invalid url saying %q", c.raw, got, err, c.why)
			}
		})
	}
}

func TestCheckAddrs(t *testing.T) {
	t.Parallel()
	pub := []netip.Addr{netip.MustParseAddr("8.8.8.8")}
	mixed := []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("10.0.0.1")}
	if err := CheckAddrs("h", pub, false); err != nil {
		t.Errorf("public: %v", err)
	}
	if err := CheckAddrs("h", mixed, false); err == nil || !strings.Contains(err.Error(), "10.0.0.1") {
		t.Errorf("one private among public: %v", err)
	}
	if err := CheckAddrs("h", mixed, true); err != nil {
		t.Errorf("insecure: %v", err)
	}
	if err := CheckAddrs("h", nil, true); err == nil {
		t.Error("no address passes")
	}
}

func TestRedacted(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://h.example/x":              "https://h.example/x",
		"https://h.example/x?token=s3cr3t": "https://h.example/x?…",
		"https://h.example":                "https://h.example",
	} {
		if got := Redacted(raw); got != want || strings.Contains(got, "s3cr3t") {
			t.Errorf("Redacted(%q) = %q, want %q", raw, got, want)
		}
	}
	if Host("https://h.example:8443/x") != "h.example" || Host("https://8.8.8.8/x") != "" {
		t.Error("Host")
	}
}

// FuzzCheckURL: whatever a form or a command line sends, CheckURL answers
// an invalid fault naming url or a URL that parses back to itself, is
// https (http only when insecure), carries no credentials or fragment, and
// whose address host, when it has one, is public (unless insecure).
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://hooks.example.com/x", "http://127.0.0.1:9/x", "https://[::1]/", "https://[fe80::1%25eth0]/",
		"https://u:p@h/", "https://h/#f", "https://0x7f.1/", "https://2130706433/", "https://h:0/", "\x00", "https://h/%zz",
		"HTTPS://H/", "https://xn--bcher-kva.example/", "https://[::ffff:169.254.169.254]/",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, insecure bool) {
		got, err := CheckURL(raw, insecure)
		if err != nil {
			var fe *fault.Error
			if !errors.As(err, &fe) || fe.Kind() != fault.KindInvalid || fe.Param() != "url" {
				t.Fatalf("CheckURL(%q): %v is not an invalid url", raw, err)
			}
			return
		}
		again, err := CheckURL(got, insecure)
		if err != nil || again != got {
			t.Fatalf("CheckURL(%q) = %q, which checks as %q, %v", raw, got, again, err)
		}
		if strings.Contains(got, "@") && strings.Index(got, "@") < strings.Index(got+"/", "/") {
			t.Fatalf("%q keeps credentials", got)
		}
		if !strings.HasPrefix(got, "https://") && !(insecure && strings.HasPrefix(got, "http://")) {
			t.Fatalf("%q: scheme", got)
		}
		if h := Host(got); h == "" && !insecure {
			// An address host: public.
			rest := strings.TrimPrefix(strings.TrimPrefix(got, "https://"), "http://")
			host := rest[:strings.IndexAny(rest+"/", "/?")]
			if i := strings.LastIndex(host, ":"); i > 0 && !strings.HasSuffix(host, "]") {
				host = host[:i]
			}
			if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && !netguard.Public(ip) {
				t.Fatalf("%q reaches %s", got, ip)
			}
		}
	})
}
