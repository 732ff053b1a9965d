// Package receiver posts webhook events to integrators' receivers: one
// HTTP POST per attempt, bounded by a timeout, with no proxy and no
// redirect followed (a 30x is the receiver's answer, and a failure), and
// every connection refused at dial time unless its address is public
// (netguard.Control), whatever the URL's name resolves to at that moment;
// so a receiver's URL, its DNS or its redirects cannot make the service
// reach its own network. AllowPrivate lifts that for local development.
package receiver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reclaim-sol/reclaim/backend/pkg/netguard"
	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
)

// Options tune a Client; zero values take the defaults.
type Options struct {
	// Timeout bounds one attempt, from dialling to reading the answer's
	// first bytes (default 10 s).
	Timeout time.Duration
	// MaxResponse is how much of an answer's body is kept (default 512).
	MaxResponse int
	// AllowPrivate lets attempts reach loopback and private addresses
	// (RECLAIM_WEBHOOK_ALLOW_INSECURE): local development and tests only.
	AllowPrivate bool
	// UserAgent names the sender (default "Reclaim-Webhooks/1").
	UserAgent string
}

// Client posts events. It is safe for concurrent use.
type Client struct {
	http *http.Client
	opts Options
}

// New returns a Client with its own connections.
func New(opts Options) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxResponse <= 0 {
		opts.MaxResponse = 512
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "Reclaim-Webhooks/1"
	}
	dialer := &net.Dialer{Timeout: opts.Timeout}
	if !opts.AllowPrivate {
		dialer.Control = netguard.Control
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
	}
	return &Client{opts: opts, http: &http.Client{
		Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

// Answer is what a receiver answered.
type Answer struct {
	// Status is its HTTP status.
	Status int
	// Body is the first MaxResponse bytes of its body, as valid UTF-8.
	Body string
	// Location is where a redirect pointed (not followed), with its query
	// left out.
	Location string
	// Latency is from sending the request to its answer's head.
	Latency time.Duration
}

// Post sends body as JSON to url, with header, and returns the answer, or
// an error that says why there was none (a refused address, a timeout, a
// TLS or connection failure), with no URL in it but its scheme and host.
func (c *Client) Post(ctx context.Context, url string, header map[string]string, body []byte) (Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Answer{}, errors.New("the URL does not make a request")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.opts.UserAgent)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	start := time.Now()
	res, err := c.http.Do(req)
	if err != nil {
		return Answer{}, c.why(ctx, err)
	}
	defer res.Body.Close()
	a := Answer{Status: res.StatusCode, Latency: time.Since(start)}
	if loc := res.Header.Get("Location"); loc != "" && res.StatusCode/100 == 3 {
		a.Location, _, _ = strings.Cut(loc, "?")
	}
	first, _ := io.ReadAll(io.LimitReader(res.Body, int64(c.opts.MaxResponse)))
	a.Body = strings.ToValidUTF8(string(first), string(utf8.RuneError))
	return a, nil
}

// why says, for a person and a log, why an attempt got no answer. The
// transport's header timeout and the attempt's deadline are the same
// duration, so either may fire first: both are "no answer within".
func (c *Client) why(ctx context.Context, err error) error {
	var timeout net.Error
	switch {
	case errors.Is(err, netguard.ErrPrivate):
		return errors.New("refused: the host resolves to a private or reserved address")
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.As(err, &timeout) && timeout.Timeout():
		return fmt.Errorf("no answer within %s", c.opts.Timeout)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return fmt.Errorf("DNS: %s", dns.Err)
	}
	return redact.Error(err)
}
