package server

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// requirements is the contract's credential table, per procedure.
var requirements = map[string]auth.Requirement{
	reclaimv1connect.SessionServiceCreateSessionProcedure:     {APIKey: true},
	reclaimv1connect.WalletServiceListAssetsProcedure:         {APIKey: true, Session: true, Scope: auth.ScopeWalletRead, BindsWallet: true},
	reclaimv1connect.WalletServiceBuildTransactionsProcedure:  {APIKey: true, Session: true, Scope: auth.ScopeTransactionsBuild, BindsWallet: true},
	reclaimv1connect.WalletServiceSubmitTransactionsProcedure: {APIKey: true, Session: true, Scope: auth.ScopeTransactionsSubmit, BindsWallet: true},
	reclaimv1connect.WalletServiceStreamWalletAssetsProcedure: {Session: true, Scope: auth.ScopeWalletStream, BindsWallet: true},
	reclaimv1connect.WalletServiceGetSummaryProcedure:         {APIKey: true, Session: true, Scope: auth.ScopeTransactionsBuild, BindsWallet: true},
	reclaimv1connect.WalletServiceGetSubmissionsProcedure: {APIKey: true, Session: true, Scope: auth.ScopeWalletRead,
		OrScope: auth.ScopeTransactionsSubmit, BindsWallet: true},
	reclaimv1connect.ProjectServiceGetLeaderboardProcedure: {APIKey: true, Session: true},
	reclaimv1connect.ProjectServiceGetStatsProcedure:       {APIKey: true, Session: true},
}

type principalKey struct{}

func principalFrom(ctx context.Context) auth.Principal {
	p, _ := ctx.Value(principalKey{}).(auth.Principal)
	return p
}

// addressed is every request that names a wallet in its path.
type addressed interface{ GetAddress() string }

// authInterceptor authenticates, authorises and rate-limits every procedure.
type authInterceptor struct {
	auth *auth.Authenticator
	// perIP is the bucket of a client address, which every request spends
	// from before its credentials cost anything; nil: none.
	perIP ratelimit.Limiter
	// limiter holds the credentials' buckets: one per API key, which the
	// key's sessions share.
	limiter ratelimit.Limiter
	clients *clientip.Resolver
	log     *slog.Logger
}

var _ connect.Interceptor = (*authInterceptor)(nil)

// admit runs the checks shared by unary and streaming calls. It returns the
// context carrying the principal, and the rate-limit decision whose headers
// the response must carry: the bucket that refused, or else the tighter of
// the two (the one with fewer requests left).
func (g *authInterceptor) admit(ctx context.Context, procedure string, h http.Header, peer string, msg any) (context.Context, *ratelimit.Result, error) {
	rule, ok := requirements[procedure]
	if !ok {
		return ctx, nil, connect.NewError(connect.CodeUnimplemented, errors.New("unknown procedure"))
	}
	p, res, err := g.authenticate(ctx, h, peer)
	if err != nil {
		return ctx, res, err
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

// authenticate spends from the client address's bucket, authenticates the
// credentials of h and spends from their bucket: the checks every request
// of the API passes (procedures, the stream, /mcp) before its operation's
// own rule. It returns the decision whose headers the response carries.
func (g *authInterceptor) authenticate(ctx context.Context, h http.Header, peer string) (auth.Principal, *ratelimit.Result, error) {
	// The client address first: checking an API key costs an HMAC and a
	// database read, so a flood of made-up keys from one address must stop
	// before them.
	ipRes := g.allow(ctx, g.perIP, "ip:"+g.clients.Key(peer, h.Values(clientip.Header)))
	if ipRes != nil && !ipRes.Allowed {
		return auth.Principal{}, ipRes, limited(ipRes, "from this address")
	}
	p, err := g.auth.Authenticate(ctx, h.Get("X-Api-Key"), h.Get("Authorization"))
	if err != nil {
		return auth.Principal{}, ipRes, toConnect(ctx, g.log, err)
	}
	res := g.allow(ctx, g.limiter, p.RateKey())
	if res != nil && !res.Allowed {
		return auth.Principal{}, res, limited(res, "for this API key and its sessions")
	}
	return p, tighter(res, ipRes), nil
}

// allow asks l, nil for none. A limiter that fails lets the request
// through, with no decision to report: an outage of the limiter must not
// become an outage of the API. The one serve wires never fails: it falls
// back to memory while Redis is down (ratelimit.Fallback), and logs that
// once.
func (g *authInterceptor) allow(ctx context.Context, l ratelimit.Limiter, key string) *ratelimit.Result {
	if l == nil {
		return nil
	}
	res, err := l.Allow(ctx, key)
	if err != nil {
		return nil
	}
	return &res
}

// tighter returns the decision with fewer requests left (a when equal).
func tighter(a, b *ratelimit.Result) *ratelimit.Result {
	if a == nil || (b != nil && b.Remaining < a.Remaining) {
		return b
	}
	return a
}

// limited is the refusal of a bucket; whose says which bucket ran out.
func limited(res *ratelimit.Result, whose string) error {
	secs := int(math.Ceil(res.RetryAfter.Seconds()))
	if secs < 1 {
		secs = 1
	}
	err := connect.NewError(connect.CodeResourceExhausted,
		errors.New("rate limit exceeded "+whose+": retry after "+strconv.Itoa(secs)+"s"))
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

func (g *authInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
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

func (g *authInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (g *authInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
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
