package main

import (
	"io"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/config"
)

// -trusted-proxies and -secure-cookies override RECLAIM_TRUSTED_PROXIES and
// RECLAIM_SECURE_COOKIES, and refuse what they cannot read.
func TestServeEdgeFlags(t *testing.T) {
	cases := []struct {
		args    []string
		trusted string
		secure  bool // for -addr 0.0.0.0:8080
		wantErr string
	}{
		{args: nil, secure: true},
		{args: []string{"-trusted-proxies", "10.0.0.0/8, 192.0.2.7"}, trusted: "10.0.0.0/8 192.0.2.7/32", secure: true},
		{args: []string{"-secure-cookies=false"}, secure: false},
		{args: []string{"-secure-cookies"}, secure: true},
		{args: []string{"-trusted-proxies", "balancer"}, wantErr: "CIDR"},
		{args: []string{"-secure-cookies=sometimes"}, wantErr: "secure-cookies"},
	}
	for _, c := range cases {
		cfg := config.Default()
		cfg.Addr = "0.0.0.0:8080"
		fs := serveFlags(&cfg)
		fs.SetOutput(io.Discard)
		err := fs.Parse(c.args)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: %v, want an error about %s", c.args, err, c.wantErr)
			}
			continue
		}
		var trusted []string
		for _, p := range cfg.TrustedProxies {
			trusted = append(trusted, p.String())
		}
		if err != nil || strings.Join(trusted, " ") != c.trusted || cfg.SecureCookiesOn(cfg.Addr) != c.secure {
			t.Errorf("%q: %v, trusted %q, Secure cookies %v; want %q and %v", c.args, err, trusted, cfg.SecureCookiesOn(cfg.Addr), c.trusted, c.secure)
		}
	}
}
