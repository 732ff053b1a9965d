package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// paramError is a domain error the caller must fix. Error is the message for
// a person; Param names the request field or query parameter at fault as the
// client spells it (items[0].address, startDate), or "" when the request as
// a whole is at fault. Every such error becomes invalid_argument with a
// google.rpc.BadRequest detail, and REST clients read Param as "param".
type paramError interface {
	error
	Param() string
}

// invalidError is a request field the caller must fix.
type invalidError struct {
	param, msg string
}

func (e *invalidError) Error() string { return e.msg }

// Param names the field to fix.
func (e *invalidError) Param() string { return e.param }

// invalidf is an invalidError whose message starts with the field's name.
func invalidf(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &invalidError{param: field, msg: msg}
}

// invalidParam is an invalidError whose message names the field itself.
func invalidParam(param, format string, args ...any) error {
	return &invalidError{param: param, msg: fmt.Sprintf(format, args...)}
}

// dependencyError is a dependency (database, cluster, indexer) that failed
// or did not answer: 503 with Error as the message; Cause is logged, never
// shown. wallet.UnavailableError is one; unavailableError the server's own.
type dependencyError interface {
	error
	Cause() error
}

// unavailableError marks a dependency (database, cluster) that did not answer.
type unavailableError struct {
	what  string
	cause error
}

func (e *unavailableError) Error() string { return e.what }
func (e *unavailableError) Unwrap() error { return e.cause }

// Cause is what failed, for the log.
func (e *unavailableError) Cause() error { return e.cause }

func unavailable(what string, cause error) error {
	return &unavailableError{what: what, cause: cause}
}

// toConnect is the one mapping of domain errors to Connect codes; vanguard
// turns the codes into HTTP statuses (httpStatusFor is the same table) and
// restErrors into the REST body. Messages reach the client, so they are
// written for a person; causes that are not theirs to see are logged instead.
func toConnect(ctx context.Context, log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	var (
		ce      *connect.Error
		authErr *auth.Error
		param   paramError
		dep     dependencyError
	)
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &authErr):
		return connect.NewError(connect.CodeUnauthenticated, errors.New(authErr.Message))
	case errors.As(err, &param):
		return invalidArgument(param.Param(), param.Error())
	case errors.As(err, &dep):
		log.WarnContext(ctx, "dependency unavailable", "what", dep.Error(), "err", dep.Cause())
		return connect.NewError(connect.CodeUnavailable, errors.New(dep.Error()))
	case errors.Is(err, auth.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		log.WarnContext(ctx, "dependency unavailable", "err", err)
		return connect.NewError(connect.CodeUnavailable, errors.New("a backing service did not answer in time; retry shortly"))
	case errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, errors.New("request canceled"))
	case errors.Is(err, project.ErrNotFound):
		return connect.NewError(connect.CodeNotFound, errors.New("not found"))
	}
	log.ErrorContext(ctx, "internal error", "err", err)
	return connect.NewError(connect.CodeInternal, errors.New("internal error; it has been logged"))
}

// invalidArgument is the Connect error of a request the caller must fix: the
// message, and the field at fault as a google.rpc.BadRequest detail.
func invalidArgument(param, msg string) *connect.Error {
	ce := connect.NewError(connect.CodeInvalidArgument, errors.New(msg))
	if param != "" {
		detail, err := connect.NewErrorDetail(&errdetails.BadRequest{
			FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: param, Description: msg}},
		})
		if err == nil {
			ce.AddDetail(detail)
		}
	}
	return ce
}

// paramOf returns the field a Connect error's BadRequest detail names.
func paramOf(ce *connect.Error) string {
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

// codeForStatus is the code a REST error body names for an HTTP status that
// no Connect error chose (routing's 404 and 405, a body over the limit...):
// the first code of the table with that status, in the table's order, or the
// code closest in meaning for statuses the table does not produce.
func codeForStatus(status int) connect.Code {
	switch status {
	case http.StatusMethodNotAllowed:
		return connect.CodeUnimplemented
	case http.StatusRequestEntityTooLarge:
		return connect.CodeResourceExhausted
	case http.StatusUnsupportedMediaType, http.StatusLengthRequired:
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
