package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/server/gateway"
)

// msgNoBatches is what a client that sends /mcp a JSON-RPC batch reads.
const msgNoBatches = "JSON-RPC batches are not supported on /mcp: send one JSON-RPC message per HTTP request (each tool call is a request of its own, limited as one)"

// JSON-RPC 2.0's error codes for a message that is not one we take.
const (
	jsonrpcParseError     = -32700
	jsonrpcInvalidRequest = -32600
)

// noBatches refuses a POST whose body is a JSON-RPC batch (a JSON array,
// whatever the Mcp-Protocol-Version header says) before next sees it, so
// that one HTTP request, one token of the rate limits, is one call. It
// reads the body only up to its first byte that is not JSON whitespace
// (never the array itself), at most limit bytes, and hands next every
// byte it read and the rest unread.
func noBatches(next http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body := http.MaxBytesReader(w, r.Body, limit)
		read, first, err := peekJSON(body)
		var tooLarge *http.MaxBytesError
		switch {
		case first == '[':
			refuseMCP(w, r, http.StatusBadRequest, jsonrpcInvalidRequest, msgNoBatches)
			return
		case errors.As(err, &tooLarge):
			refuseMCP(w, r, http.StatusRequestEntityTooLarge, jsonrpcInvalidRequest,
				fmt.Sprintf("the request body exceeds %d bytes: send one JSON-RPC message of at most that size", tooLarge.Limit))
			return
		case err != nil && !errors.Is(err, io.EOF):
			refuseMCP(w, r, http.StatusBadRequest, jsonrpcParseError, "the request body could not be read; send it again")
			return
		}
		r.Body = readCloser{io.MultiReader(bytes.NewReader(read), body), body}
		next.ServeHTTP(w, r)
	})
}

type readCloser struct {
	io.Reader
	io.Closer
}

// peekJSON reads r until the first byte that is not JSON whitespace and
// returns every byte it read (that byte and what came with it included)
// and that byte; err is r's error (first then 0) when r ended or failed
// before one.
func peekJSON(r io.Reader) (read []byte, first byte, err error) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		for _, c := range buf[len(buf) : len(buf)+n] {
			if !isJSONSpace(c) {
				return buf[:len(buf)+n], c, nil
			}
		}
		buf = buf[:len(buf)+n]
		if err != nil {
			return buf, 0, err
		}
	}
}

// isJSONSpace is RFC 8259's insignificant whitespace.
func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// refuseMCP answers an MCP POST that the server does not take with a
// JSON-RPC error response (id null: the request was not read) and an HTTP
// status, as the Streamable HTTP transport has a server refuse a message.
func refuseMCP(w http.ResponseWriter, r *http.Request, status, code int, msg string) {
	gateway.Settle(r.Context(), "", connect.NewError(connect.CodeInvalidArgument, errors.New(msg)))
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
