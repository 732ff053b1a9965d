// Package images finds the image of an on-chain asset: it fetches the
// metadata JSON behind the asset's URI (Metaplex's off-chain metadata) and
// takes its "image" (else the first image among properties.files), if
// assets.ImageURI lets it through: http(s), ipfs:// or ar://.
//
// It is built to sit inside a listing without slowing it: Resolve returns
// what it has when its budget (Options.Budget, or the caller's deadline less
// Options.Margin, whichever comes first) runs out; fetches still running go
// on in the background, bounded by Options.Timeout, and fill the cache for the
// next listing. At most Options.Concurrency fetches run at once across all
// callers, and one URI is fetched once however many listings ask for it at
// the same time. Results are cached in a bounded LRU: an image for
// Options.TTL, a failure or a JSON without image for Options.NegativeTTL.
//
// Only http and https URIs are fetched (ipfs:// and ar:// are not mapped to
// gateways), with no proxy, at most 3 redirects, and a body cap
// (Options.MaxBody). Any content type is tried as JSON: metadata hosts serve
// text/plain and application/octet-stream as often as JSON. Connections to
// loopback, private, link-local, CGNAT, multicast and other special addresses
// (IPv6 outside the global unicast 2000::/3, and the transition ranges
// within it: Teredo, 6to4; see netguard.Public) are refused at dial time, after DNS
// resolution, so a URI (or a redirect, or a DNS answer) cannot make the
// service reach its own network; tests allow them with Options.AllowPrivate.
package images

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/netguard"
)

// Options tune a Resolver; zero values take the defaults.
type Options struct {
	// Timeout bounds one fetch (default 1.5 s).
	Timeout time.Duration
	// Budget bounds one Resolve (default 2 s).
	Budget time.Duration
	// Margin is kept before the caller's deadline (default 50 ms).
	Margin time.Duration
	// MaxBody caps a metadata JSON (default 256 KiB).
	MaxBody int64
	// Concurrency is the most fetches at once (default 16).
	Concurrency int
	// CacheSize is the most URIs cached (default 50,000).
	CacheSize int
	// TTL keeps an image (default 1 h); NegativeTTL keeps a failure (default 5 min).
	TTL, NegativeTTL time.Duration
	// AllowPrivate lets fetches reach loopback and private addresses: tests only.
	AllowPrivate bool
}

func (o *Options) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Timeout, 1500*time.Millisecond)
	def(&o.Budget, 2*time.Second)
	def(&o.Margin, 50*time.Millisecond)
	def(&o.TTL, time.Hour)
	def(&o.NegativeTTL, 5*time.Minute)
	if o.MaxBody <= 0 {
		o.MaxBody = 256 << 10
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 50_000
	}
}

// Resolver resolves metadata URIs to image URIs.
type Resolver struct {
	opts   Options
	http   *http.Client
	cache  *cache
	slots  chan struct{}
	mu     sync.Mutex
	flight map[string]*call
	// now is the cache's clock (deadlines are wall time).
	now func() time.Time
}

type call struct {
	done  chan struct{}
	image string
}

// New returns a Resolver with its own HTTP client.
func New(opts Options) *Resolver {
	opts.defaults()
	dialer := &net.Dialer{Timeout: opts.Timeout}
	if !opts.AllowPrivate {
		dialer.Control = netguard.Control
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
	}
	client := &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("more than 3 redirects")
			}
			return checkURL(req.URL)
		},
	}
	return &Resolver{
		opts: opts, http: client, cache: newCache(opts.CacheSize), slots: make(chan struct{}, opts.Concurrency),
		flight: map[string]*call{}, now: time.Now,
	}
}

// Fill sets ImageURI on the items that have a URI and no image yet, within
// Resolve's budget: the one line a listing needs.
func (r *Resolver) Fill(ctx context.Context, items []assets.Item) {
	var uris []string
	for _, it := range items {
		if it.URI != "" && it.ImageURI == "" {
			uris = append(uris, it.URI)
		}
	}
	if len(uris) == 0 {
		return
	}
	found := r.Resolve(ctx, uris)
	for i := range items {
		if items[i].ImageURI == "" {
			items[i].ImageURI = found[items[i].URI]
		}
	}
}

