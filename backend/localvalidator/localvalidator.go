// Package localvalidator is the local Solana validator: server.js in this
// folder, the standard JSON-RPC and PubSub over LiteSVM under Node, with the
// real SPL Token, Token-2022 and Associated Token Account programs. `make
// run` (reclaim dev), `make validator`, the deployment's compose file and
// the end-to-end suite all run it; this package is the one description of
// how: its folder, its command line, its ports, what says it is ready, and
// Start, which runs it as a process group of its own.
package localvalidator

import (
	"path/filepath"
	"strconv"
)

// Dir is the validator's folder, relative to the repository's root.
var Dir = filepath.Join("backend", "localvalidator")

// RPCPort and PubSubPort are its usual ports, solana-test-validator's:
// JSON-RPC over HTTP, and PubSub over WebSocket on the next one.
const (
	RPCPort    = 8899
	PubSubPort = RPCPort + 1
)

// Args are node's arguments, run in Dir, that start the validator on host:
// JSON-RPC on port, PubSub on wsPort. The image's entrypoint is these on
// 0.0.0.0 and the usual ports (a test holds its Dockerfile to them).
func Args(host string, port, wsPort int) []string {
	return []string{"server.js", "--host", host, "--port", strconv.Itoa(port), "--ws-port", strconv.Itoa(wsPort)}
}

// ReadyPrefix begins the line the validator prints on its standard output
// once both its ports listen.
const ReadyPrefix = "[validator] JSON-RPC "

// HealthRequest is the JSON-RPC request that asks a running validator
// whether it is ready: it is when the answer contains HealthyAnswer.
const (
	HealthRequest = `{"jsonrpc":"2.0","id":1,"method":"getHealth"}`
	HealthyAnswer = `"result":"ok"`
)
