package txbuild

import (
	"context"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/feature"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// Poller keeps fresh, in the background, what every build would otherwise
// ask the cluster: the latest blockhash (commitment confirmed), the recent
// prioritization fees over the accounts every build writes (the treasury;
// see fees.go for why the rest of a build's accounts may be left out), and
// whether SPL Token is p-token (its feature account; an activated feature
// stays active, so once seen it is never read again). A build takes what
// the Poller holds when its poll is at most maxAge old and asks the cluster
// itself otherwise: a Poller that fails or stops only costs builds their
// own reads, never a stale blockhash.
type Poller struct {
	rpc      RPC
	interval time.Duration
	maxAge   time.Duration
	accounts []solana.PublicKey
	now      func() time.Time

	mu       sync.Mutex
	latest   *rpc.LatestBlockhashResult
	latestAt time.Time
	fees     []rpc.PriorizationFeeResult
	feesAt   time.Time
	pToken   bool
}

// NewPoller returns a Poller that reads the cluster every interval, the
// fees over accounts; a poll is fresh for three intervals.
func NewPoller(rpc RPC, interval time.Duration, accounts ...solana.PublicKey) *Poller {
	// Never nil: a nil slice would ask with [null] rather than [] (no
	// accounts: the block minimums alone).
	accounts = append([]solana.PublicKey{}, accounts...)
	return &Poller{rpc: rpc, interval: interval, maxAge: 3 * interval, accounts: accounts, now: time.Now}
}

// Run polls at once, then every interval, until ctx ends; it returns once
// no call of its own is in flight.
func (p *Poller) Run(ctx context.Context) {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		p.Poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll reads the blockhash, the fees and, until it is active, the p-token
// feature, together; each call is bounded by the interval (at least a
// second). A failed read keeps the previous answer, which ages.
func (p *Poller) Poll(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, max(p.interval, time.Second))
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		if latest, err := p.rpc.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed); err == nil && latest != nil && latest.Value != nil {
			p.mu.Lock()
			p.latest, p.latestAt = latest.Value, p.now()
			p.mu.Unlock()
		}
	})
	wg.Go(func() {
		if fees, err := p.rpc.GetRecentPrioritizationFees(ctx, p.accounts); err == nil {
			p.mu.Lock()
			p.fees, p.feesAt = fees, p.now()
			p.mu.Unlock()
		}
	})
	if !p.PToken() {
		wg.Go(func() {
			res, err := p.rpc.GetMultipleAccountsWithOpts(ctx, []solana.PublicKey{spltoken.PTokenFeature}, &rpc.GetMultipleAccountsOpts{
				Commitment: rpc.CommitmentConfirmed, Encoding: solana.EncodingBase64,
			})
			if err == nil && res != nil && len(res.Value) == 1 {
				if _, active := feature.Active(res.Value[0]); active {
					p.mu.Lock()
					p.pToken = true
					p.mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
}

// PToken reports whether a poll saw SPL Token's p-token feature active.
func (p *Poller) PToken() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pToken
}

// blockhash is the polled blockhash, if it is fresh.
func (p *Poller) blockhash() (*rpc.LatestBlockhashResult, bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.latest == nil || p.now().Sub(p.latestAt) > p.maxAge {
		return nil, false
	}
	return p.latest, true
}

// recentFees is the polled fees as a query answered, if they are fresh.
func (p *Poller) recentFees() (*feeQuery, bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.feesAt.IsZero() || p.now().Sub(p.feesAt) > p.maxAge {
		return nil, false
	}
	q := &feeQuery{done: make(chan struct{}), fees: p.fees}
	close(q.done)
	return q, true
}

// WithPoller lets the Builder take the blockhash, the fees and the p-token
// state from p while its polls are fresh.
func WithPoller(p *Poller) Option {
	return func(b *Builder) { b.poller = p }
}
