package jsonrpc_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/upstream/jsonrpc"
)

// TestNewIndexer: each option left zero (or negative) takes the client's
// default, each one set is kept, and no client is the default client.
func TestNewIndexer(t *testing.T) {
	t.Parallel()
	defaults := jsonrpc.Options{Timeout: 5 * time.Second, MaxBody: 8 << 20, MaxPages: 50}
	ix := jsonrpc.NewIndexer("das", "http://indexer.example", nil, jsonrpc.Options{MaxBody: -1, MaxPages: 3}, defaults)
	if ix.Name != "das" || ix.URL != "http://indexer.example" || ix.HTTP != http.DefaultClient ||
		ix.Timeout != 5*time.Second || ix.MaxBody != 8<<20 || ix.MaxPages != 3 {
		t.Fatalf("%+v", ix)
	}
	own := &http.Client{}
	ix = jsonrpc.NewIndexer("photon", "u", own, jsonrpc.Options{Timeout: time.Second, MaxBody: 10}, defaults)
	if ix.HTTP != own || ix.Timeout != time.Second || ix.MaxBody != 10 || ix.MaxPages != 50 {
		t.Fatalf("%+v", ix)
	}
}
