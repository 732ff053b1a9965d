package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// A procedure the server does not have is unimplemented in the caller's
// protocol, as a gRPC server answers it (not a 404 page, which a client
// library can only guess at): in our services, in the gRPC health service,
// in a service we do not serve. A path outside /v1/ gets the REST error
// body, as one inside does.
func TestUnknownProcedureIsUnimplemented(t *testing.T) {
	e := newEnv(t)
	hc := &http.Client{Transport: h2Only()}
	for _, path := range []string{"/reclaim.v1.WalletService/Nope", "/grpc.health.v1.Health/Nope", "/some.Scanner/Probe"} {
		for _, tc := range []struct {
			contentType string
			body        []byte
		}{{"application/json", []byte("{}")}, {"application/grpc", make([]byte, 5)}, {"application/grpc-web+proto", make([]byte, 5)}} {
			t.Run(tc.contentType+path, func(t *testing.T) {
				req, err := http.NewRequest("POST", e.srv.URL+path, bytes.NewReader(tc.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", tc.contentType)
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var status string
				switch tc.contentType {
				case "application/json":
					var e struct{ Code string }
					_ = json.Unmarshal(body, &e)
					status = e.Code
					if resp.StatusCode != http.StatusNotImplemented {
						t.Errorf("HTTP %d", resp.StatusCode)
					}
				case "application/grpc":
					status = resp.Trailer.Get("Grpc-Status") + resp.Header.Get("Grpc-Status")
				default:
					status = resp.Header.Get("Grpc-Status")
				}
				if status != "unimplemented" && status != "12" {
					t.Fatalf("HTTP %d %v %v %q: want unimplemented", resp.StatusCode, resp.Header, resp.Trailer, body)
				}
			})
		}
	}
	e.rest("GET", "/nothing", noCred(), nil).restErr(404, "not_found")
}

// HEAD on a GET route is the GET without its body (RFC 9110), credentials,
// rate limit and all; HEAD on a POST route is a 405.
func TestHeadIsGetWithoutTheBody(t *testing.T) {
	e := newEnv(t)
	get := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	head := e.rest("HEAD", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	if len(head.body) != 0 || head.header.Get("Content-Type") != "application/json" {
		t.Fatalf("HEAD answered %v %q", head.header, head.body)
	}
	if n := head.header.Get("Content-Length"); n != "" && n != strconv.Itoa(len(get.body)) {
		t.Fatalf("HEAD Content-Length %s, the GET's body is %d bytes", n, len(get.body))
	}
	e.rest("HEAD", "/v1/stats", noCred(), nil).status(401)
	e.rest("HEAD", "/v1/sessions", apiKey(e.apiKey), nil).status(405)
}
