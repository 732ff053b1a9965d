package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
)

// clusterTransport is the cluster clients' transport. solana-go's own client
// (rpc.New) opens at most 9 connections to the endpoint, so the calls of a
// request beyond 9 would queue for a connection whatever
// RECLAIM_RPC_CONCURRENCY allows. This one opens as many as the calls in
// flight need and keeps enough idle for several requests at once (a new
// connection to a remote provider costs round trips of its own: TCP, TLS),
// and sends a read again when a kept-alive connection was closed under it.
func clusterTransport(concurrency int) http.RoundTripper {
	if concurrency <= 0 {
		concurrency = config.Default().RPCConcurrency
	}
	return replayable{&http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        4 * concurrency,
		MaxIdleConnsPerHost: 4 * concurrency,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}}
}

// replayable marks every request but sendTransaction idempotent for the
// transport (a nil Idempotency-Key header is not sent), so that a read that
// fails on a kept-alive connection the endpoint closed meanwhile, before
// any answer, is sent again on a new connection instead of failing: the
// local validator closes connections idle for 5 s, providers after their
// own timeouts, and a pool of many connections meets such a close more
// often. Reads and simulations can be sent twice. sendTransaction cannot:
// once its bytes were written, the node may have it, and a node answers the
// same transaction sent again -32002 "already processed", which must be
// the relay's to read (backend/service/relay), not the transport's to
// cause; the transport still sends it again when it wrote nothing.
type replayable struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (r replayable) RoundTrip(req *http.Request) (*http.Response, error) {
	if sendsTransaction(req) {
		return r.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header["Idempotency-Key"] = nil
	return r.next.RoundTrip(req)
}

// sendsTransaction reports a JSON-RPC request (or batch) that calls
// sendTransaction, read from a copy of its body; a body that cannot be read
// counts as one.
func sendsTransaction(req *http.Request) bool {
	if req.GetBody == nil {
		return false // no body to send again: the transport never replays it
	}
	rc, err := req.GetBody()
	if err != nil {
		return true
	}
	defer rc.Close()
	body, err := io.ReadAll(rc)
	if err != nil {
		return true
	}
	var calls []struct{ Method string }
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &calls) != nil {
			return true
		}
	} else {
		calls = make([]struct{ Method string }, 1)
		if json.Unmarshal(b, &calls[0]) != nil {
			return true
		}
	}
	for _, c := range calls {
		if c.Method == "sendTransaction" {
			return true
		}
	}
	return false
}
