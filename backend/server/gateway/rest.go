package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"connectrpc.com/connect"
)

// restError is the body of every REST error response (see docs/decisions.md):
// readable by code written for Connect-style bodies ("code") and by code
// written for the closest peer API ("statusCode", "error"). Param names the
// request field or query parameter to fix, when one is at fault.
type restError struct {
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Param      string `json:"param,omitempty"`
}

// NewRESTError is the body for an HTTP status, a code and a message.
func NewRESTError(status int, code connect.Code, msg, param string) restError {
	return restError{StatusCode: status, Error: http.StatusText(status), Code: code.String(), Message: msg, Param: param}
}

// RestErrorOf is the body of a Connect error, with vanguard's status.
func RestErrorOf(ce *connect.Error) restError {
	return NewRESTError(httpStatusFor(ce.Code()), ce.Code(), ce.Message(), ParamOf(ce))
}

func (e restError) Encode() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(e)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// Write answers with the error: the one writer of REST error bodies.
func (e restError) Write(w http.ResponseWriter) {
	body := e.Encode()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.StatusCode)
	_, _ = w.Write(body) //nolint:gosec // G705: JSON built by encode, sent as application/json; no browser renders it as HTML
}

// maxErrorBody bounds what is buffered of an error response to reshape it.
const maxErrorBody = 64 << 10

// RestErrors owns the shape of REST error bodies. Whatever wrote the error
// (vanguard's google.rpc.Status for handler and transcoding errors, or a
// plain-text 404/405), a REST client gets a restError with the same status.
func RestErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v1/") || IsWebSocket(r) {
			next.ServeHTTP(w, r)
			return
		}
		ew := &errorWriter{ResponseWriter: w, route: r.Method + " " + r.URL.Path}
		next.ServeHTTP(ew, r)
		ew.finish()
	})
}

// IsWebSocket reports whether r asks to upgrade to a WebSocket.
func IsWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

type errorWriter struct {
	http.ResponseWriter
	route  string // method and path, for messages that lack them
	status int
	buf    *bytes.Buffer // non-nil once an error status was written
}

func (w *errorWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	if code >= 400 {
		w.buf = &bytes.Buffer{}
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *errorWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.buf != nil {
		if w.buf.Len()+len(p) <= maxErrorBody {
			w.buf.Write(p)
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *errorWriter) Flush() {
	if w.buf != nil {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *errorWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("hijack not supported")
}

func (w *errorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *errorWriter) finish() {
	if w.buf == nil {
		return
	}
	reshape(w.status, w.buf.Bytes(), w.route).Write(w.ResponseWriter)
}

// unknownParam is how vanguard words a query parameter that names no field;
// it reports it as an unknown (500) error, but it is the caller's mistake.
var unknownParam = regexp.MustCompile(`^unknown field in field path "([^"]*)"`)

// reshape turns whatever error body was written into a restError: vanguard's
// google.rpc.Status (numeric code, message, details with the BadRequest that
// names the field), or a plain-text body of the mux's.
func reshape(status int, body []byte, route string) restError {
	out := NewRESTError(status, CodeForStatus(status), "", "")
	var st struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Details []struct {
			Type            string `json:"@type"`
			FieldViolations []struct {
				Field string `json:"field"`
			} `json:"fieldViolations"`
			Reason string `json:"reason"` // google.rpc.ErrorInfo
		} `json:"details"`
	}
	if err := json.Unmarshal(body, &st); err == nil && len(st.Code) > 0 {
		if n, err := strconv.Atoi(string(st.Code)); err == nil && n > 0 && n <= 16 {
			out.Code = connect.Code(n).String()
		}
		out.Message = st.Message
		for _, d := range st.Details {
			if strings.HasSuffix(d.Type, "/google.rpc.BadRequest") && len(d.FieldViolations) > 0 {
				out.Param = d.FieldViolations[0].Field
			}
			if status, code, ok := RestReason(d.Reason); ok && strings.HasSuffix(d.Type, "/google.rpc.ErrorInfo") {
				out.StatusCode, out.Error, out.Code = status, http.StatusText(status), code // idempotency.go
			}
		}
	} else {
		out.Message = strings.TrimSpace(string(body))
	}
	if m := unknownParam.FindStringSubmatch(out.Message); m != nil {
		return NewRESTError(http.StatusBadRequest, connect.CodeInvalidArgument, fmt.Sprintf("unknown query parameter %q", m[1]), m[1])
	}
	if status == http.StatusMethodNotAllowed {
		out.Message = route + ": method not allowed on this route"
	}
	if out.Message == "" || strings.HasPrefix(out.Message, "{") || out.Message == out.Error {
		out.Message = strings.ToLower(out.Error) + " (" + route + ")"
	}
	return out
}

// NotFound answers a path nothing serves with the REST error body, inside
// /v1/ and outside alike (a client that mistypes the base path reads the
// same body as one that mistypes a route). An RPC call to an unknown
// procedure is the front door's (unimplemented, in the call's protocol).
func NotFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	NewRESTError(http.StatusNotFound, connect.CodeNotFound, "no route for "+r.Method+" "+r.URL.Path+": see the API reference in the README", "").Write(w)
}
