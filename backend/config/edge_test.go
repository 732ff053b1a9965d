package config_test

import (
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/config"
)

func TestEdge(t *testing.T) {
	t.Parallel()
	d := config.Default()
	if d.TrustedProxies != nil || d.SecureCookies != nil {
		t.Fatalf("default edge %+v, want no trusted proxy and Secure cookies decided by the address", d.Edge)
	}
	c, err := config.Load(env(map[string]string{"RECLAIM_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7", "RECLAIM_SECURE_COOKIES": "false"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[0].String() != "10.0.0.0/8" || c.TrustedProxies[1].String() != "192.0.2.7/32" {
		t.Errorf("TrustedProxies = %v", c.TrustedProxies)
	}
	if c.SecureCookiesOn("0.0.0.0:8080") {
		t.Error("RECLAIM_SECURE_COOKIES=false: Secure cookies on 0.0.0.0")
	}
	on := true
	cases := []struct {
		addr string
		set  *bool
		want bool
	}{
		{"127.0.0.1:8080", nil, false},
		{"[::1]:8080", nil, false},
		{"localhost:8080", nil, false},
		{"127.0.0.2:0", nil, false},
		{"0.0.0.0:8080", nil, true},
		{":8080", nil, true},
		{"[::]:8080", nil, true},
		{"192.0.2.10:8080", nil, true},
		{"reclaim.internal:8080", nil, true},
		{"127.0.0.1:8080", &on, true},
	}
	for _, c := range cases {
		if got := (config.Edge{SecureCookies: c.set}).SecureCookiesOn(c.addr); got != c.want {
			t.Errorf("SecureCookiesOn(%q) with %v set = %v, want %v", c.addr, c.set, got, c.want)
		}
	}
	for name, v := range map[string]string{"RECLAIM_TRUSTED_PROXIES": "balancer", "RECLAIM_SECURE_COOKIES": "sometimes"} {
		if _, err := config.Load(env(map[string]string{name: v})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
		}
	}
}
