// Package fault is the one vocabulary of the errors Reclaim's services
// return for a person to read: the Kind of failure (the caller's input, a
// thing that does not exist, a dependency that did not answer...), a
// message written for that person, the request field at fault (Param), and
// the Cause, for the log only.
//
// Services return a *Error, or wrap one with fmt.Errorf's %w; the faces
// (backend/server, admin) find it with errors.As and answer by its Kind:
// the server maps each Kind to one Connect code in one place. Any error
// without a *Error in its chain is a bug or a failure nobody classified,
// and is answered as an internal error that leaks nothing.
//
// Sentinels a package compares against are *Error values made with New
// (project.ErrNotFound); errors.Is matches them by identity, as any
// sentinel.
package fault

import (
	"errors"
	"fmt"
)

// Kind is what went wrong, as the caller should understand it.
type Kind uint8

// The kinds of fault. The zero Kind is none: a *Error always has one of
// these.
const (
	// KindInvalid is input the caller must fix; Param names it.
	KindInvalid Kind = iota + 1
	// KindNotFound is a thing the request names that does not exist, or
	// that the caller may not know exists.
	KindNotFound
	// KindConflict is a change that conflicts with what is stored: a
	// value taken already, a rule the change would break.
	KindConflict
	// KindUnauthenticated is a credential missing, malformed, expired or
	// not good for this request.
	KindUnauthenticated
	// KindPermissionDenied is a caller who is known but may not do this.
	KindPermissionDenied
	// KindUnavailable is a dependency (database, cluster, indexer) that
	// failed or did not answer: the same request may succeed later.
	KindUnavailable
)

var kindNames = [...]string{
	KindInvalid:          "invalid",
	KindNotFound:         "not_found",
	KindConflict:         "conflict",
	KindUnauthenticated:  "unauthenticated",
	KindPermissionDenied: "permission_denied",
	KindUnavailable:      "unavailable",
}

// String names the kind, as "not_found".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Error is a fault. Its fields are set once, by the constructors, so a
// sentinel cannot be changed by whoever receives it.
type Error struct {
	kind  Kind
	msg   string
	param string
	cause error
}

// New is a fault of kind k with a message for a person; the usual way to
// declare a sentinel: var ErrNotFound = fault.New(fault.KindNotFound, "not found").
func New(k Kind, msg string) *Error {
	return &Error{kind: k, msg: msg}
}

// Invalid is input the caller must fix: param names the request field or
// query parameter as the client spells it (items[0].address, startDate,
// or a form's field), "" when the input as a whole is at fault; the
// message is format's, as it stands.
func Invalid(param, format string, args ...any) *Error {
	return &Error{kind: KindInvalid, msg: fmt.Sprintf(format, args...), param: param}
}

// InvalidField is Invalid with a message that starts with the field's name
// when there is one: InvalidField("limit", "must be from 1 to %d", 100)
// reads "limit: must be from 1 to 100".
func InvalidField(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{kind: KindInvalid, msg: msg, param: field}
}

// Unavailable is a dependency that failed or did not answer: msg tells the
// caller what and what to do (retry shortly), cause is what failed, for the
// log.
func Unavailable(msg string, cause error) *Error {
	return &Error{kind: KindUnavailable, msg: msg, cause: cause}
}

// Error is the message for a person; the cause is not in it.
func (e *Error) Error() string { return e.msg }

// Kind is what went wrong.
func (e *Error) Kind() Kind { return e.kind }

// Param names the input at fault, "" when none.
func (e *Error) Param() string { return e.param }

// Cause is what failed underneath, for the log; nil when nothing did.
func (e *Error) Cause() error { return e.cause }

// Unwrap returns the cause, so errors.Is still sees what failed (a
// context's deadline, a driver's condition).
func (e *Error) Unwrap() error { return e.cause }

// As returns the first *Error in err's chain when it is of kind k.
func As(err error, k Kind) (*Error, bool) {
	var f *Error
	if errors.As(err, &f) && f.kind == k {
		return f, true
	}
	return nil, false
}
