// Package jupiter reads USD token prices from an HTTP API shaped like Jupiter's
// Price API v2: GET {url}?ids=mint1,mint2,... answers
// {"data": {"<mint>": {"id": "<mint>", "price": "1.23"}}}, with null for a mint
// it has no price for. Client satisfies assets.PriceSource; it lives apart from
// package assets so that discovery itself imports no net/http.
package jupiter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
)

// Defaults of a Client.
const (
	// DefaultTimeout bounds one Prices call, all requests included: prices are a
	// nicety, and a listing must not wait on them.
	DefaultTimeout = 1500 * time.Millisecond
	// DefaultMaxBody caps each response body.
	DefaultMaxBody = 1 << 20
	// MaxIDs is the most mints one request asks for (Jupiter's v2 limit).
	MaxIDs = 100
)

// Client asks a Jupiter-v2-compatible price API.
type Client struct {
	url     string
	http    *http.Client
	timeout time.Duration
	maxBody int64
}

// New returns a Client for the API at url (e.g. https://api.jup.ag/price/v2) using
// httpClient (nil: http.DefaultClient) with DefaultTimeout and DefaultMaxBody.
func New(url string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &Client{url: url, http: httpClient, timeout: DefaultTimeout, maxBody: DefaultMaxBody}
}

// Prices returns the USD price of each mint the API knows, asking MaxIDs mints
// per request. Any failure (timeout, status, oversized or malformed body) fails
// the whole call: the caller then shows no prices rather than some.
func (c *Client) Prices(ctx context.Context, mints []string) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	out := make(map[string]float64, len(mints))
	for start := 0; start < len(mints); start += MaxIDs {
		if err := c.fetch(ctx, mints[start:min(start+MaxIDs, len(mints))], out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type response struct {
	Data map[string]*struct {
		ID    string          `json:"id"`
		Price json.RawMessage `json:"price"`
	} `json:"data"`
}

func (c *Client) fetch(ctx context.Context, ids []string, out map[string]float64) error {
	u, err := url.Parse(c.url)
	if err != nil {
		return fmt.Errorf("price url: %w", redact.Error(err))
	}
	q := u.Query()
	q.Set("ids", strings.Join(ids, ","))
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("price request: %w", redact.Error(err))
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("get prices: %w", redact.Error(err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("get prices: status %s", res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, c.maxBody+1))
	if err != nil {
		return fmt.Errorf("read prices: %w", err)
	}
	if int64(len(body)) > c.maxBody {
		return fmt.Errorf("read prices: body larger than %d bytes", c.maxBody)
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("decode prices: %w", err)
	}
	asked := make(map[string]bool, len(ids))
	for _, id := range ids {
		asked[id] = true
	}
	for mint, e := range r.Data {
		if e == nil || !asked[mint] {
			continue
		}
		if p, err := parsePrice(e.Price); err == nil {
			out[mint] = p
		}
	}
	return nil
}

var errNoPrice = errors.New("no price")

// parsePrice accepts "1.23" (as Jupiter sends it) or 1.23; null, negative or
// non-finite prices are no price.
func parsePrice(raw json.RawMessage) (float64, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || string(raw) == "null" {
			return 0, errNoPrice
		}
		s = strconv.FormatFloat(f, 'g', -1, 64)
	}
	p, err := strconv.ParseFloat(s, 64)
	if err != nil || p < 0 || math.IsInf(p, 0) || math.IsNaN(p) {
		return 0, errNoPrice
	}
	return p, nil
}