// Resolve returns the image of each URI it knows by the end of its budget;
// URIs without a known image are absent from the map.
func (r *Resolver) Resolve(ctx context.Context, uris []string) map[string]string {
	ctx, cancel := r.budget(ctx)
	defer cancel()
	out := make(map[string]string, len(uris))
	var waits []string
	calls := map[string]*call{}
	for _, u := range uris {
		if _, ok := out[u]; ok || calls[u] != nil {
			continue
		}
		if img, ok := r.cache.get(u, r.now()); ok {
			if img != "" {
				out[u] = img
			}
			continue
		}
		calls[u] = r.start(ctx, u)
		waits = append(waits, u)
	}
	for _, u := range waits {
		select {
		case <-calls[u].done:
			if img := calls[u].image; img != "" {
				out[u] = img
			}
		case <-ctx.Done():
			return r.collect(out, waits, calls)
		}
	}
	return out
}

// collect adds the fetches that did finish when the budget ran out.
func (r *Resolver) collect(out map[string]string, waits []string, calls map[string]*call) map[string]string {
	for _, u := range waits {
		select {
		case <-calls[u].done:
			if img := calls[u].image; img != "" {
				out[u] = img
			}
		default:
		}
	}
	return out
}

// budget ends at Budget from now, or Margin before the caller's deadline.
func (r *Resolver) budget(ctx context.Context) (context.Context, context.CancelFunc) {
	end := time.Now().Add(r.opts.Budget)
	if d, ok := ctx.Deadline(); ok && d.Add(-r.opts.Margin).Before(end) {
		end = d.Add(-r.opts.Margin)
	}
	return context.WithDeadline(ctx, end)
}

// start joins the fetch of u in flight, or starts one. A fetch that has not
// got a slot when wait ends is given up (nothing is cached); one that has runs
// to its own Timeout, detached from the caller.
func (r *Resolver) start(wait context.Context, u string) *call {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.flight[u]; c != nil {
		return c
	}
	c := &call{done: make(chan struct{})}
	r.flight[u] = c
	go func() {
		defer func() {
			r.mu.Lock()
			delete(r.flight, u)
			r.mu.Unlock()
			close(c.done)
		}()
		select {
		case r.slots <- struct{}{}:
		case <-wait.Done():
			return
		}
		defer func() { <-r.slots }()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(wait), r.opts.Timeout)
		defer cancel()
		img, err := r.fetch(ctx, u)
		ttl := r.opts.TTL
		if err != nil || img == "" {
			img, ttl = "", r.opts.NegativeTTL
		}
		c.image = img
		r.cache.put(u, img, r.now().Add(ttl))
	}()
	return c
}

var errScheme = errors.New("not an http or https url")

func checkURL(u *url.URL) error {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errScheme
	}
	return nil
}

// metadata is the part of a Metaplex metadata JSON read here.
type metadata struct {
	Image      any `json:"image"`
	Properties struct {
		Files []struct {
			URI  any `json:"uri"`
			Type any `json:"type"`
		} `json:"files"`
	} `json:"properties"`
}

func (r *Resolver) fetch(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if err := checkURL(u); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	res, err := r.http.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		return "", fmt.Errorf("status %s", res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, r.opts.MaxBody+1))
	if err != nil {
		return "", err
	}
	if int64(len(body)) > r.opts.MaxBody {
		return "", fmt.Errorf("body over %d bytes", r.opts.MaxBody)
	}
	var m metadata
	if err := json.Unmarshal(body, &m); err != nil {
		return "", err
	}
	if s, ok := m.Image.(string); ok && assets.ImageURI(s) != "" {
		return assets.ImageURI(s), nil
	}
	for _, f := range m.Properties.Files {
		s, _ := f.URI.(string)
		t, _ := f.Type.(string)
		if strings.HasPrefix(t, "image/") && assets.ImageURI(s) != "" {
			return assets.ImageURI(s), nil
		}
	}
	return "", nil
}
