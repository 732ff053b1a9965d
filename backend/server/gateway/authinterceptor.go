package gateway

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// Requirement is the credentials a procedure (/reclaim.v1.Service/Method)
// needs, from its operation option (false: no operation declares it, and no
// credentials admit it). Every layer asks it, and the OpenAPI document's
// security comes from it.
func Requirement(procedure string) (auth.Requirement, bool) {
	op, ok := Policies.Of(procedure)
	if !ok {
		return auth.Requirement{}, false
	}
	return op.Require, true
}

type principalKey struct{}

// WithPrincipal is ctx carrying p, whom the handlers act for.
func WithPrincipal(ctx context.Context, p auth.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom is the principal ctx carries (zero: none).
func PrincipalFrom(ctx context.Context) auth.Principal {
	p, _ := ctx.Value(principalKey{}).(auth.Principal)
	return p
}

// Addressed is every request that names a wallet in its path.
type Addressed interface{ GetAddress() string }

// AuthInterceptor authenticates, authorises and rate-limits every procedure.
type AuthInterceptor struct {
	auth *auth.Authenticator
	// perIP is the bucket of a client address, which every request spends
	// from before its credentials cost anything; nil: none. ipLimits is
	// its size, for RateLimit-Policy (zero: its window is not told).
	perIP    ratelimit.Limiter
	ipLimits ratelimit.Limits
	// Limiter holds the credentials' buckets: one per project, which all
	// its keys and sessions share, and one per wallet of a project, its
	// share of the project's, sized by quotas. nil: none.
	limiter ratelimit.Limiter
	quotas  *quotaBook
	clients *clientip.Resolver
	log     *slog.Logger
}

var _ connect.Interceptor = (*AuthInterceptor)(nil)

// GateDeps are what the auth interceptor checks and charges with.
type GateDeps struct {
	Auth     *auth.Authenticator
	PerIP    ratelimit.Limiter
	IPLimits ratelimit.Limits
	Limiter  ratelimit.Limiter
	Quotas   Quotas
	// DBTimeout bounds a read of the projects' quotas.
	DBTimeout time.Duration
	Clients   *clientip.Resolver
	Log       *slog.Logger
}

// NewAuthInterceptor returns the gate of d's credentials and buckets.
func NewAuthInterceptor(d GateDeps) *AuthInterceptor {
	return &AuthInterceptor{auth: d.Auth, perIP: d.PerIP, ipLimits: d.IPLimits, limiter: d.Limiter,
		quotas: newQuotaBook(d.Quotas, d.DBTimeout, d.Log), clients: d.Clients, log: d.Log}
}

// Admit runs the checks shared by unary and streaming calls. It returns the
// context carrying the principal, and the rate-limit decisions whose
// headers the response must carry.
func (g *AuthInterceptor) Admit(ctx context.Context, procedure string, h http.Header, peer string, msg any) (context.Context, RateNote, error) {
	op, ok := Policies.Of(procedure)
	if !ok {
		return ctx, nil, connect.NewError(connect.CodeUnimplemented, errors.New("unknown procedure"))
	}
	rule := op.Require
	p, note, err := g.Authenticate(ctx, h, peer)
	if err != nil {
		return ctx, note, err
	}
	wallet := ""
	if a, ok := msg.(Addressed); ok {
		wallet = a.GetAddress()
	} else {
		rule.BindsWallet = false // streams: checked by the handler on the request
	}
	if note, err = g.Charge(ctx, p, wallet, note); err != nil {
		return ctx, note, err
	}
	if err := auth.Check(p, rule, wallet); err != nil {
		return ctx, note, ToConnect(ctx, g.log, err)
	}
	return WithPrincipal(ctx, p), note, nil
}

// Authenticate spends from the client address's bucket and authenticates
// the credentials of h: the checks every request of the API passes
// (procedures, the stream, /mcp) before it is charged to its project
// (charge). It returns the decision whose headers the response carries.
func (g *AuthInterceptor) Authenticate(ctx context.Context, h http.Header, peer string) (auth.Principal, RateNote, error) {
	// The client address first: checking an API key costs an HMAC and a
	// database read, so a flood of made-up keys from one address must stop
	// before them.
	var note RateNote
	ipRes := g.allow(ctx, g.perIP, "ip:"+g.clients.Key(peer, h.Values(clientip.Header)))
	if ipRes != nil {
		note = RateNote{{name: policyAddress, limits: g.ipLimits, res: *ipRes}}
		if !ipRes.Allowed {
			return auth.Principal{}, note, limited(ipRes, "from this address")
		}
	}
	p, err := g.auth.Authenticate(ctx, h.Get("X-Api-Key"), h.Get("Authorization"))
	if err != nil {
		return auth.Principal{}, note, ToConnect(ctx, g.log, err)
	}
	return p, note, nil
}

// Charge spends one request of p from its buckets, all or nothing: the
// share of the wallet the request acts on (a session's own, or the valid
// wallet an API key's request names), then its project's quota, which
// every key and session of the project spends. A refusal says which ran
// out. note gains the decisions for the headers.
func (g *AuthInterceptor) Charge(ctx context.Context, p auth.Principal, wallet string, note RateNote) (RateNote, error) {
	if g.limiter == nil {
		return note, nil
	}
	buckets, names := g.quotas.buckets(ctx, p, wallet)
	res, err := g.limiter.Take(ctx, buckets)
	if err != nil {
		// A limiter that fails lets the request through, with no decision
		// to report: an outage of the limiter must not become an outage
		// of the API. The one serve wires never fails: it falls back to
		// memory while Redis is down (ratelimit.Fallback), and logs that
		// once.
		return note, nil //nolint:nilerr // fail open, on purpose
	}
	for i := range res {
		note = append(note, ratePolicy{name: names[i], limits: buckets[i].Limits, res: res[i]})
	}
	if ok, i := ratelimit.Allowed(res); !ok {
		if g.quotas.Refusals != nil {
			g.quotas.Refusals.Refused(p.ProjectID)
		}
		return note, limited(&res[i], "for this "+names[i])
	}
	return note, nil
}

// allow asks l, nil for none. A limiter that fails lets the request
// through, with no decision to report (see charge).
func (g *AuthInterceptor) allow(ctx context.Context, l ratelimit.Limiter, key string) *ratelimit.Result {
	if l == nil {
		return nil
	}
	res, err := l.Allow(ctx, key)
	if err != nil {
		return nil
	}
	return &res
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

// SpendAddress spends from the bucket of r's client address alone, for the
// routes that take no credentials, and sets its headers in h: the refusal
// when the bucket ran out, nil otherwise.
func (g *AuthInterceptor) SpendAddress(r *http.Request, h http.Header) error {
	res := g.allow(r.Context(), g.perIP, "ip:"+g.clients.Key(r.RemoteAddr, r.Header.Values(clientip.Header)))
	setRateHeaders(h, res)
	if res != nil && !res.Allowed {
		return limited(res, "from this address")
	}
	return nil
}

// setRateHeaders sets the headers of one client address's decision (nil:
// none), for the routes that spend only that bucket.
func setRateHeaders(h http.Header, res *ratelimit.Result) {
	if res != nil {
		RateNote{{name: policyAddress, res: *res}}.SetHeaders(h)
	}
}

// WrapUnary checks a unary call's credentials and charges its buckets first.
func (g *AuthInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		ctx, note, err := g.Admit(ctx, req.Spec().Procedure, req.Header(), req.Peer().Addr, req.Any())
		if err != nil {
			var ce *connect.Error
			if errors.As(err, &ce) {
				note.SetHeaders(ce.Meta())
			}
			return nil, err
		}
		resp, err := next(ctx, req)
		if err != nil {
			err = ToConnect(ctx, g.log, err)
			var ce *connect.Error
			if errors.As(err, &ce) {
				note.SetHeaders(ce.Meta())
			}
			return nil, err
		}
		note.SetHeaders(resp.Header())
		return resp, nil
	}
}

// WrapStreamingClient passes a client's streams through: the server has none.
func (g *AuthInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler checks a stream's credentials and charges its buckets first.
func (g *AuthInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		// A server stream's one request arrives with the headers; the wallet
		// binding is checked against it by the handler (requireWallet).
		ctx, note, err := g.Admit(ctx, conn.Spec().Procedure, conn.RequestHeader(), conn.Peer().Addr, nil)
		if err != nil {
			var ce *connect.Error
			if errors.As(err, &ce) {
				note.SetHeaders(ce.Meta())
			}
			return err
		}
		note.SetHeaders(conn.ResponseHeader())
		return ToConnect(ctx, g.log, next(ctx, conn))
	}
}
