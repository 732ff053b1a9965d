// Package jsonrpc posts JSON-RPC 2.0 requests to the indexers Reclaim reads
// (DAS, Photon): bounded in time and size, and never putting more of the
// endpoint's URL, which usually carries an API key, than its scheme and host
// into an error (package redact).
package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
)

// Endpoint is one JSON-RPC server.
type Endpoint struct {
	// Name prefixes errors ("das", "photon").
	Name string
	URL  string
	HTTP *http.Client
	// Timeout bounds one call; MaxBody bounds its response.
	Timeout time.Duration
	MaxBody int64
}

// RemoteError is the error object a server answered with.
type RemoteError struct {
	Code    int
	Message string
}

func (e *RemoteError) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *RemoteError    `json:"error"`
}

// Call posts one request and decodes its result into out. An error object
// in the answer is a *RemoteError, whatever the HTTP status.
func (e Endpoint) Call(ctx context.Context, method string, params, out any) error {
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "reclaim", "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("%s %s: encode: %w", e.Name, method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s %s: bad endpoint url", e.Name, method)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := e.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", e.Name, method, redact.Error(err))
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, e.MaxBody+1))
	if err != nil {
		return fmt.Errorf("%s %s: read: %w", e.Name, method, redact.Error(err))
	}
	if int64(len(raw)) > e.MaxBody {
		return fmt.Errorf("%s %s: response larger than %d bytes", e.Name, method, e.MaxBody)
	}
	var r response
	jsonErr := json.Unmarshal(raw, &r)
	if jsonErr == nil && r.Error != nil {
		return r.Error
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: status %s", e.Name, method, res.Status)
	}
	if jsonErr != nil {
		return fmt.Errorf("%s %s: decode: %w", e.Name, method, jsonErr)
	}
	if len(r.Result) == 0 || string(r.Result) == "null" {
		return fmt.Errorf("%s %s: response without result", e.Name, method)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("%s %s: decode result: %w", e.Name, method, err)
	}
	return nil
}

// Options tune an indexer's client (das, photon); zero values take the
// client's defaults.
type Options struct {
	Timeout  time.Duration
	MaxBody  int64
	MaxPages int
}

// Indexer is an indexer's endpoint with its options settled.
type Indexer struct {
	Endpoint
	// MaxPages bounds the pages one listing reads.
	MaxPages int
}

// NewIndexer returns the endpoint name at url, called with httpClient (nil:
// http.DefaultClient) under opts, each zero (or negative) value of which
// takes defaults'.
func NewIndexer(name, url string, httpClient *http.Client, opts, defaults Options) Indexer {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaults.Timeout
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = defaults.MaxBody
	}
	if opts.MaxPages <= 0 {
		opts.MaxPages = defaults.MaxPages
	}
	return Indexer{
		Endpoint: Endpoint{Name: name, URL: url, HTTP: httpClient, Timeout: opts.Timeout, MaxBody: opts.MaxBody},
		MaxPages: opts.MaxPages,
	}
}
