package server

import (
	"context"
	"strconv"
	"time"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/service/wallet"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// walletServer is the WalletService face of wallet.Service: it converts
// requests and responses, nothing more.
type walletServer struct {
	svc *wallet.Service
}

var _ reclaimv1connect.WalletServiceHandler = (*walletServer)(nil)

func newWalletServer(svc *wallet.Service) *walletServer { return &walletServer{svc: svc} }

func (s *walletServer) ListAssets(ctx context.Context, req *connect.Request[reclaimv1.ListAssetsRequest]) (*connect.Response[reclaimv1.ListAssetsResponse], error) {
	if err := gateway.CheckRules(req.Msg); err != nil {
		return nil, err
	}
	m := req.Msg
	owner, err := wallet.ParseAddress(m.GetAddress())
	if err != nil {
		return nil, err
	}
	l, err := s.svc.List(ctx, owner, wallet.Page{Limit: m.Limit, Cursor: m.GetCursor()})
	if err != nil {
		return nil, err
	}
	resp := &reclaimv1.ListAssetsResponse{WalletAddress: m.GetAddress(), Counts: make(map[string]uint32, len(l.Counts)),
		Items: walletItems(l.Items)}
	for t, n := range l.Counts {
		resp.Counts[string(t)] = uint32(n)
	}
	if l.NextCursor != "" {
		resp.NextCursor = &l.NextCursor
	}
	return connect.NewResponse(resp), nil
}

func walletItems(items []assets.Item) []*reclaimv1.WalletItem {
	out := make([]*reclaimv1.WalletItem, len(items))
	for i, it := range items {
		out[i] = walletItem(it)
	}
	return out
}

func walletItem(it assets.Item) *reclaimv1.WalletItem {
	out := &reclaimv1.WalletItem{
		Type: string(it.Type), Address: it.Address.String(), Name: it.Name, TokenProgram: it.TokenProgram.String(),
		IsFrozen: it.IsFrozen, Actions: make([]string, len(it.Actions)),
	}
	for i, a := range it.Actions {
		out.Actions[i] = string(a)
	}
	lamports := it.Lamports
	out.Lamports = &lamports
	if !it.Mint.IsZero() { // program buffers, nonce and stake accounts have none
		mint := it.Mint.String()
		out.Mint = &mint
	}
	if it.Symbol != "" {
		out.Symbol = &it.Symbol
	}
	if it.ImageURI != "" {
		out.ImageUri = &it.ImageURI
	}
	if it.Type == assets.TypeToken {
		dec, bal, ui := uint32(it.Decimals), strconv.FormatUint(it.Amount, 10), it.UIBalance
		out.Decimals, out.Balance, out.UiBalance = &dec, &bal, &ui
		out.UsdValue = it.USDValue
	}
	if it.Collection != nil {
		out.Collection = &reclaimv1.Collection{Address: it.Collection.Address, Name: it.Collection.Name}
	}
	out.LookupTable = lookupTableState(it.LookupTable)
	return out
}

// lookupTableState is a lookup table's status on the wire; nil for other
// items.
func lookupTableState(lt *assets.LookupTable) *reclaimv1.LookupTableState {
	if lt == nil {
		return nil
	}
	out := &reclaimv1.LookupTableState{Status: lt.Status, Addresses: uint32(min(lt.Addresses, lookuptable.MaxAddresses))}
	if lt.Status != assets.TableActive {
		out.DeactivationSlot = &lt.DeactivationSlot
	}
	if lt.Status == assets.TableDeactivating {
		at := lt.ClosableAt.UTC().Format(time.RFC3339)
		out.ClosableFromSlot, out.ClosableAt = &lt.ClosableSlot, &at
	}
	return out
}

func (s *walletServer) BuildTransactions(ctx context.Context, req *connect.Request[reclaimv1.BuildTransactionsRequest]) (*connect.Response[reclaimv1.BuildTransactionsResponse], error) {
	if err := gateway.CheckRules(req.Msg); err != nil {
		return nil, err
	}
	m := req.Msg
	signer, err := wallet.ParseSigner(m.GetAddress())
	if err != nil {
		return nil, err
	}
	level := m.PriorityFeeLevel
	in := wallet.BuildRequest{
		ProjectID: gateway.PrincipalFrom(ctx).ProjectID, Wallet: signer, Items: make([]wallet.Selection, len(m.GetItems())),
		SelectAll: m.GetSelectAll(), DonationPercentage: m.DonationPercentage, PriorityFeeLevel: (*wallet.PriorityLevel)(level),
		TransactionVersion: m.GetTransactionVersion(),
	}
	for i, it := range m.GetItems() {
		in.Items[i] = wallet.SelectionOf(assets.ItemType(it.GetType()), it.GetAddress(), assets.Action(it.GetAction()))
	}
	built, err := s.svc.Build(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &reclaimv1.BuildTransactionsResponse{
		RecentBlockhash: built.Blockhash.String(), LastValidBlockHeight: built.LastValidBlockHeight,
		Transactions: make([]*reclaimv1.BuiltTransaction, len(built.Txs)),
	}
	for i, tx := range built.Txs {
		includes := make([]*reclaimv1.ItemSelection, len(tx.Includes))
		for j, in := range tx.Includes {
			includes[j] = &reclaimv1.ItemSelection{Type: string(in.Item.Type), Address: in.Item.Address.String(), Action: string(in.Action)}
		}
		out.Transactions[i] = &reclaimv1.BuiltTransaction{
			TransactionBase64: tx.Base64, Includes: includes, GrossRebate: tx.GrossRebate, NetRebate: tx.NetRebate,
			DonationAmount: tx.DonationAmount, ComputeUnitsNeeded: tx.ComputeUnits, SubmissionTicket: built.Tickets[i],
			RentRebate: tx.RentRebate, OwnBalanceRebate: tx.OwnBalance(),
			Destructive: tx.Destructive(), Burns: burnsOf(tx.Burns), TransactionVersion: tx.Version,
		}
	}
	out.Totals = totals(built.Totals())
	return connect.NewResponse(out), nil
}

// burnsOf states what a transaction destroys; amounts are decimal strings
// (a u64 outgrows a JSON number's exact integers).
func burnsOf(bs []txbuild.Burn) []*reclaimv1.Burn {
	out := make([]*reclaimv1.Burn, len(bs))
	for i, b := range bs {
		out[i] = &reclaimv1.Burn{Mint: b.Mint.String(), Amount: strconv.FormatUint(b.Amount, 10), Decimals: uint32(b.Decimals),
			Name: b.Name, Symbol: b.Symbol, Type: string(b.Type), Address: b.Address.String()}
	}
	return out
}

func totals(t txbuild.Totals) *reclaimv1.Totals {
	return &reclaimv1.Totals{ItemCount: uint32(t.ItemCount), GrossRebate: t.GrossRebate, NetRebate: t.NetRebate,
		DonationAmount: t.DonationAmount, Fees: t.Fees, RentRebate: t.RentRebate, OwnBalanceRebate: t.OwnBalance()}
}

func (s *walletServer) GetSummary(ctx context.Context, req *connect.Request[reclaimv1.GetSummaryRequest]) (*connect.Response[reclaimv1.GetSummaryResponse], error) {
	if err := gateway.CheckRules(req.Msg); err != nil {
		return nil, err
	}
	m := req.Msg
	signer, err := wallet.ParseSigner(m.GetAddress())
	if err != nil {
		return nil, err
	}
	level := m.PriorityFeeLevel
	sum, err := s.svc.Summary(ctx, wallet.SummaryRequest{
		ProjectID: gateway.PrincipalFrom(ctx).ProjectID, Wallet: signer,
		DonationPercentage: m.DonationPercentage, PriorityFeeLevel: (*wallet.PriorityLevel)(level),
		TransactionVersion: m.GetTransactionVersion(),
	})
	if err != nil {
		return nil, err
	}
	out := &reclaimv1.GetSummaryResponse{WalletAddress: m.GetAddress(), Types: make(map[string]*reclaimv1.TypeSummary, len(sum.Types)),
		Totals: totals(sum.Totals), TransactionCount: uint32(sum.TransactionCount)}
	for t, ts := range sum.Types {
		out.Types[string(t)] = &reclaimv1.TypeSummary{Count: uint32(ts.Count), Lamports: ts.Lamports, RentLamports: ts.Rent}
	}
	return connect.NewResponse(out), nil
}

func (s *walletServer) SubmitTransactions(ctx context.Context, req *connect.Request[reclaimv1.SubmitTransactionsRequest]) (*connect.Response[reclaimv1.SubmitTransactionsResponse], error) {
	if err := gateway.CheckRules(req.Msg); err != nil {
		return nil, err
	}
	m := req.Msg
	signer, err := wallet.ParseSigner(m.GetAddress())
	if err != nil {
		return nil, err
	}
	signed := make([]wallet.Signed, len(m.GetSigned()))
	for i, sg := range m.GetSigned() {
		signed[i] = wallet.Signed{TransactionBase64: sg.GetTransactionBase64(), Ticket: sg.GetSubmissionTicket(), Signature: sg.GetSignature()}
	}
	results, err := s.svc.Submit(ctx, gateway.PrincipalFrom(ctx).ProjectID, signer, signed)
	if err != nil {
		return nil, err
	}
	out := &reclaimv1.SubmitTransactionsResponse{Results: make([]*reclaimv1.SubmissionResult, len(results))}
	for i, r := range results {
		out.Results[i] = submissionResult(r)
	}
	return connect.NewResponse(out), nil
}

func submissionResult(r relay.Result) *reclaimv1.SubmissionResult {
	res := &reclaimv1.SubmissionResult{Status: string(r.Status), Includes: selections(r.Includes)}
	if r.Signature != "" {
		sig := r.Signature
		res.Signature = &sig
	}
	if r.Status == relay.StatusFailed {
		res.Error = &reclaimv1.SubmissionError{Code: string(r.Code), Message: r.Message}
	}
	return res
}

func selections(items []ticket.Item) []*reclaimv1.ItemSelection {
	out := make([]*reclaimv1.ItemSelection, len(items))
	for i, in := range items {
		out[i] = &reclaimv1.ItemSelection{Type: in.Type, Address: in.Address, Action: in.Action}
	}
	return out
}

func (s *walletServer) GetSubmissions(ctx context.Context, req *connect.Request[reclaimv1.GetSubmissionsRequest]) (*connect.Response[reclaimv1.GetSubmissionsResponse], error) {
	if err := gateway.CheckRules(req.Msg); err != nil {
		return nil, err
	}
	m := req.Msg
	owner, err := wallet.ParseAddress(m.GetAddress())
	if err != nil {
		return nil, err
	}
	subs, err := s.svc.Submissions(ctx, wallet.StatusRequest{
		ProjectID: gateway.PrincipalFrom(ctx).ProjectID, Wallet: owner, Signatures: m.GetSignature(), WaitSeconds: m.WaitSeconds,
		WaitUntil: m.GetWaitUntil(),
	})
	if err != nil {
		return nil, err
	}
	out := &reclaimv1.GetSubmissionsResponse{Submissions: make([]*reclaimv1.SubmissionStatus, len(subs))}
	for i, sub := range subs {
		out.Submissions[i] = submissionStatus(sub)
	}
	return connect.NewResponse(out), nil
}

func submissionStatus(sub relay.Submission) *reclaimv1.SubmissionStatus {
	out := &reclaimv1.SubmissionStatus{Signature: sub.Signature, Status: string(sub.State), Includes: selections(sub.Includes)}
	switch sub.State {
	case relay.StateFailed, relay.StateExpired:
		out.Error = &reclaimv1.SubmissionError{Code: string(sub.Code), Message: sub.Message}
	case relay.StateLanded, relay.StateConfirmed:
		l := sub.Landed
		if sub.State == relay.StateConfirmed {
			at := sub.ConfirmedAt.UTC().Format(time.RFC3339)
			out.ConfirmedAt = &at
		}
		if sub.Slot > 0 { // 0: confirmed before slots were kept
			slot := uint64(sub.Slot)
			out.Slot = &slot
		}
		out.Landed = &reclaimv1.LandedFigures{Fee: uint64(l.Fees()), GrossRebate: uint64(l.GrossRebate), NetRebate: l.NetRebate,
			DonationAmount: uint64(l.DonationAmount)}
		if sub.Split { // entries recorded before the split leave both 0
			out.Landed.RentRebate, out.Landed.OwnBalanceRebate = uint64(sub.Rent), uint64(sub.OwnBalance)
		}
	}
	return out
}

func (s *walletServer) StreamWalletAssets(ctx context.Context, req *connect.Request[reclaimv1.StreamWalletAssetsRequest], stream *connect.ServerStream[reclaimv1.StreamWalletAssetsResponse]) error {
	// The wallet binding is a credential: checked before the rules.
	if err := requireWallet(ctx, req.Msg.GetAddress()); err != nil {
		return err
	}
	if err := gateway.CheckRules(req.Msg); err != nil {
		return err
	}
	in, err := wallet.ParseStream(req.Msg.GetAddress(), req.Msg.ChunkSize)
	if err != nil {
		return err
	}
	// Headers now: an HTTP/1.1 client waits for them before it reads on.
	if err := stream.Send(nil); err != nil {
		return err
	}
	return s.streamChunks(ctx, req.Msg.GetAddress(), in, stream.Send)
}

// streamChunks sends the wallet's chunks as stream messages, naming the
// wallet as the client wrote it (address); a failed send is a
// *streamSendError (the client is gone or too slow).
func (s *walletServer) streamChunks(ctx context.Context, address string, in wallet.StreamRequest, send func(*reclaimv1.StreamWalletAssetsResponse) error) error {
	return s.svc.Stream(ctx, in, func(c wallet.Chunk) error {
		msg := &reclaimv1.StreamWalletAssetsResponse{
			WalletAddress: address, ChunkIndex: c.Index, Complete: c.Last, Items: walletItems(c.Items),
			Counts: make(map[string]uint32, len(c.Counts)),
		}
		if len(c.Early) > 0 {
			msg.EarlyItems = walletItems(c.Early)
		}
		for t, n := range c.Counts {
			msg.Counts[string(t)] = n
		}
		if err := send(msg); err != nil {
			return &streamSendError{err: err}
		}
		return nil
	})
}

// requireWallet enforces a session's wallet binding where the interceptor
// cannot see the request (server streams).
func requireWallet(ctx context.Context, address string) error {
	p := gateway.PrincipalFrom(ctx)
	if p.Kind == auth.KindSession && p.Wallet != address {
		return fault.New(fault.KindUnauthenticated, "wallet mismatch: this session is bound to another wallet")
	}
	return nil
}
