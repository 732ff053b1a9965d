package wallet

import (
	"context"
	"errors"
	"slices"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
)

// Selection is an item a caller selects, as the contract's ItemSelection.
type Selection struct {
	Type    assets.ItemType
	Address string
	Action  assets.Action
}

// BuildRequest is one build: the caller's project, the wallet (the path's),
// the selection and the options (nil: not given).
type BuildRequest struct {
	ProjectID          string
	Wallet             string
	Items              []Selection
	DonationPercentage *float64
	PriorityFeeLevel   *string
}

// TicketedBuild is a build's transactions, each with its submission
// ticket.
type TicketedBuild struct {
	txbuild.Result
	// Tickets has one signed ticket per transaction of Result.Txs.
	Tickets []string
}

// Build checks the request, reads the selected items from the chain now,
// builds the transactions and issues their tickets.
func (s *Service) Build(ctx context.Context, req BuildRequest) (TicketedBuild, error) {
	wallet, err := signer(req.Wallet)
	if err != nil {
		return TicketedBuild{}, err
	}
	if err := validateBuild(req); err != nil {
		return TicketedBuild{}, err
	}
	p, err := s.project(ctx, req.ProjectID)
	if err != nil {
		return TicketedBuild{}, err
	}
	donation := 0.0
	if req.DonationPercentage != nil {
		donation = *req.DonationPercentage
	}
	if donation > 0 && p.DonationWallet == "" {
		return TicketedBuild{}, invalidf("donationPercentage", "project %s has no donation wallet: set one in the dashboard or leave donationPercentage out", p.ID)
	}
	params := txbuild.Params{
		Wallet: wallet, DonationPercentage: donation,
		ServiceFeeBPS: s.d.ServiceFeeBPS, Treasury: s.d.Treasury, HeadroomBytes: s.d.HeadroomBytes,
	}
	if req.PriorityFeeLevel != nil {
		params.PriorityLevel = *req.PriorityFeeLevel
	}
	if p.DonationWallet != "" {
		dw := solana.MustPublicKeyFromBase58(p.DonationWallet)
		params.DonationWallet = &dw
	}
	// The build's reads that do not depend on the items (blockhash,
	// recipients, fees) go out with the reads of the items.
	ctx = s.limited(ctx)
	bctx, cancel := context.WithTimeout(ctx, s.d.BuildTimeout)
	defer cancel()
	pf := s.d.Builder.Prefetch(bctx, params, onChain(req.Items))
	selected, err := s.resolve(ctx, wallet, req.Items)
	if err != nil {
		return TicketedBuild{}, err
	}
	params.Items = selected
	res, err := s.d.Builder.BuildWith(bctx, params, pf)
	var berr *txbuild.Error
	switch {
	case errors.As(err, &berr):
		return TicketedBuild{}, buildError(berr, req.Items)
	case errors.Is(err, txbuild.ErrCNFTPlanner):
		return TicketedBuild{}, &UnavailableError{msg: "the DAS indexer (or the cluster, reading a merkle tree) failed or did not answer while planning a compressed NFT burn; retry shortly", cause: err}
	case err != nil:
		return TicketedBuild{}, s.clusterError(err)
	}
	return s.issue(req.ProjectID, req.Wallet, res)
}

// onChain lists the addresses of the selected accounts: every item but the
// cNFTs (asset ids, not accounts).
func onChain(sel []Selection) []solana.PublicKey {
	var out []solana.PublicKey
	for _, it := range sel {
		if it.Type != assets.TypeCNFT {
			out = append(out, solana.MustPublicKeyFromBase58(it.Address))
		}
	}
	return out
}

