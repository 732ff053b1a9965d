package relay

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
)

// Path is an extra send path (RECLAIM_SEND_URLS): a staked RPC, a sender
// service, a block engine's sendTransaction. It gets every transaction the
// cluster took, and every rebroadcast, beside the cluster's RPC.
type Path struct {
	// Name is how logs name it: its URL's scheme and host alone.
	Name string
	RPC  Sender
}

// rebroadcastOpts are the options of every send after the first: the same
// bytes the preflight already passed, so no preflight (which would answer
// AlreadyProcessed for a transaction that landed meanwhile, and cost the
// node a simulation each time), and no retries by the node.
var rebroadcastOpts = rpc.TransactionOpts{SkipPreflight: true, MaxRetries: &noRetries}

// pathTimeout bounds one send to one path.
const pathTimeout = 5 * time.Second

// pathConcurrency is how many sends to one path are in flight at once.
const pathConcurrency = 16

// Paths sends transactions to the extra send paths, never failing the
// caller: a path that fails is logged (by its Name) and counted. A nil
// *Paths has no path.
type Paths struct {
	paths    []Path
	failures []atomic.Uint64
	log      *slog.Logger
}

// NewPaths returns the extra send paths; log hears their failures.
func NewPaths(log *slog.Logger, paths ...Path) *Paths {
	return &Paths{paths: paths, failures: make([]atomic.Uint64, len(paths)), log: log}
}

// Len is how many paths there are.
func (p *Paths) Len() int {
	if p == nil {
		return 0
	}
	return len(p.paths)
}

// Send sends each of txs to every path, the paths in parallel, each send
// bounded by pathTimeout, and returns once all ended. A path that failed
// is logged once per call, with how many of txs it failed and the first
// error.
func (p *Paths) Send(ctx context.Context, txs ...[]byte) {
	if p.Len() == 0 || len(txs) == 0 {
		return
	}
	var wg sync.WaitGroup
	for i := range p.paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			failed, first := sendAll(ctx, p.paths[i].RPC, txs, rebroadcastOpts)
			if failed > 0 {
				p.failures[i].Add(uint64(failed))
				p.log.WarnContext(ctx, "send path failed", "path", p.paths[i].Name, "failed", failed, "of", len(txs), "err", first)
			}
		}()
	}
	wg.Wait()
}

// Failures returns how many sends failed so far, per path, in order.
func (p *Paths) Failures() []uint64 {
	if p == nil {
		return nil
	}
	out := make([]uint64, len(p.failures))
	for i := range p.failures {
		out[i] = p.failures[i].Load()
	}
	return out
}

// sendAll sends each of txs to s with opts, pathConcurrency at a time, each
// bounded by pathTimeout; it returns how many failed and the first error.
func sendAll(ctx context.Context, s Sender, txs [][]byte, opts rpc.TransactionOpts) (failed int, first error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, pathConcurrency)
	for _, raw := range txs {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			sctx, cancel := context.WithTimeout(ctx, pathTimeout)
			defer cancel()
			if _, err := s.SendRawTransactionWithOpts(sctx, raw, opts); err != nil && classify(err).outcome != accepted {
				mu.Lock()
				if failed++; first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return failed, first
}
