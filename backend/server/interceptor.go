package server

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/auth"
	"github.com/reclaim-sol/reclaim/backend/clientip"
	"github.com/reclaim-sol/reclaim/backend/ratelimit"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// requirements is the contract's credential table, per procedure.
var requirements = map[string]auth.Requirement{
	reclaimv1connect.SessionServiceCreateSessionProcedure:     {APIKey: true},
	reclaimv1connect.WalletServiceListAssetsProcedure:         {APIKey: true, Session: true, Scope: auth.ScopeWalletRead, BindsWallet: true},
	reclaimv1connect.WalletServiceBuildTransactionsProcedure:  {APIKey: true, Session: true, Scope: auth.ScopeTransactionsBuild, BindsWallet: true},
	reclaimv1connect.WalletServiceSubmitTransactionsProcedure: {APIKey: true, Session: true, Scope: auth.ScopeTransactionsSubmit, BindsWallet: true},
	reclaimv1connect.WalletServiceStreamWalletAssetsProcedure: {Session: true, Scope: auth.ScopeWalletStream, BindsWallet: true},
	reclaimv1connect.ProjectServiceGetLeaderboardProcedure:    {APIKey: true, Session: true},
	reclaimv1connect.ProjectServiceGetStatsProcedure:          {APIKey: true, Session: true},
}

type principalKey struct{}

func principalFrom(ctx context.Context) auth.Principal {
	p, _ := ctx.Value(principalKey{}).(auth.Principal)
	return p
}

// addressed is every request that names a wallet in its path.
type addressed interface{ GetAddress() string }

// guard authenticates, authorises and rate-limits every procedure.
type guard struct {
	auth    *auth.Authenticator
	limiter ratelimit.Limiter
	clients *clientip.Resolver
	log     *slog.Logger
}

var _ connect.Interceptor = (*guard)(nil)

// admit runs the checks shared by unary and streaming calls. It returns the
// context carrying the principal, and the rate-limit decision whose headers
// the response must carry.
func (g *guard) admit(ctx context.Context, procedure string, h http.Header, peer string, msg any) (context.Context, *ratelimit.Result, error) {
	rule, ok := requirements[procedure]
	if !ok {
		return ctx, nil, connect.NewError(connect.CodeUnimplemented, errors.New("unknown procedure"))
	}
	p, err := g.auth.Authenticate(ctx, h.Get("X-Api-Key"), h.Get("Authorization"))
	var authErr *auth.Error
	if errors.As(err, &authErr) {
		// Without valid credentials the client's address is the bucket, so
		// guessing keys is throttled without touching any tenant's budget.
		res, lerr := g.allow(ctx, "ip:"+g.clients.Key(peer, h.Values(clientip.Header)))
		if lerr == nil && res != nil && !res.Allowed {
			return ctx, res, limited(res)
		}
		return ctx, res, toConnect(ctx, g.log, err)
	}
	if err != nil {
		return ctx, nil, toConnect(ctx, g.log, err)
	}
	res, lerr := g.allow(ctx, p.RateKey())
	if lerr == nil && res != nil && !res.Allowed {
		return ctx, res, limited(res)
	}
	wallet := ""
	if a, ok := msg.(addressed); ok {
		wallet = a.GetAddress()
	} else {
		rule.BindsWallet = false // streams: checked by the handler on the request
	}
	if err := auth.Check(p, rule, wallet); err != nil {
		return ctx, res, toConnect(ctx, g.log, err)
	}
	return context.WithValue(ctx, principalKey{}, p), res, nil
}

// allow asks the limiter. A limiter that fails (Redis down) lets the request
// through: an outage of the limiter must not become an outage of the API.
func (g *guard) allow(ctx context.Context, key string) (*ratelimit.Result, error) {
	res, err := g.limiter.Allow(ctx, key)
	if err != nil {
		g.log.WarnContext(ctx, "rate limiter unavailable; allowing request", "err", err)
		return nil, err
	}
	return &res, nil
}

func limited(res *ratelimit.Result) error {
	secs := int(math.Ceil(res.RetryAfter.Seconds()))
	if secs < 1 {
		secs = 1
	}
	err := connect.NewError(connect.CodeResourceExhausted,
		errors.New("rate limit exceeded: retry after "+strconv.Itoa(secs)+"s"))
	err.Meta().Set("Retry-After", strconv.Itoa(secs))
	return err
}

func setRateHeaders(h http.Header, res *ratelimit.Result) {
	if res == nil {
		return
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
}

func (g *guard) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		ctx, res, err := g.admit(ctx, req.Spec().Procedure, req.Header(), req.Peer().Addr, req.Any())
		if err != nil {
			var ce *connect.Error
			if errors.As(err, &ce) {
				setRateHeaders(ce.Meta(), res)
			}
			return nil, err
		}
		resp, err := next(ctx, req)
		if err != nil {
			err = toConnect(ctx, g.log, err)
			var ce *connect.Error
			if errors.As(err, &ce) {
				setRateHeaders(ce.Meta(), res)
			}
			return nil, err
		}
		setRateHeaders(resp.Header(), res)
		return resp, nil
	}
}

func (g *guard) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (g *guard) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		// A server stream's one request arrives with the headers; the wallet
		// binding is checked against it by the handler (requireWallet).
		ctx, res, err := g.admit(ctx, conn.Spec().Procedure, conn.RequestHeader(), conn.Peer().Addr, nil)
		if err != nil {
			var ce *connect.Error
			if errors.As(err, &ce) {
				setRateHeaders(ce.Meta(), res)
			}
			return err
		}
		setRateHeaders(conn.ResponseHeader(), res)
		return toConnect(ctx, g.log, next(ctx, conn))
	}
}
