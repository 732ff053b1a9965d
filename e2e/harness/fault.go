package harness

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/mr-tron/base58"
)

// FaultProxy stands in front of the validator's JSON-RPC endpoint as a
// faulty network and RPC provider would: per method and per call, a rule
// (Set) decides whether a request is forwarded or meets a fault (Fault).
// Calls without a rule are forwarded. It records every sendTransaction
// (Sends), with the validator's block height when it arrived and whether
// its connection had carried a request before.
//
// The URL's path is the client's to choose (http://127.0.0.1:port/a) and is
// recorded, so that instances sharing one proxy are told apart; the
// validator is always asked at its own URL.
type FaultProxy struct {
	// URL is the proxy's JSON-RPC endpoint (http://127.0.0.1:port).
	URL string

	v      *Validator
	client *http.Client
	mu     sync.Mutex
	rules  map[string]Rule
	counts map[string]int
	sends  []Send
	// late counts the calls still to be passed on (Fault.ForwardAfter).
	late sync.WaitGroup
}

// FaultKind is what the proxy does with a call.
type FaultKind int

// The faults. Only Forward and Cut reach the validator, and Status and
// Malformed with Fault.ForwardAfter (late).
const (
	// Forward passes the call to the validator and its answer back.
	Forward FaultKind = iota
	// Drop answers a sendTransaction with its signature and never forwards
	// it: a packet lost between the RPC node and the leader.
	Drop
	// Status answers an HTTP status (Fault.Status) with a plain text body
	// and no JSON-RPC answer: a provider's gateway turning the call away.
	Status
	// Malformed answers 200 with a body that is not JSON.
	Malformed
	// Hang answers nothing, never forwarding, until Fault.Until closes or
	// the client gives up.
	Hang
	// Cut forwards the call, waits for Fault.CutWhen, then closes the
	// connection without an answer: the node has the call, the client
	// never learns it.
	Cut
	// Refuse answers a JSON-RPC error without forwarding: a node that
	// turns the call away itself (-32005, behind the cluster).
	Refuse
)

func (k FaultKind) String() string {
	return [...]string{"forward", "drop", "status", "malformed", "hang", "cut", "refuse"}[k]
}

// Fault is what the proxy does with one call.
type Fault struct {
	Kind FaultKind
	// Status is a Status fault's HTTP status.
	Status int
	// Until ends a Hang (nil: only the client ends it).
	Until <-chan struct{}
	// CutWhen, for Cut, is waited for after the validator answered and
	// before the connection is cut (nil: at once).
	CutWhen func(ctx context.Context)
	// ForwardAfter, for Status and Malformed, passes the call on to the
	// validator this long after the answer (0: never): a gateway that
	// answered an error page and still forwarded the request.
	ForwardAfter time.Duration
}

// FaultCall is the call a Rule decides on.
type FaultCall struct {
	Method string
	// N counts the method's calls through the proxy, from 1.
	N int
	// Path is the URL path the client called.
	Path string
	// Signature and SkipPreflight are a sendTransaction's: its
	// transaction's first signature, and whether it asked to skip preflight.
	Signature     string
	SkipPreflight bool
}

// Rule decides the fault of one call.
type Rule func(FaultCall) Fault

// Send is one sendTransaction through the proxy.
type Send struct {
	FaultCall
	// At is when it arrived; Fault what the proxy did with it.
	At    time.Time
	Fault FaultKind
	// Height is the validator's block height (processed) when it arrived.
	Height uint64
	// Reused: its connection had carried a request before.
	Reused bool
}

// NewFaultProxy starts a fault proxy to v's JSON-RPC endpoint; it stops
// when t ends.
func (v *Validator) NewFaultProxy(t testing.TB) *FaultProxy {
	t.Helper()
	p := &FaultProxy{v: v, rules: map[string]Rule{}, counts: map[string]int{},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, new(atomic.Int32))
		},
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); p.late.Wait() })
	p.URL = "http://" + ln.Addr().String()
	return p
}

type connKey struct{}

// Set makes rule decide the calls of method from now on; nil forwards them.
func (p *FaultProxy) Set(method string, rule Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rule == nil {
		delete(p.rules, method)
		return
	}
	p.rules[method] = rule
}

// Always is the rule that gives every call f.
func Always(f Fault) Rule { return func(FaultCall) Fault { return f } }

// DropShare is the rule that drops each call with probability share
// (0 to 1), drawn from a source seeded with seed, and forwards the others.
func DropShare(share float64, seed uint64) Rule {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func(FaultCall) Fault {
		mu.Lock()
		defer mu.Unlock()
		if rng.Float64() < share {
			return Fault{Kind: Drop}
		}
		return Fault{Kind: Forward}
	}
}

