package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// Idempotency keys are a layer every face shares: a Connect interceptor
// behind the auth interceptor (it needs the caller), which REST reaches
// through vanguard and Connect, gRPC and gRPC-Web directly, with the same
// header. It fingerprints the decoded request, so a key sent over REST may
// be retried over Connect; it stores the response message's bytes, so a
// replay is the first answer, encoded for the wire it is asked on.

// curable reports whether an answer holds a part a retry may cure: a
// submit with an entry failed with a curable code (relay.Code.Curable).
// It is answered, not kept: the key is released, and a retry with it runs
// again.
func curable(m proto.Message) bool {
	res, ok := m.(*reclaimv1.SubmitTransactionsResponse)
	if !ok {
		return false
	}
	for _, r := range res.GetResults() {
		if e := r.GetError(); e != nil && relay.Code(e.GetCode()).Curable() {
			return true
		}
	}
	return false
}

// Idempotent reports whether an operation (a Connect procedure) honours
// Idempotency-Key: the OpenAPI document declares it on those.
func Idempotent(procedure string) bool {
	op, ok := Policies.Of(procedure)
	return ok && op.Replay != nil
}

// The reasons an idempotency refusal carries (a google.rpc.ErrorInfo
// detail): REST answers them as their own status and code (restReasons).
const (
	reasonKeyReused = "idempotency_key_reused"
	reasonKeyInUse  = "idempotency_key_in_use"
)

// restReasons are the REST status of each reason: the IETF draft's 422 for
// a key reused with another request, 409 for one still in flight.
var restReasons = map[string]int{
	reasonKeyReused: http.StatusUnprocessableEntity,
	reasonKeyInUse:  http.StatusConflict,
}

// IdempotencyKeys runs the requests that carry an Idempotency-Key
// (idempotency.Service).
type IdempotencyKeys interface {
	Do(ctx context.Context, r idempotency.Request, run idempotency.Run) (idempotency.Answer, bool, error)
}

// IdempotencyInterceptor answers a request that carries a key with its
// key's first answer, or runs it once.
type IdempotencyInterceptor struct {
	keys IdempotencyKeys
	log  *slog.Logger
}

var _ connect.Interceptor = (*IdempotencyInterceptor)(nil)

// NewIdempotencyInterceptor returns the interceptor that runs keyed writes
// through keys (nil: the header is ignored).
func NewIdempotencyInterceptor(keys IdempotencyKeys, log *slog.Logger) *IdempotencyInterceptor {
	return &IdempotencyInterceptor{keys: keys, log: log}
}

// WrapUnary runs a keyed write once per key and answers a repeat with the
// stored answer.
func (i *IdempotencyInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		return i.Do(ctx, req.Spec().Procedure, req.Header(), req.Any(), func(ctx context.Context) (connect.AnyResponse, error) {
			return next(ctx, req)
		})
	}
}

// Do runs a call of procedure (its request req, its headers header) once
// per key: next, or the key's first answer again. The Connect handlers
// reach it as an interceptor, the MCP tools with their idempotencyKey
// argument as the header.
func (i *IdempotencyInterceptor) Do(ctx context.Context, procedure string, header http.Header, req any,
	next func(context.Context) (connect.AnyResponse, error),
) (connect.AnyResponse, error) {
	op, ok := Policies.Of(procedure)
	if !ok || op.Replay == nil || i.keys == nil {
		return next(ctx)
	}
	key, err := idempotency.ParseKey(header.Values(idempotency.Header))
	if err != nil {
		return nil, ToConnect(ctx, i.log, err)
	}
	msg, ok := req.(proto.Message)
	if key == "" || !ok {
		return next(ctx)
	}
	body, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return nil, ToConnect(ctx, i.log, err)
	}
	p := PrincipalFrom(ctx)
	r := idempotency.Request{
		ProjectID: p.ProjectID, Scope: idempotency.Scope(p.APIKeyID, p.Wallet), Key: key,
		Fingerprint: idempotency.Fingerprint(procedure, body), Lease: op.lease,
	}
	var (
		fresh  connect.AnyResponse
		failed *connect.Error
	)
	a, replayed, err := i.keys.Do(ctx, r, func(ctx context.Context) (idempotency.Answer, bool, error) {
		resp, err := next(ctx)
		if err != nil {
			failed = AsConnectError(ToConnect(ctx, i.log, err))
			return idempotency.Answer{Code: int(failed.Code()), Message: failed.Message(), Param: ParamOf(failed)}, kept(failed.Code()), nil
		}
		fresh = resp
		m, ok := resp.Any().(proto.Message)
		if !ok {
			return idempotency.Answer{}, false, fmt.Errorf("idempotency: %s answered a %T, not a message", procedure, resp.Any())
		}
		out, err := proto.Marshal(m)
		return idempotency.Answer{Body: out}, !curable(m), err
	})
	switch {
	case err != nil:
		return nil, keyError(ctx, i.log, err)
	case !replayed && failed != nil:
		return nil, failed
	case !replayed:
		return fresh, nil
	case a.Code != 0:
		ce := storedError(a)
		ce.Meta().Set(idempotency.ReplayedHeader, "true")
		return nil, ce
	}
	resp, err := op.Replay(a.Body)
	if err != nil {
		return nil, ToConnect(ctx, i.log, err)
	}
	resp.Header().Set(idempotency.ReplayedHeader, "true")
	return resp, nil
}

