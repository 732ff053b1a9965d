package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/auth"
	"github.com/reclaim-sol/reclaim/backend/project"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// Cluster is what the wallet service needs of the Solana cluster so far.
type Cluster interface {
	Health(ctx context.Context) error
}

// ProjectReader reads the caller's project.
type ProjectReader interface {
	GetProject(ctx context.Context, id string) (project.Project, error)
}

type walletServer struct {
	cluster    Cluster
	projects   ProjectReader
	rpcTimeout time.Duration
	dbTimeout  time.Duration
}

// NewWalletServer returns the WalletService handler.
func NewWalletServer(cluster Cluster, projects ProjectReader, rpcTimeout, dbTimeout time.Duration) reclaimv1connect.WalletServiceHandler {
	return &walletServer{cluster: cluster, projects: projects, rpcTimeout: rpcTimeout, dbTimeout: dbTimeout}
}

func (s *walletServer) ListAssets(ctx context.Context, req *connect.Request[reclaimv1.ListAssetsRequest]) (*connect.Response[reclaimv1.ListAssetsResponse], error) {
	if err := validateWalletPath(req.Msg.GetAddress()); err != nil {
		return nil, err
	}
	return nil, s.notYet(ctx, "asset discovery")
}

func (s *walletServer) BuildTransactions(ctx context.Context, req *connect.Request[reclaimv1.BuildTransactionsRequest]) (*connect.Response[reclaimv1.BuildTransactionsResponse], error) {
	if err := validateBuild(req.Msg); err != nil {
		return nil, err
	}
	if req.Msg.GetDonationPercentage() > 0 {
		dctx, cancel := context.WithTimeout(ctx, s.dbTimeout)
		defer cancel()
		p, err := s.projects.GetProject(dctx, principalFrom(ctx).ProjectID)
		if err != nil {
			return nil, unavailable("the database did not answer in time; retry shortly", err)
		}
		if p.DonationWallet == "" {
			return nil, invalidf("donationPercentage", "project %s has no donation wallet: set one in the dashboard or leave donationPercentage out", p.ID)
		}
	}
	return nil, s.notYet(ctx, "transaction building")
}

func (s *walletServer) SubmitTransactions(ctx context.Context, req *connect.Request[reclaimv1.SubmitTransactionsRequest]) (*connect.Response[reclaimv1.SubmitTransactionsResponse], error) {
	if err := validateSubmit(req.Msg); err != nil {
		return nil, err
	}
	return nil, s.notYet(ctx, "transaction submission")
}

func (s *walletServer) StreamWalletAssets(ctx context.Context, req *connect.Request[reclaimv1.StreamWalletAssetsRequest], _ *connect.ServerStream[reclaimv1.StreamWalletAssetsResponse]) error {
	if err := requireWallet(ctx, req.Msg.GetAddress()); err != nil {
		return err
	}
	if err := validateWalletPath(req.Msg.GetAddress()); err != nil {
		return err
	}
	return s.notYet(ctx, "the asset stream")
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

// notYet answers for the operations that need the cluster and are not built
// yet: unavailable, after making sure the cluster answers at all, so an
// unreachable cluster is reported as such within rpcTimeout.
func (s *walletServer) notYet(ctx context.Context, what string) error {
	ctx, cancel := context.WithTimeout(ctx, s.rpcTimeout)
	defer cancel()
	if err := s.cluster.Health(ctx); err != nil {
		return unavailable(fmt.Sprintf("the Solana cluster did not answer within %s; retry shortly", s.rpcTimeout), err)
	}
	return connect.NewError(connect.CodeUnavailable, errors.New(what+" is not available in this version of the service yet"))
}
