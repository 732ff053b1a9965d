package redact

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// The secret in each case is "S3CR3T": none may survive.
func TestURL(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"https://mainnet.helius-rpc.com/?api-key=S3CR3T", "https://mainnet.helius-rpc.com"},
		{"https://solana-mainnet.g.alchemy.com/v2/S3CR3T", "https://solana-mainnet.g.alchemy.com"},
		{"https://name.solana-mainnet.quiknode.pro/S3CR3T/", "https://name.solana-mainnet.quiknode.pro"},
		{"postgres://reclaim:S3CR3T@db:5432/reclaim?sslmode=disable", "postgres://db:5432"},
		{"redis://:S3CR3T@redis:6379/0", "redis://redis:6379"},
		{"http://user:S3CR3T@[::1]:4318/v1/traces#S3CR3T", "http://[::1]:4318"},
		{"  http://127.0.0.1:8899  ", "http://127.0.0.1:8899"},
		{"", ""},
		{"S3CR3T", "(redacted URL)"},
		{"postgres://u:S3 CR3T@h/db", "(redacted URL)"},
		{"mailto:S3CR3T@example.com", "(redacted URL)"},
	}
	for _, c := range cases {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	endpoint := "https://rpc.example/S3CR3T/?api-key=S3CR3T"
	ue := &url.Error{Op: "Post", URL: endpoint, Err: context.DeadlineExceeded}
	// What url.Parse answers for a space in the password.
	parseErr := &url.Error{Op: "parse", URL: "postgres://u:S3 CR3T@h/db", Err: errors.New("net/url: invalid userinfo")}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"net/http's error", ue, `Post "https://rpc.example": context deadline exceeded`},
		{"solana-go's, wrapping it", fmt.Errorf("rpc call getHealth() on %s: %w", endpoint, ue),
			`rpc call getHealth() on https://rpc.example: Post "https://rpc.example": context deadline exceeded`},
		{"OpenTelemetry's exporter", errors.New("failed to send to http://127.0.0.1:4318/S3CR3T/v1/traces: 500 Internal Server Error (body: (empty))"),
			"failed to send to http://127.0.0.1:4318: 500 Internal Server Error (body: (empty))"},
		{"an unparsable URL, quoted whole", fmt.Errorf("DATABASE_URL: %w", parseErr), `DATABASE_URL: parse "(redacted URL)": net/url: invalid userinfo`},
		{"in parentheses", errors.New("dial (http://h/S3CR3T)"), "dial (http://h)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Error(c.err)
			if got.Error() != c.want || strings.Contains(got.Error(), "S3CR3T") {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if !errors.Is(got, c.err) {
				t.Fatal("the original error is lost")
			}
		})
	}
	if Error(nil) != nil {
		t.Fatal("nil is not nil")
	}
	plain := errors.New("no url here")
	if Error(plain) != plain {
		t.Fatal("an error without a URL is replaced")
	}
	if !errors.Is(Error(ue), context.DeadlineExceeded) {
		t.Fatal("the cause is lost")
	}
}
