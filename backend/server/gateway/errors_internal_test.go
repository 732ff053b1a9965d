package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// TestToConnect is the mapping, kind by kind: the Connect code, the HTTP
// status REST answers with, the REST body, and what is logged.
func TestToConnect(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp 10.0.0.1:5432: connection refused")
	cases := []struct {
		name   string
		err    error
		code   connect.Code
		status int
		body   string
		log    string // a substring of the log, "" for nothing logged
	}{
		{"invalid, naming the field", fmt.Errorf("build: %w", fault.InvalidField("items[0].address", "is required")),
			connect.CodeInvalidArgument, 400,
			`{"statusCode":400,"error":"Bad Request","code":"invalid_argument","message":"items[0].address: is required","param":"items[0].address"}`, ""},
		{"invalid, the request as a whole", fault.Invalid("", "request body is not valid UTF-8"),
			connect.CodeInvalidArgument, 400,
			`{"statusCode":400,"error":"Bad Request","code":"invalid_argument","message":"request body is not valid UTF-8"}`, ""},
		{"not found", fmt.Errorf("project prj_1: %w", fault.New(fault.KindNotFound, "not found")),
			connect.CodeNotFound, 404,
			`{"statusCode":404,"error":"Not Found","code":"not_found","message":"not found"}`, ""},
		{"conflict", fault.New(fault.KindConflict, "conflict"),
			connect.CodeAlreadyExists, 409,
			`{"statusCode":409,"error":"Conflict","code":"already_exists","message":"conflict"}`, ""},
		{"unauthenticated", fault.New(fault.KindUnauthenticated, "invalid API key"),
			connect.CodeUnauthenticated, 401,
			`{"statusCode":401,"error":"Unauthorized","code":"unauthenticated","message":"invalid API key"}`, ""},
		{"permission denied", fault.New(fault.KindPermissionDenied, "only the project's owners may do this"),
			connect.CodePermissionDenied, 403,
			`{"statusCode":403,"error":"Forbidden","code":"permission_denied","message":"only the project's owners may do this"}`, ""},
		{"unavailable", fault.Unavailable("the database did not answer in time; retry shortly", cause),
			connect.CodeUnavailable, 503,
			`{"statusCode":503,"error":"Service Unavailable","code":"unavailable","message":"the database did not answer in time; retry shortly"}`,
			`msg="dependency unavailable" what="the database did not answer in time; retry shortly" err="dial tcp 10.0.0.1:5432: connection refused"`},
		{"a deadline no service named", fmt.Errorf("query: %w", context.DeadlineExceeded),
			connect.CodeUnavailable, 503,
			`{"statusCode":503,"error":"Service Unavailable","code":"unavailable","message":"a backing service did not answer in time; retry shortly"}`,
			`msg="dependency unavailable" what="a backing service did not answer in time; retry shortly" err="query: context deadline exceeded"`},
		{"canceled", fmt.Errorf("query: %w", context.Canceled),
			connect.CodeCanceled, 499,
			`{"statusCode":499,"error":"","code":"canceled","message":"request canceled"}`, ""},
		{"a Connect error, as it is", connect.NewError(connect.CodeResourceExhausted, errors.New("rate limit exceeded")),
			connect.CodeResourceExhausted, 429,
			`{"statusCode":429,"error":"Too Many Requests","code":"resource_exhausted","message":"rate limit exceeded"}`, ""},
		{"anything else", errors.New("nil map"),
			connect.CodeInternal, 500,
			`{"statusCode":500,"error":"Internal Server Error","code":"internal","message":"internal error; it has been logged"}`,
			`msg="internal error" err="nil map"`},
		{"a kind the table lacks", &fault.Error{},
			connect.CodeInternal, 500,
			`{"statusCode":500,"error":"Internal Server Error","code":"internal","message":"internal error; it has been logged"}`,
			`msg="internal error"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			err := ToConnect(context.Background(), slog.New(slog.NewTextHandler(&logs, nil)), c.err)
			var ce *connect.Error
			if !errors.As(err, &ce) {
				t.Fatalf("toConnect = %T %v, not a *connect.Error", err, err)
			}
			if ce.Code() != c.code {
				t.Errorf("code %s, want %s", ce.Code(), c.code)
			}
			if got := httpStatusFor(ce.Code()); got != c.status {
				t.Errorf("status %d, want %d", got, c.status)
			}
			if got := string(RestErrorOf(ce).Encode()); got != c.body {
				t.Errorf("REST body\n%s\nwant\n%s", got, c.body)
			}
			if c.log == "" && logs.Len() != 0 || !strings.Contains(logs.String(), c.log) {
				t.Errorf("logged %q, want %q", logs.String(), c.log)
			}
		})
	}
}

// Every kind has a Connect code, and invalid input alone names its field
// to Connect and gRPC clients (a google.rpc.BadRequest detail).
func TestEveryKindHasACode(t *testing.T) {
	t.Parallel()
	for k := fault.Kind(1); !strings.HasPrefix(k.String(), "kind("); k++ {
		if _, ok := codeByKind[k]; !ok {
			t.Errorf("%s has no Connect code", k)
		}
	}
	if got := ParamOf(connectOf(fault.InvalidField("limit", "must be from 1 to 100"))); got != "limit" {
		t.Errorf("the BadRequest detail names %q, want limit", got)
	}
	if ce := connectOf(fault.Invalid("", "request body is not valid UTF-8")); len(ce.Details()) != 0 {
		t.Errorf("an invalid request as a whole has %d details, want none", len(ce.Details()))
	}
}
