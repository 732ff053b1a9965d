package jsonrpc

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/gagliardetto/solana-go/rpc"
)

// RawCall calls method on the cluster through solana-go's client and hands
// read the answer's body, whole, and its HTTP status, instead of decoding
// it: for the answers whose generic decoding costs more than reading them
// (getTokenAccountsByOwner of hundreds of accounts, backend/engine/assets).
func RawCall(ctx context.Context, client *rpc.Client, method string, params []any, read func(body []byte, status int) error) error {
	return client.RPCCallWithCallback(ctx, method, params, func(_ *http.Request, resp *http.Response) error {
		body, err := ReadBody(resp)
		if err != nil {
			return err
		}
		return read(body, resp.StatusCode)
	})
}

// ReadBody reads resp's body whole, in one buffer when its length is known
// (io.ReadAll would grow one through a dozen copies to 226 KB; the e2e delay
// proxy reads 2.25 MB answers with it).
func ReadBody(resp *http.Response) ([]byte, error) {
	const most = 64 << 20 // preallocated at most; a longer body still reads
	if n := resp.ContentLength; n > 0 && n <= most {
		buf := bytes.NewBuffer(make([]byte, 0, n+1))
		_, err := buf.ReadFrom(resp.Body)
		return buf.Bytes(), err
	}
	return io.ReadAll(resp.Body)
}
