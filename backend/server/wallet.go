package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/assets"
	"github.com/reclaim-sol/reclaim/backend/auth"
	"github.com/reclaim-sol/reclaim/backend/project"
	"github.com/reclaim-sol/reclaim/backend/relay"
	"github.com/reclaim-sol/reclaim/backend/ticket"
	"github.com/reclaim-sol/reclaim/backend/txbuild"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// ProjectReader reads the caller's project.
type ProjectReader interface {
	GetProject(ctx context.Context, id string) (project.Project, error)
}

// Wallet holds the domain parts of the wallet service and their settings.
type Wallet struct {
	Discoverer *assets.Discoverer
	Builder    *txbuild.Builder
	Tickets    *ticket.Issuer
	Relay      *relay.Relay
	// ServiceFeeBPS and Treasury: the operator's fee and where it goes.
	ServiceFeeBPS int
	Treasury      *solana.PublicKey
	// HeadroomBytes are kept free in each transaction for wallet guards.
	HeadroomBytes int
	// TicketTTL is the longest life of a ticket.
	TicketTTL time.Duration
	// BuildTimeout bounds a whole build (one simulation per transaction).
	BuildTimeout time.Duration
	Now          func() time.Time
}

// blockhashLife is how long a blockhash stays valid on a cluster producing a
// block every 400 ms: 150 blocks. A ticket never outlives its transaction.
const blockhashLife = 60 * time.Second

type walletServer struct {
	w          Wallet
	projects   ProjectReader
	rpcTimeout time.Duration
	dbTimeout  time.Duration
}

// NewWalletServer returns the WalletService handler.
func NewWalletServer(w Wallet, projects ProjectReader, rpcTimeout, dbTimeout time.Duration) reclaimv1connect.WalletServiceHandler {
	if w.BuildTimeout == 0 {
		w.BuildTimeout = 20 * time.Second
	}
	if w.Now == nil {
		w.Now = time.Now
	}
	return &walletServer{w: w, projects: projects, rpcTimeout: rpcTimeout, dbTimeout: dbTimeout}
}

func (s *walletServer) ListAssets(ctx context.Context, req *connect.Request[reclaimv1.ListAssetsRequest]) (*connect.Response[reclaimv1.ListAssetsResponse], error) {
	m := req.Msg
	if err := validateWalletPath(m.GetAddress()); err != nil {
		return nil, err
	}
	after, err := parseCursor(m.GetCursor())
	if err != nil {
		return nil, err
	}
	if m.Limit != nil && (m.GetLimit() < 1 || m.GetLimit() > 1000) {
		return nil, invalidf("limit", "must be from 1 to 1000, got %d", m.GetLimit())
	}
	rctx, cancel := context.WithTimeout(ctx, s.rpcTimeout*2)
	defer cancel()
	listing, err := s.w.Discoverer.List(rctx, solana.MustPublicKeyFromBase58(m.GetAddress()))
	if err != nil {
		return nil, s.clusterError(err)
	}
	resp := &reclaimv1.ListAssetsResponse{WalletAddress: m.GetAddress(), Counts: map[string]uint32{}}
	for t, n := range listing.Counts {
		resp.Counts[t] = uint32(n)
	}
	start := 0
	if after != nil {
		for start < len(listing.Items) && !after.before(keyAt(listing, start)) {
			start++
		}
	}
	items := listing.Items[start:]
	if m.Limit != nil && len(items) > int(m.GetLimit()) {
		items = items[:m.GetLimit()]
		next := keyAt(listing, start+len(items)-1).cursor()
		resp.NextCursor = &next
	}
	resp.Items = make([]*reclaimv1.WalletItem, len(items))
	for i, it := range items {
		resp.Items[i] = walletItem(it)
	}
	return connect.NewResponse(resp), nil
}

// listingKey is an item's place in the listing's order (discovery order:
// token accounts by address, then the Sources' items by address), which is
// what a cursor holds: a page resumes after it even when items were closed
// or added meanwhile.
type listingKey struct {
	source  bool
	address string
}

func keyAt(l assets.Listing, i int) listingKey {
	return listingKey{source: i >= l.TokenAccounts, address: l.Items[i].Address.String()}
}

