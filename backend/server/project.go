package server

import (
	"context"
	"strconv"
	"time"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

type projectServer struct {
	ledger    *ledger.Service
	dbTimeout time.Duration
}

// NewProjectServer returns the ProjectService handler.
func NewProjectServer(l *ledger.Service, dbTimeout time.Duration) reclaimv1connect.ProjectServiceHandler {
	return &projectServer{ledger: l, dbTimeout: dbTimeout}
}

func (s *projectServer) GetStats(ctx context.Context, req *connect.Request[reclaimv1.GetStatsRequest]) (*connect.Response[reclaimv1.GetStatsResponse], error) {
	if err := gateway.CheckRules(req.Msg); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.dbTimeout)
	defer cancel()
	st, err := s.ledger.Stats(ctx, gateway.PrincipalFrom(ctx).ProjectID)
	if err != nil {
		return nil, dbError(err)
	}
	return connect.NewResponse(&reclaimv1.GetStatsResponse{
		TotalGrossRebate:      uint64(st.TotalGrossRebate),
		TotalNetRebate:        st.TotalNetRebate,
		TotalTransactionCount: uint64(st.TotalTransactionCount),
		TotalWallets:          uint64(st.TotalWallets),
		TotalDonations:        uint64(st.TotalDonations),
		TotalDonationAmount:   uint64(st.TotalDonationAmount),
		TotalRentRebate:       uint64(st.TotalRentRebate),
		TotalOwnBalanceRebate: uint64(st.TotalOwnBalanceRebate),
	}), nil
}

func (s *projectServer) GetLeaderboard(ctx context.Context, req *connect.Request[reclaimv1.GetLeaderboardRequest]) (*connect.Response[reclaimv1.GetLeaderboardResponse], error) {
	if err := gateway.CheckRules(req.Msg); err != nil {
		return nil, err
	}
	m := req.Msg
	params := ledger.FilterParams{
		Payer:           m.GetPayer(),
		TransactionType: m.GetTransactionType(),
		StartDate:       m.GetStartDate(),
		EndDate:         m.GetEndDate(),
	}
	if m.Limit != nil {
		params.Limit = strconv.FormatUint(uint64(m.GetLimit()), 10)
	}
	if m.Offset != nil {
		params.Offset = strconv.FormatUint(uint64(m.GetOffset()), 10)
	}
	ctx, cancel := context.WithTimeout(ctx, s.dbTimeout)
	defer cancel()
	entries, err := s.ledger.Leaderboard(ctx, gateway.PrincipalFrom(ctx).ProjectID, params)
	if err != nil {
		return nil, dbError(err)
	}
	out := make([]*reclaimv1.LeaderboardEntry, len(entries))
	for i, e := range entries {
		counts := make(map[string]uint64, len(e.TransactionTypeCounts))
		for k, v := range e.TransactionTypeCounts {
			counts[k] = uint64(v)
		}
		out[i] = &reclaimv1.LeaderboardEntry{
			Payer:                 e.Payer,
			TotalGrossRebate:      uint64(e.TotalGrossRebate),
			TotalNetRebate:        e.TotalNetRebate,
			TotalTransactionCount: uint64(e.TotalTransactionCount),
			TransactionTypeCounts: counts,
			TotalDonationAmount:   uint64(e.TotalDonationAmount),
			TotalDonationCount:    uint64(e.TotalDonationCount),
			TotalCommunityAmount:  uint64(e.TotalCommunityAmount),
		}
	}
	return connect.NewResponse(&reclaimv1.GetLeaderboardResponse{Entries: out}), nil
}

// dbError marks storage failures as unavailability, leaving the caller's
// own mistakes (invalid filters) as they are.
func dbError(err error) error {
	if _, ok := fault.As(err, fault.KindInvalid); ok {
		return err
	}
	return fault.Unavailable("the database did not answer in time; retry shortly", err)
}
