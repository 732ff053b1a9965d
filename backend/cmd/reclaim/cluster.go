package main

import (
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
// and sends a call again when a kept-alive connection was closed under it.
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

// replayable marks every request idempotent for the transport (a nil
// Idempotency-Key header is not sent), so that a call that fails on a
// kept-alive connection the endpoint closed meanwhile, before any answer,
// is sent again on a new connection instead of failing: the local
// validator closes connections idle for 5 s, providers after their own
// timeouts, and a pool of many connections meets such a close more often.
// Every JSON-RPC call Reclaim makes can be sent twice: reads, simulations,
// and sendTransaction of a signed transaction (the cluster keeps one copy
// per signature).
type replayable struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (r replayable) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header["Idempotency-Key"] = nil
	return r.next.RoundTrip(req)
}
