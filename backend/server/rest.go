package server

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
// written for the closest peer API ("statusCode", "error").
type restError struct {
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error"`
	Code       string `json:"code"`
	Message    string `json:"message"`
}

// maxErrorBody bounds what is buffered of an error response to reshape it.
const maxErrorBody = 64 << 10

// restErrors owns the shape of REST error bodies. Whatever wrote the error
// (vanguard's google.rpc.Status for handler and transcoding errors, or a
// plain-text 404/405), a REST client gets a restError with the same status.
func restErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v1/") || isWebSocket(r) {
			next.ServeHTTP(w, r)
			return
		}
		ew := &errorWriter{ResponseWriter: w, route: r.Method + " " + r.URL.Path}
		next.ServeHTTP(ew, r)
		ew.finish()
	})
}

func isWebSocket(r *http.Request) bool {
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
	status, body := reshape(w.status, w.buf.Bytes(), w.route)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.ResponseWriter.WriteHeader(status)
	_, _ = w.ResponseWriter.Write(body)
}

// unknownParam is how vanguard words a query parameter that names no field;
// it reports it as an unknown (500) error, but it is the caller's mistake.
var unknownParam = regexp.MustCompile(`^unknown field in field path "([^"]*)"`)

// reshape turns whatever error body was written into a restError.
func reshape(status int, body []byte, route string) (int, []byte) {
	out := restError{StatusCode: status, Error: http.StatusText(status), Code: codeForStatus(status)}
	var st struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal(body, &st); err == nil && len(st.Code) > 0 {
		if n, err := strconv.Atoi(string(st.Code)); err == nil && n > 0 && n <= 16 {
			out.Code = connect.Code(n).String()
		}
		out.Message = st.Message
	} else {
		out.Message = strings.TrimSpace(string(body))
	}
	if m := unknownParam.FindStringSubmatch(out.Message); m != nil {
		status = http.StatusBadRequest
		out = restError{StatusCode: status, Error: http.StatusText(status), Code: connect.CodeInvalidArgument.String(),
			Message: fmt.Sprintf("unknown query parameter %q", m[1])}
	}
	if status == http.StatusMethodNotAllowed {
		out.Message = route + ": method not allowed on this route"
	}
	if out.Message == "" || strings.HasPrefix(out.Message, "{") || out.Message == out.Error {
		out.Message = strings.ToLower(out.Error) + " (" + route + ")"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out)
	return status, bytes.TrimRight(buf.Bytes(), "\n")
}

func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		return connect.CodeInvalidArgument.String()
	case http.StatusUnauthorized:
		return connect.CodeUnauthenticated.String()
	case http.StatusForbidden:
		return connect.CodePermissionDenied.String()
	case http.StatusNotFound:
		return connect.CodeNotFound.String()
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return connect.CodeUnimplemented.String()
	case http.StatusConflict:
		return connect.CodeAborted.String()
	case http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
		return connect.CodeResourceExhausted.String()
	case http.StatusServiceUnavailable:
		return connect.CodeUnavailable.String()
	case http.StatusGatewayTimeout, http.StatusRequestTimeout:
		return connect.CodeDeadlineExceeded.String()
	}
	return connect.CodeInternal.String()
}