// before reports whether k comes before o.
func (k listingKey) before(o listingKey) bool {
	if k.source != o.source {
		return !k.source
	}
	return k.address < o.address
}

func (k listingKey) cursor() string {
	group := "a:"
	if k.source {
		group = "s:"
	}
	return base64.RawURLEncoding.EncodeToString([]byte(group + k.address))
}

func parseCursor(s string) (*listingKey, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	group, address, ok := strings.Cut(string(b), ":")
	if err != nil || !ok || (group != "a" && group != "s") || address == "" {
		return nil, invalidf("cursor", "is not a cursor this service returned")
	}
	return &listingKey{source: group == "s", address: address}, nil
}

func walletItem(it assets.Item) *reclaimv1.WalletItem {
	out := &reclaimv1.WalletItem{
		Type: it.Type, Address: it.Address.String(), Name: it.Name, TokenProgram: it.TokenProgram.String(),
		IsFrozen: it.IsFrozen, Actions: append([]string{}, it.Actions...),
	}
	mint, lamports := it.Mint.String(), it.Lamports
	out.Mint, out.Lamports = &mint, &lamports
	if it.Symbol != "" {
		out.Symbol = &it.Symbol
	}
	if it.ImageURI != "" {
		out.ImageUri = &it.ImageURI
	}
	if it.Type == assets.TypeToken {
		dec, bal, ui := uint32(it.Decimals), fmt.Sprint(it.Amount), it.UIBalance
		out.Decimals, out.Balance, out.UiBalance = &dec, &bal, &ui
		out.UsdValue = it.USDValue
	}
	if it.Collection != nil {
		out.Collection = &reclaimv1.Collection{Address: it.Collection.Address, Name: it.Collection.Name}
	}
	return out
}

func (s *walletServer) BuildTransactions(ctx context.Context, req *connect.Request[reclaimv1.BuildTransactionsRequest]) (*connect.Response[reclaimv1.BuildTransactionsResponse], error) {
	m := req.Msg
	if err := validateBuild(m); err != nil {
		return nil, err
	}
	caller := principalFrom(ctx)
	p, err := s.project(ctx, caller.ProjectID)
	if err != nil {
		return nil, err
	}
	if m.GetDonationPercentage() > 0 && p.DonationWallet == "" {
		return nil, invalidf("donationPercentage", "project %s has no donation wallet: set one in the dashboard or leave donationPercentage out", p.ID)
	}
	wallet := solana.MustPublicKeyFromBase58(m.GetAddress())
	selected, err := s.resolve(ctx, wallet, m.GetItems())
	if err != nil {
		return nil, err
	}
	params := txbuild.Params{
		Wallet: wallet, Items: selected, DonationPercentage: m.GetDonationPercentage(),
		ServiceFeeBPS: s.w.ServiceFeeBPS, Treasury: s.w.Treasury, PriorityLevel: m.GetPriorityFeeLevel(),
		HeadroomBytes: s.w.HeadroomBytes,
	}
	if p.DonationWallet != "" {
		dw := solana.MustPublicKeyFromBase58(p.DonationWallet)
		params.DonationWallet = &dw
	}
	bctx, cancel := context.WithTimeout(ctx, s.w.BuildTimeout)
	defer cancel()
	res, err := s.w.Builder.Build(bctx, params)
	var berr *txbuild.Error
	if errors.As(err, &berr) {
		return nil, buildError(berr, m.GetItems())
	}
	if errors.Is(err, txbuild.ErrCNFTPlanner) {
		return nil, unavailable("the DAS indexer (or the cluster, reading a merkle tree) failed or did not answer while planning a compressed NFT burn; retry shortly", err)
	}
	if err != nil {
		return nil, s.clusterError(err)
	}
	return s.respondBuilt(caller, m.GetAddress(), res)
}

