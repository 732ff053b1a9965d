// Package openapitest holds tests to the OpenAPI document: a test wraps its
// HTTP client's transport with Transport, and every answer to a REST request
// (under /v1/) must be one the document describes (its status, headers and
// body, errors and the 429 included), or the request fails with the reason.
// So the document cannot drift from the service while the tests pass.
//
// It is a small non-test package so that the handler tests (backend/server)
// and the end-to-end suite (e2e) share it; the service never imports it.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/reclaim-sol/reclaim/gen/openapi"
)

// Checker validates REST exchanges against the document.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
	errors *openapi3.Schema
}

var shared struct {
	once sync.Once
	c    *Checker
	err  error
}

// Shared returns the Checker of the embedded document, loaded and validated
// once per process.
func Shared() (*Checker, error) {
	shared.once.Do(func() { shared.c, shared.err = New(openapi.Document) })
	return shared.c, shared.err
}

// New loads an OpenAPI 3.1 document and checks that it is valid.
func New(document []byte) (*Checker, error) {
	doc, err := openapi3.NewLoader().LoadFromData(document)
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("openapi: version %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi: invalid document: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: router: %w", err)
	}
	errSchema := doc.Components.Schemas["Error"]
	if errSchema == nil || errSchema.Value == nil {
		return nil, errors.New("openapi: the document has no Error schema")
	}
	return &Checker{doc: doc, router: router, errors: errSchema.Value}, nil
}

// Described reports whether the document describes the answers to req:
// the REST API under /v1/, but not the document itself, nor CORS preflights
// (the browser's protocol, answered before the API).
func Described(req *http.Request) bool {
	p := req.URL.Path
	preflight := req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != ""
	return strings.HasPrefix(p, "/v1/") && p != "/v1/openapi.json" && !preflight
}

// Check validates the answer to req: status, header and the whole body. An
// answer to a path or method the document has no operation for must be an
// error with the Error body.
func (c *Checker) Check(req *http.Request, status int, header http.Header, body []byte) error {
	if req.Method == http.MethodHead {
		if err := c.checkHead(req, status, header, body); !errors.Is(err, errNoGet) {
			return err
		}
	}
	route, params, err := c.router.FindRoute(req)
	if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
		return c.checkError(req, status, header, body)
	}
	if err != nil {
		return err
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true},
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: in.Options,
	}
	return openapi3filter.ValidateResponse(req.Context(), out)
}

// errNoGet is a HEAD request to a path without a GET operation.
var errNoGet = errors.New("no GET operation")

// checkHead validates the answer to a HEAD request to a path with a GET
// operation as that GET's answer without its body (RFC 9110: HEAD is GET
// but for the body): its status and headers.
func (c *Checker) checkHead(req *http.Request, status int, header http.Header, body []byte) error {
	get := req.Clone(req.Context())
	get.Method = http.MethodGet
	route, params, err := c.router.FindRoute(get)
	if err != nil {
		return errNoGet
	}
	if len(body) > 0 {
		return fmt.Errorf("a body of %d bytes in answer to HEAD", len(body))
	}
	in := &openapi3filter.RequestValidationInput{
		Request: get, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, ExcludeResponseBody: true},
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: in.Options,
	}
	return openapi3filter.ValidateResponse(req.Context(), out)
}

// checkError validates an answer of no operation: an error status with the
// Error body (none to a HEAD request: HTTP sends a HEAD answer's header only).
func (c *Checker) checkError(req *http.Request, status int, header http.Header, body []byte) error {
	if status < 400 {
		return fmt.Errorf("status %d for a route the document does not have", status)
	}
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("error with Content-Type %q, want application/json", ct)
	}
	if req.Method == http.MethodHead {
		if len(body) > 0 {
			return fmt.Errorf("a body of %d bytes in answer to HEAD", len(body))
		}
		return nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("error body is not JSON: %w", err)
	}
	return c.errors.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

// Transport wraps base (http.DefaultTransport when nil): every answer to a
// described path is read whole and checked; one the document does not
// describe fails the request with the reason and the body.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{base: base}
}

type transport struct{ base http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || !Described(req) || resp.StatusCode == http.StatusSwitchingProtocols {
		return resp, err // a WebSocket's body is the socket
	}
	c, err := Shared()
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := c.Check(req, resp.StatusCode, resp.Header, body); err != nil {
		return nil, fmt.Errorf("openapi: %s %s answered %d, which gen/openapi/reclaim.openapi.json does not describe: %w\nbody: %.600s",
			req.Method, req.URL.Path, resp.StatusCode, err, body)
	}
	return resp, nil
}
