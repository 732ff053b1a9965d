package server

import (
	"context"
	"time"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

type sessionServer struct {
	issuer *auth.Issuer
}

// NewSessionServer returns the SessionService handler.
func NewSessionServer(issuer *auth.Issuer) reclaimv1connect.SessionServiceHandler {
	return &sessionServer{issuer: issuer}
}

func (s *sessionServer) CreateSession(ctx context.Context, req *connect.Request[reclaimv1.CreateSessionRequest]) (*connect.Response[reclaimv1.CreateSessionResponse], error) {
	if err := gateway.CheckRules(req.Msg); err != nil {
		return nil, err
	}
	m := req.Msg
	sr, err := auth.NewSessionRequest(m.GetWalletAddress(), m.GetScopes(), m.TtlSeconds)
	if err != nil {
		return nil, err
	}
	token, exp, err := s.issuer.Issue(gateway.PrincipalFrom(ctx), sr)
	if err != nil {
		return nil, err
	}
	resp := connect.NewResponse(&reclaimv1.CreateSessionResponse{
		Token:     token,
		ExpiresAt: exp.Format(time.RFC3339),
		Scopes:    sr.Scopes,
	})
	resp.Header().Set("Cache-Control", "no-store")
	return resp, nil
}
