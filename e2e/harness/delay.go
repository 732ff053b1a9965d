package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/upstream/jsonrpc"
)

// DelayProxy stands in front of the validator's JSON-RPC endpoint as a remote
// RPC provider would: every request waits half the delay before it is
// forwarded and half after the validator answers, so each call costs one
// network round trip of the delay. It records every request's method and its
// [start, end] as the proxy saw them, from which RoundTrips counts the
// sequential round trips an operation took.
type DelayProxy struct {
	// URL is the proxy's JSON-RPC endpoint (http://127.0.0.1:port).
	URL string

	mu    sync.Mutex
	delay time.Duration
	calls []Call
}

// Call is one JSON-RPC request through a DelayProxy.
type Call struct {
	// Method is the JSON-RPC method; a batch is its methods joined by ",".
	Method string
	// Start is when the proxy received the request, End when it answered.
	Start, End time.Time
	// Sent is when the proxy forwarded it (half the delay after Start);
	// Upstream is how long the validator then took to answer.
	Sent     time.Time
	Upstream time.Duration
	// Caller is the request's X-Reclaim-Caller header: the part of the
	// service that made it ("api", "poller", "tracker"...).
	Caller string
}

// NewDelayProxy starts a proxy to v's JSON-RPC endpoint that adds delay to
// every request; it stops when t ends.
func (v *Validator) NewDelayProxy(t testing.TB, delay time.Duration) *DelayProxy {
	t.Helper()
	target, err := url.Parse(v.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := &DelayProxy{delay: delay}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &delayTransport{p: p, next: &http.Transport{
		Proxy: nil, MaxIdleConns: 512, MaxIdleConnsPerHost: 512, IdleConnTimeout: time.Minute,
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	p.URL = "http://" + ln.Addr().String()
	return p
}

// SetDelay changes the delay of the requests that start from now on.
func (p *DelayProxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// Since returns the requests that started at or after start, in the order
// they started.
func (p *DelayProxy) Since(start time.Time) []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Call
	for _, c := range p.calls {
		if !c.Start.Before(start) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Call) int { return a.Start.Compare(b.Start) })
	return out
}

// RoundTrips is the critical path of calls in round trips: the longest chain
// of calls each of which started after the previous one had ended. Calls
// issued together count once; a call that waited for another (for its
// answer, or for a free slot under a concurrency limit) counts again.
func RoundTrips(calls []Call) int {
	sorted := slices.Clone(calls)
	slices.SortFunc(sorted, func(a, b Call) int { return a.Start.Compare(b.Start) })
	chain := make([]int, len(sorted))
	longest := 0
	for i, c := range sorted {
		chain[i] = 1
		for j := range i {
			if !sorted[j].End.After(c.Start) {
				chain[i] = max(chain[i], chain[j]+1)
			}
		}
		longest = max(longest, chain[i])
	}
	return longest
}

// Busy is how long the validator had at least one of calls to answer: the
// union of their [Sent, Sent+Upstream]. The local validator answers one
// request at a time, so this is the time it spent on them, waiting for it
// included.
func Busy(calls []Call) time.Duration {
	spans := make([][2]time.Time, len(calls))
	for i, c := range calls {
		spans[i] = [2]time.Time{c.Sent, c.Sent.Add(c.Upstream)}
	}
	slices.SortFunc(spans, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var total time.Duration
	var end time.Time
	for _, sp := range spans {
		if sp[0].After(end) {
			total += sp[1].Sub(sp[0])
			end = sp[1]
		} else if sp[1].After(end) {
			total += sp[1].Sub(end)
			end = sp[1]
		}
	}
	return total
}

// Methods counts calls per method.
func Methods(calls []Call) map[string]int {
	out := map[string]int{}
	for _, c := range calls {
		out[c.Method]++
	}
	return out
}

type delayTransport struct {
	p    *DelayProxy
	next http.RoundTripper
}

// RoundTrip waits half the delay, forwards the request, reads the whole
// answer, waits the other half, and records the call.
func (t *delayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	t.p.mu.Lock()
	delay := t.p.delay
	t.p.mu.Unlock()
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	if err := pause(req, delay/2); err != nil {
		return nil, err
	}
	sent := time.Now()
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	answer, err := jsonrpc.ReadBody(resp)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	upstream := time.Since(sent)
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	if err := pause(req, delay-delay/2); err != nil {
		return nil, err
	}
	t.p.mu.Lock()
	t.p.calls = append(t.p.calls, Call{Method: methodOf(body), Start: start, End: time.Now(), Sent: sent, Upstream: upstream, Caller: req.Header.Get("X-Reclaim-Caller")})
	t.p.mu.Unlock()
	return resp, nil
}

// pause sleeps d, or less when the client gives up.
func pause(req *http.Request, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-req.Context().Done():
		return errors.Join(errClientGone, req.Context().Err())
	}
}

var errClientGone = errors.New("delay proxy: the client went away")

// methodOf is the JSON-RPC method of a request body, or the methods of a
// batch joined by ",".
func methodOf(body []byte) string {
	var one struct{ Method string }
	if json.Unmarshal(body, &one) == nil {
		return one.Method
	}
	var batch []struct{ Method string }
	if json.Unmarshal(body, &batch) != nil {
		return "?"
	}
	names := make([]string, len(batch))
	for i, b := range batch {
		names[i] = b.Method
	}
	return strings.Join(names, ",")
}
