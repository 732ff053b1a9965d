// Package photon lists a wallet's ZK-compressed token accounts (Light
// Protocol) from a Photon indexer (PHOTON_RPC_URL; Helius serves Photon's
// JSON-RPC on its mainnet endpoint): getCompressedTokenAccountsByOwner, paged
// with its cursor.
//
// The assets.Source that lists them as zk_compressed_token items is package
// indexers (backend/engine/assets/indexers).
package photon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/reclaim-sol/reclaim/backend/upstream/jsonrpc"
)

// Defaults of a Client.
const (
	DefaultTimeout  = 5 * time.Second
	DefaultMaxBody  = 8 << 20
	PageLimit       = 1000
	DefaultMaxPages = 50
)

// RPCError is an error object of a JSON-RPC response.
type RPCError struct {
	Method  string
	Code    int
	Message string
}

// Error implements error.
func (e *RPCError) Error() string {
	return fmt.Sprintf("photon %s: rpc error %d: %s", e.Method, e.Code, e.Message)
}

// Options tune a Client; zero values take the defaults.
type Options = jsonrpc.Options

// Client calls a Photon JSON-RPC endpoint.
type Client struct {
	ep jsonrpc.Indexer
}

// New returns a Client for url using httpClient (nil: http.DefaultClient).
func New(url string, httpClient *http.Client, opts Options) *Client {
	return &Client{ep: jsonrpc.NewIndexer("photon", url, httpClient, opts, Options{Timeout: DefaultTimeout, MaxBody: DefaultMaxBody, MaxPages: DefaultMaxPages})}
}

// TokenAccount is one compressed token account.
type TokenAccount struct {
	Account struct {
		Hash      string  `json:"hash"`
		Address   *string `json:"address"`
		Lamports  uint64  `json:"lamports"`
		Owner     string  `json:"owner"`
		Tree      string  `json:"tree"`
		LeafIndex uint64  `json:"leafIndex"`
	} `json:"account"`
	TokenData struct {
		Mint     string      `json:"mint"`
		Owner    string      `json:"owner"`
		Amount   json.Number `json:"amount"`
		Delegate *string     `json:"delegate"`
		// State is "initialized" or "frozen".
		State string `json:"state"`
	} `json:"tokenData"`
}

type page struct {
	Value struct {
		Cursor *string        `json:"cursor"`
		Items  []TokenAccount `json:"items"`
	} `json:"value"`
}

type byOwnerParams struct {
	Owner  string  `json:"owner"`
	Cursor *string `json:"cursor,omitempty"`
	Limit  int     `json:"limit"`
}

// TokenAccountsByOwner reads every compressed token account of owner,
// following the cursor until it is null. More than MaxPages pages, or a
// cursor that repeats, is an error.
func (c *Client) TokenAccountsByOwner(ctx context.Context, owner string) ([]TokenAccount, error) {
	var all []TokenAccount
	var cursor *string
	seen := map[string]bool{}
	for n := 1; n <= c.ep.MaxPages; n++ {
		var p page
		if err := c.call(ctx, "getCompressedTokenAccountsByOwner", byOwnerParams{Owner: owner, Cursor: cursor, Limit: PageLimit}, &p); err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		all = append(all, p.Value.Items...)
		cursor = p.Value.Cursor
		if cursor == nil || *cursor == "" || len(p.Value.Items) == 0 {
			return all, nil
		}
		if seen[*cursor] {
			return nil, fmt.Errorf("photon getCompressedTokenAccountsByOwner: cursor %s repeats", *cursor)
		}
		seen[*cursor] = true
	}
	return nil, fmt.Errorf("photon getCompressedTokenAccountsByOwner: more than %d pages", c.ep.MaxPages)
}

// call posts one JSON-RPC request and decodes its result into out; the URL
// (which carries an API key) never appears in errors.
func (c *Client) call(ctx context.Context, method string, params, out any) error {
	err := c.ep.Call(ctx, method, params, out)
	var re *jsonrpc.RemoteError
	if errors.As(err, &re) {
		return &RPCError{Method: method, Code: re.Code, Message: re.Message}
	}
	return err
}
