package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// Invalidf is an invalid fault whose message starts with the field's name.
func Invalidf(field, format string, args ...any) error {
	return fault.InvalidField(field, format, args...)
}

// InvalidParam is an invalid fault whose message names the field itself.
func InvalidParam(param, format string, args ...any) error {
	return fault.Invalid(param, format, args...)
}

// codeByKind is the one table of Connect codes by fault kind; vanguard turns
// the codes into HTTP statuses (httpStatusFor is the same table) and
// RestErrors into the REST body.
var codeByKind = map[fault.Kind]connect.Code{
	fault.KindInvalid:          connect.CodeInvalidArgument,
	fault.KindNotFound:         connect.CodeNotFound,
	fault.KindConflict:         connect.CodeAlreadyExists,
	fault.KindUnauthenticated:  connect.CodeUnauthenticated,
	fault.KindPermissionDenied: connect.CodePermissionDenied,
	fault.KindUnavailable:      connect.CodeUnavailable,
}

// msgTimedOut is the message of a deadline that ran out before any service
// said which dependency was slow.
const msgTimedOut = "a backing service did not answer in time; retry shortly"

// ToConnect is the one mapping of the services' errors to Connect codes: a
// fault by its kind (connectOf), a deadline that ran out as an unavailable
// dependency, a canceled request as canceled, anything else internal.
// Messages reach the client, so they are written for a person; causes are
// logged instead, as is every internal error.
func ToConnect(ctx context.Context, log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	var (
		ce *connect.Error
		f  *fault.Error
	)
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &f) && codeByKind[f.Kind()] != 0:
	case errors.Is(err, context.DeadlineExceeded):
		f = fault.Unavailable(msgTimedOut, err)
	case errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, errors.New("request canceled"))
	default:
		log.ErrorContext(ctx, "internal error", "err", err)
		return connect.NewError(connect.CodeInternal, errors.New("internal error; it has been logged"))
	}
	if f.Kind() == fault.KindUnavailable {
		log.WarnContext(ctx, "dependency unavailable", "what", f.Error(), "err", f.Cause())
	}
	return connectOf(f)
}

// connectOf is the Connect error of a fault: its kind's code and its
// message, and for invalid input the field at fault as a
// google.rpc.BadRequest detail. (ToConnect answers a kind the table lacks,
// a bug, as any other internal error.)
func connectOf(f *fault.Error) *connect.Error {
	code := codeByKind[f.Kind()]
	if code == 0 {
		code = connect.CodeInternal
	}
	ce := connect.NewError(code, errors.New(f.Error()))
	if code == connect.CodeInvalidArgument && f.Param() != "" {
		detail, err := connect.NewErrorDetail(&errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: f.Param(), Description: f.Error()}},
		})
		if err == nil {
			ce.AddDetail(detail)
		}
	}
	return ce
}

// ParamOf returns the field a Connect error's BadRequest detail names.
func ParamOf(ce *connect.Error) string {
	for _, d := range ce.Details() {
		v, err := d.Value()
		if err != nil {
			continue
		}
		if br, ok := v.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) > 0 {
			return br.GetFieldViolations()[0].GetField()
		}
	}
	return ""
}

// statusByCode is the one table of HTTP statuses by Connect code, the same as
// vanguard's (TestStatusTableMatchesVanguard), used wherever we write a REST
// status ourselves (the WebSocket's close codes, errors answered before
// vanguard).
var statusByCode = [...]int{
	http.StatusOK,                  // 0 ok
	499,                            // 1 canceled
	http.StatusInternalServerError, // 2 unknown
	http.StatusBadRequest,          // 3 invalid_argument
	http.StatusGatewayTimeout,      // 4 deadline_exceeded
	http.StatusNotFound,            // 5 not_found
	http.StatusConflict,            // 6 already_exists
	http.StatusForbidden,           // 7 permission_denied
	http.StatusTooManyRequests,     // 8 resource_exhausted
	http.StatusBadRequest,          // 9 failed_precondition
	http.StatusConflict,            // 10 aborted
	http.StatusBadRequest,          // 11 out_of_range
	http.StatusNotImplemented,      // 12 unimplemented
	http.StatusInternalServerError, // 13 internal
	http.StatusServiceUnavailable,  // 14 unavailable
	http.StatusInternalServerError, // 15 data_loss
	http.StatusUnauthorized,        // 16 unauthenticated
}

// httpStatusFor is the HTTP status of a Connect code.
func httpStatusFor(code connect.Code) int {
	if int(code) >= len(statusByCode) {
		return http.StatusInternalServerError
	}
	return statusByCode[code]
}

// CodeForStatus is the code a REST error body names for an HTTP status that
// no Connect error chose (routing's 404 and 405, a body over the limit...):
// the first code of the table with that status, in the table's order, or the
// code closest in meaning for statuses the table does not produce.
func CodeForStatus(status int) connect.Code {
	switch status {
	case http.StatusMethodNotAllowed:
		return connect.CodeUnimplemented
	case http.StatusUnsupportedMediaType, http.StatusLengthRequired, http.StatusRequestEntityTooLarge:
		return connect.CodeInvalidArgument
	case http.StatusRequestTimeout:
		return connect.CodeDeadlineExceeded
	case http.StatusInternalServerError:
		return connect.CodeInternal
	}
	for code := connect.CodeCanceled; int(code) < len(statusByCode); code++ {
		if statusByCode[code] == status {
			return code
		}
	}
	if status >= 400 && status < 500 {
		return connect.CodeInvalidArgument
	}
	return connect.CodeInternal
}

// ToConnectError is err as the Connect error a client reads (ToConnect's
// mapping, an internal error for anything else).
func ToConnectError(ctx context.Context, g *AuthInterceptor, err error) *connect.Error {
	var ce *connect.Error
	if errors.As(ToConnect(ctx, g.log, err), &ce) {
		return ce
	}
	return connect.NewError(connect.CodeInternal, errors.New("internal error"))
}
