// Package redact keeps the secrets that ride in URLs out of logs and error
// messages. RPC providers put API keys in a URL's query (?api-key=...) or
// path (/v2/<key>), database and Redis URLs carry passwords, and Go's HTTP
// client, solana-go and OpenTelemetry's exporter print whole URLs in their
// errors. What may be shown of a URL is its scheme and host.
package redact

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// URL is raw's scheme and host ("https://mainnet.helius-rpc.com:443"),
// without userinfo, path, query or fragment; "" for "", and a placeholder
// for a value that does not parse as a URL with a host (it may be a secret
// itself).
func URL(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "(redacted URL)"
	}
	return u.Scheme + "://" + u.Host
}

// inText is a URL written in text: a scheme, "://", and what follows up to
// a space, a quote or an angle bracket.
var inText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>` + "`" + `]+`)

// String is s with every URL in it reduced to its scheme and host.
func String(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return inText.ReplaceAllStringFunc(s, func(u string) string {
		// Punctuation that ends a sentence or a clause ("on https://host/:
		// timeout") is not the URL's.
		trimmed := strings.TrimRight(u, ".,;:)]")
		return URL(trimmed) + u[len(trimmed):]
	})
}

// Error is err with every URL in its message reduced to its scheme and
// host; errors.Is and errors.As still see err. A *url.Error's URL goes
// whole, even one that does not parse (url.Parse's own errors quote it).
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		msg = strings.ReplaceAll(msg, ue.URL, URL(ue.URL))
	}
	if msg = String(msg); msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}

// redacted reads without the URLs of the error it replaces.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }
