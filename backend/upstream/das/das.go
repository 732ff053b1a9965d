// Package das reads a wallet's digital assets from an indexer that speaks the
// Metaplex Digital Asset Standard (DAS) JSON-RPC API, as Helius, Triton and
// QuickNode serve it (DAS_RPC_URL): getAssetsByOwner, getAsset and
// getAssetProof.
//
// The assets.Source that lists cnft and fungible_asset items from it is
// package indexers (backend/engine/assets/indexers).
//
// Client bounds each call by Options.Timeout and each response body by
// Options.MaxBody; a JSON-RPC error comes back as *RPCError, which matches
// ErrNotFound when the indexer does not know the asset.
package das

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/upstream/jsonrpc"
)

// Defaults of a Client.
const (
	// DefaultTimeout bounds one JSON-RPC call.
	DefaultTimeout = 5 * time.Second
	// DefaultMaxBody caps one response body: a page of 1000 assets with
	// content and collection metadata is a few MiB.
	DefaultMaxBody = 16 << 20
	// PageLimit is the number of assets asked per getAssetsByOwner page (the
	// most DAS serves).
	PageLimit = 1000
	// DefaultMaxPages bounds the pages one listing reads: 50,000 assets.
	DefaultMaxPages = 50
)

// ErrNotFound is matched by an *RPCError saying the asset is unknown.
var ErrNotFound = errors.New("asset not found")

// RPCError is an error object of a JSON-RPC response.
type RPCError struct {
	Method  string
	Code    int
	Message string
}

// Error implements error.
func (e *RPCError) Error() string {
	return fmt.Sprintf("das %s: rpc error %d: %s", e.Method, e.Code, e.Message)
}

// Is matches ErrNotFound when the indexer says it does not know the asset
// (Helius and the reference indexer say "Asset Not Found", -32000).
func (e *RPCError) Is(target error) bool {
	return target == ErrNotFound && strings.Contains(strings.ToLower(e.Message), "not found")
}

// Options tune a Client; zero values take the defaults.
type Options = jsonrpc.Options

// Client calls a DAS JSON-RPC endpoint.
type Client struct {
	ep jsonrpc.Indexer
}

// New returns a Client for the endpoint url (e.g. https://mainnet.helius-rpc.com/?api-key=...)
// using httpClient (nil: http.DefaultClient).
func New(url string, httpClient *http.Client, opts Options) *Client {
	return &Client{ep: jsonrpc.NewIndexer("das", url, httpClient, opts, Options{Timeout: DefaultTimeout, MaxBody: DefaultMaxBody, MaxPages: DefaultMaxPages})}
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
