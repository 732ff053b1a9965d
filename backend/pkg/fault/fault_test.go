package fault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

func TestConstructors(t *testing.T) {
	t.Parallel()
	cause := fmt.Errorf("dial: %w", context.DeadlineExceeded)
	cases := []struct {
		name         string
		err          *fault.Error
		kind         fault.Kind
		msg, param   string
		cause        error
		kindAsString string
	}{
		{"new", fault.New(fault.KindNotFound, "not found"), fault.KindNotFound, "not found", "", nil, "not_found"},
		{"invalid", fault.Invalid("startDate", "startDate %q is not a date", "x"), fault.KindInvalid, `startDate "x" is not a date`, "startDate", nil, "invalid"},
		{"invalid, the whole input", fault.Invalid("", "request body is not valid UTF-8"), fault.KindInvalid, "request body is not valid UTF-8", "", nil, "invalid"},
		{"invalid field", fault.InvalidField("limit", "must be from 1 to %d", 100), fault.KindInvalid, "limit: must be from 1 to 100", "limit", nil, "invalid"},
		{"invalid field, none named", fault.InvalidField("", "must be %s", "JSON"), fault.KindInvalid, "must be JSON", "", nil, "invalid"},
		{"unavailable", fault.Unavailable("the database did not answer in time; retry shortly", cause), fault.KindUnavailable, "the database did not answer in time; retry shortly", "", cause, "unavailable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.err.Kind() != c.kind || c.err.Error() != c.msg || c.err.Param() != c.param || !errors.Is(c.err.Cause(), c.cause) {
				t.Errorf("got (%v, %q, %q, %v), want (%v, %q, %q, %v)",
					c.err.Kind(), c.err.Error(), c.err.Param(), c.err.Cause(), c.kind, c.msg, c.param, c.cause)
			}
			if got := c.err.Kind().String(); got != c.kindAsString {
				t.Errorf("Kind().String() = %q, want %q", got, c.kindAsString)
			}
		})
	}
}

// A fault wrapped with context is still found, its cause still matches, and
// a sentinel matches by identity only.
func TestWrapping(t *testing.T) {
	t.Parallel()
	errNotFound := fault.New(fault.KindNotFound, "not found")
	wrapped := fmt.Errorf("project prj_1: %w", errNotFound)
	if !errors.Is(wrapped, errNotFound) {
		t.Error("a wrapped sentinel does not match itself")
	}
	if errors.Is(wrapped, fault.New(fault.KindNotFound, "not found")) {
		t.Error("a sentinel matches another fault of the same kind and message")
	}
	if f, ok := fault.As(wrapped, fault.KindNotFound); !ok || f != errNotFound {
		t.Errorf("As(wrapped, not_found) = %v, %v", f, ok)
	}
	if _, ok := fault.As(wrapped, fault.KindInvalid); ok {
		t.Error("As(wrapped, invalid) found a not_found fault")
	}
	if _, ok := fault.As(errors.New("plain"), fault.KindNotFound); ok {
		t.Error("As found a fault in a plain error")
	}
	down := fault.Unavailable("retry shortly", fmt.Errorf("query: %w", context.DeadlineExceeded))
	if !errors.Is(fmt.Errorf("list: %w", down), context.DeadlineExceeded) {
		t.Error("the cause of an unavailable fault does not match")
	}
}

func TestKindString(t *testing.T) {
	t.Parallel()
	if got := fault.Kind(0).String(); got != "kind(0)" {
		t.Errorf("Kind(0) = %q", got)
	}
	if got := fault.Kind(200).String(); got != "kind(200)" {
		t.Errorf("Kind(200) = %q", got)
	}
}
