package txbuild

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// Prefetch is the reads of a build that do not depend on the state of its
// items: the latest blockhash, the transfer recipients (and the rent-exempt
// minimum when one of them is missing) and the recent prioritization fees of
// the accounts it will write (fees.go). A caller that resolves the items
// itself starts them first, so that they go out together with its own reads
// of the items' accounts; Build starts them itself otherwise.
type Prefetch struct {
	params Params // without items: what the reads were made for
	ready  chan struct{}
	latest *rpc.LatestBlockhashResult
	rc     rentCheck
	err    error
	// fees is nil without a priority level.
	fees *feeBook
}

// Prefetch starts the reads for a build of p (its Items are not looked at)
// that will reclaim the accounts written: the selected token accounts and
// Core assets, the accounts their transactions write. They run under ctx;
// Build waits for them. An invalid p reads what it can: Build's checks
// report the mistake.
func (b *Builder) Prefetch(ctx context.Context, p Params, written []solana.PublicKey) *Prefetch {
	pf := &Prefetch{params: p, ready: make(chan struct{})}
	pf.params.Items = nil
	recipients := recipientsOf(p)
	if pct := priorityPercentiles[levelOf(p)]; pct > 0 {
		common := []solana.PublicKey{p.Wallet}
		for _, k := range recipients {
			if !slices.Contains(common, k) {
				common = append(common, k)
			}
		}
		if q, ok := b.poller.recentFees(); ok {
			pf.fees = polledBook(common, written, q)
		} else {
			pf.fees = b.askAhead(ctx, common, written)
		}
	}
	go func() {
		defer close(pf.ready)
		var wg sync.WaitGroup
		var hashErr, rcErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			var fresh bool
			if pf.latest, fresh = b.poller.blockhash(); !fresh {
				pf.latest, hashErr = b.latestBlockhash(ctx)
			}
		}()
		go func() {
			defer wg.Done()
			pf.rc, rcErr = b.recipients(ctx, recipients)
		}()
		wg.Wait()
		pf.err = errors.Join(hashErr, rcErr)
	}()
	return pf
}

// matches reports whether pf was made for p's wallet, transfers and
// priority.
func (pf *Prefetch) matches(p Params) bool {
	a, b := pf.params, p
	same := func(x, y *solana.PublicKey) bool { return x == nil && y == nil || x != nil && y != nil && x.Equals(*y) }
	return a.Wallet.Equals(b.Wallet) && a.DonationPercentage == b.DonationPercentage && same(a.DonationWallet, b.DonationWallet) &&
		a.ServiceFeeBPS == b.ServiceFeeBPS && same(a.Treasury, b.Treasury) && levelOf(a) == levelOf(b)
}

// wait waits for the blockhash and the recipients.
func (pf *Prefetch) wait(ctx context.Context) error {
	select {
	case <-pf.ready:
		return pf.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// settle waits until none of pf's reads is in flight.
func (pf *Prefetch) settle() {
	<-pf.ready
	if pf.fees != nil {
		for _, q := range pf.fees.queries {
			<-q.done
		}
	}
}

func levelOf(p Params) string {
	if p.PriorityLevel == "" {
		return PriorityMedium
	}
	return p.PriorityLevel
}

// recipientsOf lists the donation wallet and the treasury when transfers to
// them are possible.
func recipientsOf(p Params) []solana.PublicKey {
	var keys []solana.PublicKey
	if d, err := parseFraction(p.DonationPercentage); err == nil && d.Sign() > 0 && p.DonationWallet != nil {
		keys = append(keys, *p.DonationWallet)
	}
	if p.ServiceFeeBPS > 0 && p.Treasury != nil && (len(keys) == 0 || !keys[0].Equals(*p.Treasury)) {
		keys = append(keys, *p.Treasury)
	}
	return keys
}

// writtenBy lists the accounts items name that their transactions write:
// every item's address but a cNFT's (an asset id, not an account).
func writtenBy(items []Selected) []solana.PublicKey {
	out := make([]solana.PublicKey, 0, len(items))
	for _, s := range items {
		if s.Item.Type != assets.TypeCNFT {
			out = append(out, s.Item.Address)
		}
	}
	return out
}

func (b *Builder) latestBlockhash(ctx context.Context) (*rpc.LatestBlockhashResult, error) {
	latest, err := rpclimit.Call(ctx, func(ctx context.Context) (*rpc.GetLatestBlockhashResult, error) {
		return b.rpc.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	})
	if err != nil {
		return nil, fmt.Errorf("txbuild: latest blockhash: %w", err)
	}
	if latest == nil || latest.Value == nil {
		return nil, fmt.Errorf("txbuild: latest blockhash: empty result")
	}
	return latest.Value, nil
}