// resolve reads the selected items' current state and checks each selection
// against it. Token accounts and Core assets are read from the chain by the
// Discoverer; a cNFT (an asset id, not an account) becomes an item the
// Builder's CNFTPlanner checks with the DAS indexer (owner, compressed, not
// burnt, not frozen, a V1 tree) when it builds the burn.
func (s *walletServer) resolve(ctx context.Context, wallet solana.PublicKey, sel []*reclaimv1.ItemSelection) ([]txbuild.Selected, error) {
	out := make([]txbuild.Selected, len(sel))
	var onChain []int
	var addrs []solana.PublicKey
	for i, it := range sel {
		addr := solana.MustPublicKeyFromBase58(it.GetAddress())
		if it.GetType() != assets.TypeCNFT {
			onChain, addrs = append(onChain, i), append(addrs, addr)
			continue
		}
		if !s.w.Builder.BurnsCNFTs() {
			return nil, invalidf(fmt.Sprintf("items[%d]", i), "%s: compressed NFTs need DAS_RPC_URL on the service", addr)
		}
		out[i] = txbuild.Selected{Action: it.GetAction(), Item: assets.Item{
			Type: assets.TypeCNFT, Address: addr, Owner: wallet, Actions: []string{assets.ActionBurn},
		}}
	}
	if len(addrs) == 0 {
		return out, nil
	}
	rctx, cancel := context.WithTimeout(ctx, s.rpcTimeout)
	defer cancel()
	items, err := s.w.Discoverer.Resolve(rctx, wallet, addrs)
	var ierr *assets.ItemError
	if errors.As(err, &ierr) {
		return nil, invalidf(itemField(sel, ierr.Address), "%s: %s", ierr.Address, ierr.Reason)
	}
	if err != nil {
		return nil, s.clusterError(err)
	}
	for k, it := range items {
		i := onChain[k]
		field := fmt.Sprintf("items[%d]", i)
		if it.Type != sel[i].GetType() {
			return nil, invalidf(field, "%s is a %s on chain now, not a %s: list the assets again", it.Address, it.Type, sel[i].GetType())
		}
		if !contains(it.Actions, sel[i].GetAction()) {
			return nil, invalidf(field, "%s cannot be %s now: %s", it.Address, pastTense(sel[i].GetAction()), whyNot(it))
		}
		out[i] = txbuild.Selected{Item: it, Action: sel[i].GetAction()}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func pastTense(action string) string {
	if action == assets.ActionClose {
		return "closed"
	}
	return "burned"
}

func whyNot(it assets.Item) string {
	switch {
	case it.IsFrozen:
		return "the account is frozen by its mint's freeze authority"
	case it.HasCloseAuthority:
		return "another key is its close authority"
	case len(it.Actions) > 0:
		return "it takes only " + strings.Join(it.Actions, " or ")
	}
	return "the token program would refuse it"
}

func itemField(sel []*reclaimv1.ItemSelection, address string) string {
	for i, it := range sel {
		if it.GetAddress() == address {
			return fmt.Sprintf("items[%d]", i)
		}
	}
	return "items"
}

func buildError(e *txbuild.Error, sel []*reclaimv1.ItemSelection) error {
	if e.Item == "" {
		return invalidf("items", "%s", e.Message)
	}
	return invalidf(itemField(sel, e.Item), "%s: %s", e.Item, e.Message)
}

// respondBuilt issues a ticket per transaction and writes the response.
func (s *walletServer) respondBuilt(caller auth.Principal, wallet string, res txbuild.Result) (*connect.Response[reclaimv1.BuildTransactionsResponse], error) {
	ttl := min(s.w.TicketTTL, blockhashLife)
	now := s.w.Now()
	out := &reclaimv1.BuildTransactionsResponse{
		RecentBlockhash: res.Blockhash.String(), LastValidBlockHeight: res.LastValidBlockHeight,
		Transactions: make([]*reclaimv1.BuiltTransaction, len(res.Txs)),
	}
	for i, tx := range res.Txs {
		includes := make([]*reclaimv1.ItemSelection, len(tx.Includes))
		items := make([]ticket.Item, len(tx.Includes))
		for j, in := range tx.Includes {
			items[j] = ticket.Item{Type: in.Item.Type, Address: in.Item.Address.String(), Action: in.Action}
			includes[j] = &reclaimv1.ItemSelection{Type: items[j].Type, Address: items[j].Address, Action: items[j].Action}
		}
		tok, _, err := s.w.Tickets.Issue(ticket.Claims{
			Project: caller.ProjectID, Wallet: wallet, MessageHash: ticket.Hash(tx.MessageHash), Includes: items,
			Type: tx.LedgerType, GrossRebate: tx.GrossRebate, NetRebate: tx.NetRebate, DonationAmount: tx.DonationAmount,
			NetworkFee: tx.NetworkFee, ServiceFee: tx.ServiceFee, Fees: tx.Fees, LastValidBlockHeight: res.LastValidBlockHeight,
			Built: tx.Built,
		}, now, ttl)
		if err != nil {
			return nil, err
		}
		out.Transactions[i] = &reclaimv1.BuiltTransaction{
			TransactionBase64: tx.Base64, Includes: includes, GrossRebate: tx.GrossRebate, NetRebate: tx.NetRebate,
			DonationAmount: tx.DonationAmount, ComputeUnitsNeeded: tx.ComputeUnits, SubmissionTicket: tok,
		}
	}
	t := res.Totals()
	out.Totals = &reclaimv1.Totals{ItemCount: uint32(t.ItemCount), GrossRebate: t.GrossRebate, NetRebate: t.NetRebate,
		DonationAmount: t.DonationAmount, Fees: t.Fees}
	return connect.NewResponse(out), nil
}

func (s *walletServer) SubmitTransactions(ctx context.Context, req *connect.Request[reclaimv1.SubmitTransactionsRequest]) (*connect.Response[reclaimv1.SubmitTransactionsResponse], error) {
	m := req.Msg
	if err := validateSubmit(m); err != nil {
		return nil, err
	}
	signed := make([]relay.Signed, len(m.GetSigned()))
	for i, sg := range m.GetSigned() {
		signed[i] = relay.Signed{TransactionBase64: sg.GetTransactionBase64(), Ticket: sg.GetSubmissionTicket()}
	}
	results, err := s.w.Relay.Submit(ctx, principalFrom(ctx).ProjectID, m.GetAddress(), signed)
	if err != nil {
		return nil, unavailable("the ledger did not answer; nothing more was sent, retry with the same tickets", err)
	}
	out := &reclaimv1.SubmitTransactionsResponse{Results: make([]*reclaimv1.SubmissionResult, len(results))}
	for i, r := range results {
		res := &reclaimv1.SubmissionResult{Status: r.Status, Includes: []*reclaimv1.ItemSelection{}}
		for _, in := range r.Includes {
			res.Includes = append(res.Includes, &reclaimv1.ItemSelection{Type: in.Type, Address: in.Address, Action: in.Action})
		}
		if r.Signature != "" {
			sig := r.Signature
			res.Signature = &sig
		}
		if r.Status == relay.StatusFailed {
			res.Error = &reclaimv1.SubmissionError{Code: r.Code, Message: r.Message}
		}
		out.Results[i] = res
	}
	return connect.NewResponse(out), nil
}

func (s *walletServer) StreamWalletAssets(ctx context.Context, req *connect.Request[reclaimv1.StreamWalletAssetsRequest], stream *connect.ServerStream[reclaimv1.StreamWalletAssetsResponse]) error {
	if err := requireWallet(ctx, req.Msg.GetAddress()); err != nil {
		return err
	}
	if err := validateWalletPath(req.Msg.GetAddress()); err != nil {
		return err
	}
	size, err := chunkSize(req.Msg.ChunkSize)
	if err != nil {
		return err
	}
	// Headers now: an HTTP/1.1 client waits for them before it reads on.
	if err := stream.Send(nil); err != nil {
		return err
	}
	return s.streamChunks(ctx, req.Msg.GetAddress(), size, stream.Send)
}

func (s *walletServer) project(ctx context.Context, id string) (project.Project, error) {
	ctx, cancel := context.WithTimeout(ctx, s.dbTimeout)
	defer cancel()
	p, err := s.projects.GetProject(ctx, id)
	if err != nil {
		return p, unavailable("the database did not answer in time; retry shortly", err)
	}
	return p, nil
}

// clusterError reports a cluster that failed or did not answer.
func (s *walletServer) clusterError(err error) error {
	return unavailable(fmt.Sprintf("the Solana cluster did not answer within %s or failed; retry shortly", s.rpcTimeout), err)
}

// requireWallet enforces a session's wallet binding where the interceptor
// cannot see the request (server streams).
func requireWallet(ctx context.Context, address string) error {
	p := principalFrom(ctx)
	if p.Kind == auth.KindSession && p.Wallet != address {
		return &auth.Error{Message: "wallet mismatch: this session is bound to another wallet"}
	}
	return nil
}
