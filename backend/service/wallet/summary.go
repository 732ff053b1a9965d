package wallet

import (
	"context"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
)

// SummaryRequest asks what a wallet holds and what a select-all build of
// it would return at the donation and priority given (nil: not given).
type SummaryRequest struct {
	ProjectID          string
	Wallet             solana.PublicKey
	DonationPercentage *float64
	PriorityFeeLevel   *PriorityLevel
	// TransactionVersion of that build: 0 or 1.
	TransactionVersion uint32
}

// TypeSummary is what a wallet holds of one type: how many items, the
// lamports their reclaims return, and the part of them that is rent
// (assets.Item.Rent; the rest is the wallet's own SOL).
type TypeSummary struct {
	Count    int
	Lamports uint64
	Rent     uint64
}

// Summary is a wallet's summary.
type Summary struct {
	// Types has one entry per type of assets.ItemTypes, zeros included.
	Types map[assets.ItemType]TypeSummary
	// Totals are those of the select-all build, zero when nothing is safe.
	Totals txbuild.Totals
	// TransactionCount is how many transactions that build takes.
	TransactionCount int
}

// Summary lists the wallet, sums each type, and builds the select-all
// build as Build does (the same listing, packing, simulations and fee
// reads), without issuing tickets: its totals are those the build returns
// while the chain and the fee market stay as they are.
func (s *Service) Summary(ctx context.Context, req SummaryRequest) (Summary, error) {
	params, err := s.params(ctx, req.ProjectID, req.Wallet, req.DonationPercentage, req.PriorityFeeLevel, req.TransactionVersion)
	if err != nil {
		return Summary{}, err
	}
	ctx = s.limited(ctx)
	bctx, cancel := context.WithTimeout(ctx, s.d.BuildTimeout)
	defer cancel()
	listed, res, err := s.buildSafe(ctx, bctx, params)
	if err != nil {
		return Summary{}, err
	}
	out := Summary{Types: make(map[assets.ItemType]TypeSummary, len(assets.ItemTypes())), Totals: res.Totals(), TransactionCount: len(res.Txs)}
	for _, t := range assets.ItemTypes() {
		out.Types[t] = TypeSummary{}
	}
	for _, it := range listed.Items {
		ts := out.Types[it.Type]
		ts.Count++
		ts.Lamports += it.Lamports
		ts.Rent += min(it.Rent, it.Lamports)
		out.Types[it.Type] = ts
	}
	return out, nil
}

// buildSafe lists the wallet and builds every safe item it holds now
// (selectSafe) with params; a Result without transactions when there is
// none. The build's reads that do not depend on the items go out with the
// listing; the listed items are the chain's state now, so they are not
// read again.
func (s *Service) buildSafe(ctx, bctx context.Context, params txbuild.Params) (assets.Listing, txbuild.Result, error) {
	pctx, stop := context.WithCancel(bctx)
	defer stop() // the prefetch's reads end with the call when nothing is built
	pf := s.d.Builder.Prefetch(pctx, params, nil)
	lctx, cancel := context.WithTimeout(ctx, s.d.RPCTimeout*2)
	defer cancel()
	listed, err := s.d.Discoverer.List(lctx, params.Wallet)
	if err != nil {
		return assets.Listing{}, txbuild.Result{}, s.clusterError(err)
	}
	params.Items = selectSafe(listed.Items)
	if len(params.Items) == 0 {
		return listed, txbuild.Result{}, nil
	}
	res, err := s.d.Builder.BuildWith(bctx, params, pf)
	if err != nil {
		return assets.Listing{}, txbuild.Result{}, s.buildFailed(err, func(int) string { return "selectAll" })
	}
	return listed, res, nil
}

// selectSafe selects the items whose action destroys nothing the owner
// could still want (assets.Item.SafeAction), in listing order, at most
// MaxBuildItems of them, as a build request may select.
func selectSafe(items []assets.Item) []txbuild.Selected {
	var out []txbuild.Selected
	for _, it := range items {
		if a, ok := it.SafeAction(); ok && len(out) < MaxBuildItems {
			out = append(out, txbuild.Selected{Item: it, Action: a})
		}
	}
	return out
}