// WrapStreamingClient passes a client's streams through: the server has none.
func (i *IdempotencyInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler passes streams through: no stream takes a key.
func (i *IdempotencyInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// kept reports whether an error answer is stored: refusals of the request
// itself (a 4xx) are, as a retry would meet them again; failures a retry
// may cure (a dependency, a timeout, a rate limit, a 5xx) are not, and the
// key is free again.
func kept(code connect.Code) bool {
	switch code {
	case connect.CodeInvalidArgument, connect.CodeNotFound, connect.CodeAlreadyExists, connect.CodePermissionDenied,
		connect.CodeFailedPrecondition, connect.CodeOutOfRange, connect.CodeUnimplemented, connect.CodeUnauthenticated:
		return true
	}
	return false
}

// AsConnectError is err as a Connect error: itself when it is one, else an
// internal error wrapping it.
func AsConnectError(err error) *connect.Error {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	return connect.NewError(connect.CodeInternal, err)
}

// storedError is a stored error answer, as it was first answered.
func storedError(a idempotency.Answer) *connect.Error {
	code := connect.CodeUnknown
	if a.Code > 0 && a.Code <= int(connect.CodeUnauthenticated) {
		code = connect.Code(a.Code)
	}
	ce := connect.NewError(code, errors.New(a.Message))
	if a.Param != "" {
		if d, err := connect.NewErrorDetail(&errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: a.Param, Description: a.Message}},
		}); err == nil {
			ce.AddDetail(d)
		}
	}
	return ce
}

// keyError is the answer to a key the service refused: reused with another
// request (invalid_argument; REST 422 idempotency_key_reused), or in
// flight (aborted; REST 409 idempotency_key_in_use), each with its reason
// as a google.rpc.ErrorInfo detail; anything else as ToConnect maps it.
func keyError(ctx context.Context, log *slog.Logger, err error) error {
	var code connect.Code
	var reason string
	switch {
	case errors.Is(err, idempotency.ErrKeyReused):
		code, reason = connect.CodeInvalidArgument, reasonKeyReused
	case errors.Is(err, idempotency.ErrKeyInUse):
		code, reason = connect.CodeAborted, reasonKeyInUse
	default:
		return ToConnect(ctx, log, err)
	}
	ce := connect.NewError(code, errors.New(err.Error()))
	if d, derr := connect.NewErrorDetail(&errdetails.ErrorInfo{Reason: reason, Domain: "reclaim"}); derr == nil {
		ce.AddDetail(d)
	}
	if code == connect.CodeInvalidArgument {
		if d, derr := connect.NewErrorDetail(&errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: idempotency.Header, Description: err.Error()}},
		}); derr == nil {
			ce.AddDetail(d)
		}
	} else {
		ce.Meta().Set("Retry-After", "1")
	}
	return ce
}

// RestReason is the REST status and code of an error detail's reason, ok
// false for a reason REST answers by its Connect code.
func RestReason(reason string) (status int, code string, ok bool) {
	status, ok = restReasons[reason]
	return status, reason, ok
}
