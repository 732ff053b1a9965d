package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/auth"
	"github.com/reclaim-sol/reclaim/backend/ledger"
	"github.com/reclaim-sol/reclaim/backend/project"
)

// invalidError is a request field the caller must fix.
type invalidError struct {
	field, msg string
}

func (e *invalidError) Error() string { return e.field + ": " + e.msg }

func invalidf(field, format string, args ...any) error {
	return &invalidError{field: field, msg: fmt.Sprintf(format, args...)}
}

// errUnavailable marks a dependency (database, cluster) that did not answer.
type unavailableError struct {
	what  string
	cause error
}

func (e *unavailableError) Error() string { return e.what }
func (e *unavailableError) Unwrap() error { return e.cause }

func unavailable(what string, cause error) error {
	return &unavailableError{what: what, cause: cause}
}

// toConnect is the one mapping of domain errors to Connect codes; vanguard
// turns the codes into HTTP statuses and restErrors into the REST body.
// Messages reach the client, so they are written for a person; causes that
// are not theirs to see are logged instead.
func toConnect(ctx context.Context, log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	var (
		ce      *connect.Error
		authErr *auth.Error
		inv     *invalidError
		authInv *auth.InvalidError
		ledInv  *ledger.InvalidArgumentError
		unav    *unavailableError
	)
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &authErr):
		return connect.NewError(connect.CodeUnauthenticated, errors.New(authErr.Message))
	case errors.As(err, &inv):
		return connect.NewError(connect.CodeInvalidArgument, inv)
	case errors.As(err, &authInv):
		return connect.NewError(connect.CodeInvalidArgument, authInv)
	case errors.As(err, &ledInv):
		return connect.NewError(connect.CodeInvalidArgument, errors.New(ledInv.Message))
	case errors.As(err, &unav):
		log.WarnContext(ctx, "dependency unavailable", "what", unav.what, "err", unav.cause)
		return connect.NewError(connect.CodeUnavailable, errors.New(unav.what))
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