// resolve reads the selected items' current state and checks each selection
// against it. Token accounts and Core assets are read from the chain by the
// Discoverer; a cNFT (an asset id, not an account) becomes an item the
// Builder's CNFTPlanner checks with the DAS indexer (owner, compressed, not
// burnt, not frozen, a V1 tree) when it builds the burn.
func (s *Service) resolve(ctx context.Context, wallet solana.PublicKey, sel []Selection) ([]txbuild.Selected, error) {
	out := make([]txbuild.Selected, len(sel))
	var onChain []int
	var addrs []solana.PublicKey
	var types []assets.ItemType
	for i, it := range sel {
		addr := solana.MustPublicKeyFromBase58(it.Address)
		if it.Type != assets.TypeCNFT {
			onChain, addrs, types = append(onChain, i), append(addrs, addr), append(types, it.Type)
			continue
		}
		if !s.d.Builder.BurnsCNFTs() {
			return nil, invalidf(itemField(i), "%s: compressed NFTs need DAS_RPC_URL on the service", addr)
		}
		out[i] = txbuild.Selected{Action: it.Action, Item: assets.Item{
			Type: assets.TypeCNFT, Address: addr, Owner: wallet, Actions: []assets.Action{assets.ActionBurn},
		}}
	}
	if len(addrs) == 0 {
		return out, nil
	}
	rctx, cancel := context.WithTimeout(ctx, s.d.RPCTimeout)
	defer cancel()
	items, err := s.d.Discoverer.ResolveAs(rctx, wallet, addrs, types)
	var ierr *assets.ItemError
	if errors.As(err, &ierr) {
		return nil, invalidf(fieldOf(sel, ierr.Item()), "%s: %s", ierr.Item(), ierr.Reason)
	}
	if err != nil {
		return nil, s.clusterError(err)
	}
	for k, it := range items {
		i := onChain[k]
		if it.Type != sel[i].Type {
			return nil, invalidf(itemField(i), "%s is a %s on chain now, not a %s: list the assets again", it.Address, it.Type, sel[i].Type)
		}
		if !slices.Contains(it.Actions, sel[i].Action) {
			return nil, invalidf(itemField(i), "%s cannot be %s now: %s", it.Address, pastTense(sel[i].Action), whyNot(it))
		}
		out[i] = txbuild.Selected{Item: it, Action: sel[i].Action}
	}
	return out, nil
}

func pastTense(a assets.Action) string {
	switch a {
	case assets.ActionClose:
		return "closed"
	case assets.ActionWithdraw, assets.ActionWithdrawExcess:
		return "withdrawn"
	}
	return "burned"
}

// whyNot explains why an item cannot take an action now.
func whyNot(it assets.Item) string {
	switch {
	case it.IsFrozen:
		return "the account is frozen by its mint's freeze authority"
	case it.HasCloseAuthority:
		return "another key is its close authority"
	case len(it.Actions) > 0:
		return "it takes only " + join(it.Actions, " or ")
	}
	return "the token program would refuse it"
}

// fieldOf names the selection of an address: items[i].
func fieldOf(sel []Selection, address string) string {
	for i, it := range sel {
		if it.Address == address {
			return itemField(i)
		}
	}
	return "items"
}

func buildError(e *txbuild.Error, sel []Selection) error {
	if e.Item() == "" {
		return invalidf("items", "%s", e.Message)
	}
	return invalidf(fieldOf(sel, e.Item()), "%s: %s", e.Item(), e.Message)
}

// issue signs a ticket per built transaction.
func (s *Service) issue(projectID, wallet string, res txbuild.Result) (TicketedBuild, error) {
	ttl := min(s.d.TicketTTL, ticket.MaxTTL)
	now := s.d.Now()
	out := TicketedBuild{Result: res, Tickets: make([]string, len(res.Txs))}
	for i, tx := range res.Txs {
		items := make([]ticket.Item, len(tx.Includes))
		for j, in := range tx.Includes {
			items[j] = ticket.Item{Type: string(in.Item.Type), Address: in.Item.Address.String(), Action: string(in.Action)}
		}
		tok, _, err := s.d.Tickets.Issue(ticket.Claims{
			Project: projectID, Wallet: wallet, MessageHash: ticket.Hash(tx.MessageHash), Includes: items,
			Type: string(tx.LedgerType), GrossRebate: tx.GrossRebate, NetRebate: tx.NetRebate, DonationAmount: tx.DonationAmount,
			NetworkFee: tx.NetworkFee, ServiceFee: tx.ServiceFee, Fees: tx.Fees, LastValidBlockHeight: res.LastValidBlockHeight,
			Summary: tx.Summary,
		}, now, ttl)
		if err != nil {
			return TicketedBuild{}, err
		}
		out.Tickets[i] = tok
	}
	return out, nil
}
