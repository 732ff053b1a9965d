package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
)

// outcome is what one sendTransaction call tells of the transaction it
// carried. Only the node's own answer proves anything either way: the
// cluster's JSON-RPC answer (accepted, refused). A call that never left
// (no connection could be made) sent nothing (notProcessed); any other
// call may have reached the node whatever came back (unknown).
type outcome int

const (
	// accepted: the cluster answered the signature, or that it has the
	// transaction already (-32002 AlreadyProcessed: a send that reached it
	// earlier, ours or the wallet's).
	accepted outcome = iota
	// refused: the cluster answered a JSON-RPC error: the preflight
	// simulation failed (an expired blockhash, a program's error), the
	// signature does not verify, the node is unhealthy, the transaction is
	// malformed.
	refused
	// notProcessed: the request was never sent: no connection could be
	// made (a dial error: refused, unreachable, a name that does not
	// resolve).
	notProcessed
	// unknown: the request was written and no JSON-RPC answer came back:
	// an HTTP error from a gateway (429, 500, 502, 503, 504: gateways pass
	// a request on and still answer an error), a body that is not
	// JSON-RPC, the send's deadline, a connection that broke before the
	// answer. The node may have it, now or later.
	unknown
)

// sendResult is one send's outcome and, unless accepted, why, as a client
// reads it.
type sendResult struct {
	outcome outcome
	reason  string
}

// classify reads the outcome of a sendTransaction call from its error.
func classify(err error) sendResult {
	if err == nil {
		return sendResult{outcome: accepted}
	}
	var re *jsonrpc.RPCError
	if errors.As(err, &re) {
		if alreadyProcessed(re) {
			return sendResult{outcome: accepted}
		}
		return sendResult{refused, "the cluster refused the transaction: " + describe(re)}
	}
	var he *jsonrpc.HTTPError
	if errors.As(err, &he) {
		return sendResult{unknown, fmt.Sprintf("the cluster's gateway answered HTTP %d without a JSON-RPC answer; it may have passed the transaction on", he.Code)}
	}
	if op := (*net.OpError)(nil); errors.As(err, &op) && op.Op == "dial" {
		return sendResult{notProcessed, "the cluster could not be reached; nothing was sent, retry"}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		// The HTTP client's own error after it connected: no answer.
		return sendResult{unknown, "the cluster did not answer: " + cause(ue)}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		// The answer began and was cut: its body could not be read whole.
		return sendResult{unknown, "the cluster's answer was cut off"}
	}
	// An answer read whole that solana-go could not decode: not JSON-RPC,
	// from whatever stands in front of the node, which may have passed the
	// transaction on.
	return sendResult{unknown, "the cluster's answer was not JSON-RPC"}
}

// alreadyProcessed reports the refusal of a transaction the cluster has:
// preflight finds it in the status cache of its bank (Agave's simulation
// error AlreadyProcessed, "This transaction has already been processed").
func alreadyProcessed(re *jsonrpc.RPCError) bool {
	if data, ok := re.Data.(map[string]any); ok && data["err"] == "AlreadyProcessed" {
		return true
	}
	return strings.Contains(re.Message, "already been processed")
}

// describe is the cluster's reason, with the last program log lines that
// explain it.
func describe(re *jsonrpc.RPCError) string {
	s := fmt.Sprintf("%s (code %d)", re.Message, re.Code)
	var logs []string
	if data, ok := re.Data.(map[string]any); ok {
		if ls, ok := data["logs"].([]any); ok {
			for _, l := range ls {
				if s, ok := l.(string); ok {
					logs = append(logs, s)
				}
			}
		}
	}
	if n := len(logs); n > 0 {
		s += "; logs: " + strings.Join(logs[max(0, n-3):], " | ")
	}
	return s
}

// cause is a transport error without the endpoint's URL, which may carry an
// API key.
func cause(ue *url.Error) string {
	if errors.Is(ue.Err, context.DeadlineExceeded) {
		return "no answer within the send's time"
	}
	return ue.Err.Error()
}
