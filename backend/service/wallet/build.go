package wallet

import (
	"context"
	"errors"
	"fmt"
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
// a key that can sign: ParseSigner), the selection (Items, or SelectAll:
// every safe item listed now, see selectSafe) and the options (nil: not
// given).
type BuildRequest struct {
	ProjectID          string
	Wallet             solana.PublicKey
	Items              []Selection
	SelectAll          bool
	DonationPercentage *float64
	PriorityFeeLevel   *PriorityLevel
	// TransactionVersion is the version of the transactions: 0 or 1
	// (txbuild.Version0, txbuild.Version1).
	TransactionVersion uint32
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
	if err := validateBuild(req); err != nil {
		return TicketedBuild{}, err
	}
	params, err := s.params(ctx, req.ProjectID, req.Wallet, req.DonationPercentage, req.PriorityFeeLevel, req.TransactionVersion)
	if err != nil {
		return TicketedBuild{}, err
	}
	ctx = s.limited(ctx)
	bctx, cancel := context.WithTimeout(ctx, s.d.BuildTimeout)
	defer cancel()
	var res txbuild.Result
	if req.SelectAll {
		if _, res, err = s.buildSafe(ctx, bctx, params); err != nil {
			return TicketedBuild{}, err
		}
		if len(res.Txs) == 0 {
			return TicketedBuild{}, invalidf("selectAll", "nothing in wallet %s is safe to reclaim now (empty accounts, excess rent, program buffers, nonce or stake accounts): list its assets and select items", req.Wallet)
		}
		return s.issue(req.ProjectID, req.Wallet.String(), res)
	}
	// The build's reads that do not depend on the items (blockhash,
	// recipients, fees) go out with the reads of the items.
	pf := s.d.Builder.Prefetch(bctx, params, onChain(req.Items))
	selected, err := s.resolve(ctx, req.Wallet, req.Items)
	if err != nil {
		return TicketedBuild{}, err
	}
	params.Items = selected
	res, err = s.d.Builder.BuildWith(bctx, params, pf)
	if err != nil {
		return TicketedBuild{}, s.buildFailed(err, func(i int) string {
			if i >= 0 && i < len(req.Items) {
				return itemField(i)
			}
			return "items"
		})
	}
	return s.issue(req.ProjectID, req.Wallet.String(), res)
}

// params are the build's parameters but its items: the donation (refused
// when the project has no wallet for it), the priority, the operator's fee,
// the transaction version.
func (s *Service) params(ctx context.Context, projectID string, wallet solana.PublicKey, donationPct *float64, level *PriorityLevel, version uint32) (txbuild.Params, error) {
	p, err := s.project(ctx, projectID)
	if err != nil {
		return txbuild.Params{}, err
	}
	donation := 0.0
	if donationPct != nil {
		donation = *donationPct
	}
	if donation > 0 && p.DonationWallet == "" {
		return txbuild.Params{}, invalidf("donationPercentage", "project %s has no donation wallet: set one on the console's Settings page or leave donationPercentage out", p.ID)
	}
	params := txbuild.Params{
		Wallet: wallet, DonationPercentage: donation,
		ServiceFeeBPS: s.d.ServiceFeeBPS, Treasury: s.d.Treasury, HeadroomBytes: s.d.HeadroomBytes,
		Version: version,
	}
	if level != nil {
		params.PriorityLevel = string(*level)
	}
	if p.DonationWallet != "" {
		dw, err := solana.PublicKeyFromBase58(p.DonationWallet)
		if err != nil {
			// The console checks the address it stores: one that does not
			// decode is the store's fault, not the caller's.
			return txbuild.Params{}, fmt.Errorf("project %s: stored donation wallet %q does not decode: %w", p.ID, p.DonationWallet, err)
		}
		params.DonationWallet = &dw
	}
	return params, nil
}

// buildFailed is the error of a Builder's build: a mistake in the request
// names the item at fault by field (its position in Params.Items), the
// indexer or the cluster failing is unavailable.
func (s *Service) buildFailed(err error, field func(i int) string) error {
	var berr *assets.ItemError
	switch {
	case errors.As(err, &berr):
		if berr.Item() == "" {
			return invalidf(field(-1), "%s", berr.Reason)
		}
		return invalidf(field(berr.Index), "%s: %s", berr.Item(), berr.Reason)
	case errors.Is(err, txbuild.ErrCNFTPlanner):
		return fault.Unavailable("the DAS indexer (or the cluster, reading a merkle tree) failed or did not answer while planning a compressed NFT burn; retry shortly", err)
	}
	return s.clusterError(err)
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
	var types []assets.ItemType
	for i, it := range sel {
		addr := it.Address
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
	switch a {
	case assets.ActionClose:
		return "closed"
	case assets.ActionWithdraw, assets.ActionWithdrawExcess:
		return "withdrawn"
	case assets.ActionDeactivate:
		return "deactivated"
	}
	return "burned"
}

// whyNot explains why an item cannot take an action now.
func whyNot(it assets.Item) string {
	if why := assets.WhyNotTable(it); why != "" {
		return why
	}
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
			Type: string(tx.LedgerType), GrossRebate: tx.GrossRebate, RentRebate: &tx.RentRebate, NetRebate: tx.NetRebate, DonationAmount: tx.DonationAmount,
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