// Sends returns the sendTransaction calls so far, in the order they came.
func (p *FaultProxy) Sends() []Send {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.sends)
}

// SendsOf returns the sendTransaction calls of signature sig so far.
func (p *FaultProxy) SendsOf(sig string) []Send {
	var out []Send
	for _, s := range p.Sends() {
		if s.Signature == sig {
			out = append(out, s)
		}
	}
	return out
}

// ServeHTTP decides a call's fault and carries it out.
func (p *FaultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var req struct {
		ID     json.RawMessage
		Method string
		Params []json.RawMessage
	}
	_ = json.Unmarshal(body, &req)
	calls, _ := r.Context().Value(connKey{}).(*atomic.Int32)
	reused := calls != nil && calls.Add(1) > 1
	call := FaultCall{Method: req.Method, Path: r.URL.Path}
	if req.Method == "sendTransaction" {
		call.Signature, call.SkipPreflight = sendOf(req.Params)
	}
	p.mu.Lock()
	p.counts[req.Method]++
	call.N = p.counts[req.Method]
	rule := p.rules[req.Method]
	p.mu.Unlock()
	fault := Fault{Kind: Forward}
	if rule != nil {
		fault = rule(call)
	}
	if req.Method == "sendTransaction" {
		s := Send{FaultCall: call, At: time.Now(), Fault: fault.Kind, Reused: reused}
		if h, err := p.v.RPC.GetBlockHeight(r.Context(), rpc.CommitmentProcessed); err == nil {
			s.Height = h
		}
		p.mu.Lock()
		p.sends = append(p.sends, s)
		p.mu.Unlock()
	}
	p.carry(w, r, fault, call, req.ID, body)
}

func (p *FaultProxy) carry(w http.ResponseWriter, r *http.Request, f Fault, call FaultCall, id json.RawMessage, body []byte) {
	switch f.Kind {
	case Drop:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","result":%q,"id":%s}`, call.Signature, orNull(id))
	case Status:
		http.Error(w, http.StatusText(f.Status), f.Status)
		p.forwardLater(f.ForwardAfter, body)
	case Malformed:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `<html><body>upstream error</body></html>`)
		p.forwardLater(f.ForwardAfter, body)
	case Refuse:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind by 42 slots","data":{"numSlotsBehind":42}},"id":%s}`, orNull(id))
	case Hang:
		select {
		case <-f.Until:
		case <-r.Context().Done():
		}
		hijackClose(w)
	case Cut:
		_, _, err := p.forward(r.Context(), body)
		if err == nil && f.CutWhen != nil {
			f.CutWhen(r.Context())
		}
		hijackClose(w)
	default:
		status, answer, err := p.forward(r.Context(), body)
		if err != nil {
			hijackClose(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(answer)
	}
}

// forwardLater passes body on to the validator after d (0: never), in the
// background; the proxy's cleanup waits for it.
func (p *FaultProxy) forwardLater(d time.Duration, body []byte) {
	if d <= 0 {
		return
	}
	p.late.Add(1)
	time.AfterFunc(d, func() {
		defer p.late.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _, _ = p.forward(ctx, body)
	})
}

// forward posts body to the validator and returns its answer.
func (p *FaultProxy) forward(ctx context.Context, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.v.URL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := p.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	return res.StatusCode, answer, err
}

// hijackClose closes the client's connection without a word.
func hijackClose(w http.ResponseWriter) {
	if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
		conn.Close()
	}
}

func orNull(id json.RawMessage) string {
	if len(id) == 0 {
		return "null"
	}
	return string(id)
}

// sendOf reads a sendTransaction's params: the transaction's first
// signature (base58), and skipPreflight.
func sendOf(params []json.RawMessage) (sig string, skip bool) {
	if len(params) == 0 {
		return "", false
	}
	var encoded string
	_ = json.Unmarshal(params[0], &encoded)
	var opts struct {
		Encoding      string
		SkipPreflight bool
	}
	if len(params) > 1 {
		_ = json.Unmarshal(params[1], &opts)
	}
	var raw []byte
	if opts.Encoding == "base64" {
		raw, _ = base64.StdEncoding.DecodeString(encoded)
	} else {
		raw, _ = base58.Decode(encoded)
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil || len(tx.Signatures) == 0 {
		return "", opts.SkipPreflight
	}
	return tx.Signatures[0].String(), opts.SkipPreflight
}
