package wallet

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// Selection is an item a caller selects, as the contract's ItemSelection,
// its address decoded (SelectionOf).
type Selection struct {
	Type    assets.ItemType
	Address solana.PublicKey
	Action  assets.Action

	// badAddress is why the caller's address is missing or not one
	// (SelectionOf); Address is zero then.
	badAddress error
}

// BuildRequest is one build: the caller's project, the wallet (the path's,
// a key that can sign: ParseSigner), the selection and the options (nil:
// not given).
type BuildRequest struct {
	ProjectID          string
	Wallet             solana.PublicKey
	Items              []Selection
	DonationPercentage *float64
	PriorityFeeLevel   *PriorityLevel
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
	wallet := req.Wallet
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
		params.PriorityLevel = string(*req.PriorityFeeLevel)
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
		return TicketedBuild{}, buildError(berr, len(req.Items))
	case errors.Is(err, txbuild.ErrCNFTPlanner):
		return TicketedBuild{}, fault.Unavailable("the DAS indexer (or the cluster, reading a merkle tree) failed or did not answer while planning a compressed NFT burn; retry shortly", err)
	case err != nil:
		return TicketedBuild{}, s.clusterError(err)
	}
	return s.issue(req.ProjectID, wallet.String(), res)
}

// onChain lists the addresses of the selected accounts: every item but the
// cNFTs (asset ids, not accounts).
func onChain(sel []Selection) []solana.PublicKey {
	var out []solana.PublicKey
	for _, it := range sel {
		if it.Type != assets.TypeCNFT {
			out = append(out, it.Address)
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
	for i, it := range sel {
		addr := it.Address
		if it.Type != assets.TypeCNFT {
			onChain, addrs = append(onChain, i), append(addrs, addr)
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
	items, err := s.d.Discoverer.Resolve(rctx, wallet, addrs)
	var ierr *assets.ItemError
	if errors.As(err, &ierr) {
		return nil, invalidf(itemAt(onChain, ierr.Index), "%s: %s", ierr.Item(), ierr.Reason)
	}
	if err != nil {
		return nil, s.clusterError(err)
	}
	for k, it := range items {
		i := onChain[k]
		if it.Type != sel[i].Type {
			return nil, invalidf(itemField(i), "%s is %s on chain now, not %s: list the assets again", it.Address, withArticle(it.Type), withArticle(sel[i].Type))
		}
		if !slices.Contains(it.Actions, sel[i].Action) {
			return nil, invalidf(itemField(i), "%s cannot be %s now: %s", it.Address, pastTense(sel[i].Action), whyNot(it))
		}
		out[i] = txbuild.Selected{Item: it, Action: sel[i].Action}
	}
	return out, nil
}

// withArticle is a type with its indefinite article as it is read aloud:
// an nft, an empty_account, a token, a cnft.
func withArticle(t assets.ItemType) string {
	if t == assets.TypeNFT || (t != "" && strings.ContainsRune("aeiou", rune(t[0]))) {
		return "an " + string(t)
	}
	return "a " + string(t)
}

func pastTense(a assets.Action) string {
	if a == assets.ActionClose {
		return "closed"
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

// buildError is the caller's mistake the Builder found among n items; one
// about an item names it by its position, which Params.Items shares with
// the selection.
func buildError(e *txbuild.Error, n int) error {
	if e.Item() == "" {
		return invalidf("items", "%s", e.Message)
	}
	field := "items"
	if e.Index >= 0 && e.Index < n {
		field = itemField(e.Index)
	}
	return invalidf(field, "%s: %s", e.Item(), e.Message)
}

// itemAt names the selection at position k of the items read on chain
// (onChain holds their positions in the request), or the whole selection
// for a position out of range.
func itemAt(onChain []int, k int) string {
	if k < 0 || k >= len(onChain) {
		return "items"
	}
	return itemField(onChain[k])
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
