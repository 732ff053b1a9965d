package server_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// A path no route serves is a 404 in the REST error shape for a browser or
// a REST client, dotted or not (it was Connect's 501 for a dotted one); an
// RPC call to a procedure we do not have is still unimplemented in its
// protocol, and the protected-resource metadata still answers.
func TestUnknownDottedPathIs404(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ method, path, contentType string }{
		{"GET", "/.well-known/whatever", ""},
		{"GET", "/.well-known/openid-configuration", ""},
		{"GET", "/a.b/c", ""},
		{"GET", "/reclaim.v1.Nope/Method", ""},
		{"GET", "/reclaim.v1.WalletService/Nope", ""},
		{"GET", "/reclaim.v1.WalletService/a/b", ""},
		{"POST", "/a.b/c", "text/plain"},
		{"POST", "/.well-known/whatever", "application/json"},
		{"PUT", "/reclaim.v1.WalletService/Nope", "application/json"},
	} {
		t.Run(tc.method+tc.path, func(t *testing.T) {
			var body any
			if tc.contentType != "" {
				body = "{}"
			}
			r := e.with(t).rest(tc.method, tc.path, header("Content-Type", tc.contentType), body)
			if msg := r.restErr(404, "not_found"); !strings.Contains(msg, tc.path) {
				t.Fatalf("message %q does not name the path", msg)
			}
		})
	}
	// What a Connect client sends: unimplemented, in Connect's shape.
	for _, tc := range []struct {
		method, target string
		h              http.Header
	}{
		{"POST", "/reclaim.v1.Nope/Method", http.Header{"Content-Type": {"application/json"}}},
		{"POST", "/a.b/c", http.Header{"Content-Type": {"application/proto"}}},
		{"GET", "/reclaim.v1.WalletService/Nope?connect=v1&encoding=json&message=%7B%7D", nil},
		{"GET", "/reclaim.v1.WalletService/Nope?encoding=json&message=%7B%7D", nil},
		{"GET", "/reclaim.v1.WalletService/Nope", http.Header{"Connect-Protocol-Version": {"1"}}},
	} {
		t.Run("connect "+tc.method+tc.target, func(t *testing.T) {
			if status := rawStatus(t, tc.method, e.srv.URL+tc.target, tc.h, "{}"); status != http.StatusNotImplemented {
				t.Fatalf("HTTP %d, want Connect's 501", status)
			}
		})
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		e.rest("GET", p, noCred(), nil).status(200)
	}
}

// rawStatus sends a request as a client of its own would (not checked
// against the OpenAPI document) and returns the answer's status.
func rawStatus(t *testing.T, method, url string, h http.Header, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// badInput is a request whose query or body the front door refuses.
type badInput struct {
	name, query, body, contentType string
}

// restCase is a REST route of the contract, a request to it that passes
// the front door's check (good), and requests it refuses (bad).
type restCase struct {
	method, template string
	good             badInput
	bad              []badInput
}

// Credentials come before the rules of the query and the body on every
// route: a request without valid credentials gets the refusal of its
// credentials, the answer it gets with a valid query or body, and never
// learns the route's rules (issue 32: ?limit=-1 was a 400 before the 401,
// and the stream's plain GET said it was a WebSocket before asking who was
// calling). With valid credentials, the same 400s as before.
func TestCredentialsBeforeRules(t *testing.T) {
	fc := newFakeCluster(t)
	e := newEnv(t, withRPC(fc.url))
	wallet := fc.owner.String()
	queryBad := []badInput{
		{name: "limit=-1", query: "?limit=-1"}, {name: "limit=abc", query: "?limit=abc"},
		{name: "an unknown parameter", query: "?colour=red"}, {name: "a malformed query", query: "?limit=%zz"},
		{name: "a body on a GET", body: `{"limit":1}`, contentType: "application/json"},
	}
	bodyBad := []badInput{
		{name: "malformed JSON", body: `{"items": 12`, contentType: "application/json"},
		{name: "a wrong type", body: `{"donationPercentage":"x"}`, contentType: "application/json"},
		{name: "an unknown field", body: `{"colour":"red"}`, contentType: "application/json"},
		{name: "not JSON", body: `{}`, contentType: "text/plain"},
		{name: "over 1 MiB", body: `{"x":"` + strings.Repeat("a", 2<<20) + `"}`, contentType: "application/json"},
		{name: "limit=-1 in the query", query: "?limit=-1", body: `{}`, contentType: "application/json"},
	}
	cases := []restCase{
		{"GET", "/v1/leaderboard", badInput{}, append(queryBad, badInput{name: "offset=-1", query: "?offset=-1"})},
		{"GET", "/v1/stats", badInput{}, queryBad},
		{"POST", "/v1/sessions", badInput{body: `{"walletAddress":"` + wallet + `"}`, contentType: "application/json"},
			append(bodyBad, badInput{name: "ttlSeconds=-1 as text", body: `{"ttlSeconds":"-1.5"}`, contentType: "application/json"})},
		{"GET", "/v1/wallet/{address}/assets", badInput{}, queryBad},
		{"POST", "/v1/wallet/{address}/transactions", badInput{body: `{}`, contentType: "application/json"}, bodyBad},
		{"POST", "/v1/wallet/{address}/transactions/submit", badInput{body: `{}`, contentType: "application/json"}, bodyBad},
		{"GET", "/v1/wallet/{address}/submissions", badInput{}, append(queryBad, badInput{name: "waitSeconds=-1", query: "?waitSeconds=-1"})},
		{"GET", "/v1/wallet/{address}/summary", badInput{}, queryBad},
		// The stream's plain GET (no Upgrade) is its bad input.
		{"GET", "/v1/wallet/{address}/stream", badInput{}, []badInput{{name: "no Upgrade"}, {name: "no Upgrade, chunkSize=-1", query: "?chunkSize=-1"}}},
	}
	// Every route of the proto is in the table.
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.method+" "+c.template] = true
	}
	for _, fd := range []protoreflect.FileDescriptor{reclaimv1.File_reclaim_v1_session_proto, reclaimv1.File_reclaim_v1_wallet_proto, reclaimv1.File_reclaim_v1_project_proto} {
		for i := 0; i < fd.Services().Len(); i++ {
			ms := fd.Services().Get(i).Methods()
			for j := 0; j < ms.Len(); j++ {
				rule, _ := proto.GetExtension(ms.Get(j).Options(), annotations.E_Http).(*annotations.HttpRule)
				switch {
				case rule.GetGet() != "" && !seen["GET "+rule.GetGet()]:
					t.Errorf("GET %s is not in the table", rule.GetGet())
				case rule.GetPost() != "" && !seen["POST "+rule.GetPost()]:
					t.Errorf("POST %s is not in the table", rule.GetPost())
				}
			}
		}
	}

	neverIssued := apiKey("ak_live_" + strings.Repeat("1", 44))
	otherWallet := bearer(e.session(newWallet()))
	readOnly := bearer(e.session(wallet, "wallet:read"))
	for _, c := range cases {
		path := strings.Replace(c.template, "{address}", wallet, 1)
		stream := strings.HasSuffix(c.template, "/stream")
		valid := apiKey(e.apiKey)
		if stream {
			valid = bearer(e.session(wallet))
		}
		send := func(t *testing.T, in badInput, cr cred) *response {
			var body any
			if in.body != "" {
				body = in.body
			}
			return e.with(t).rest(c.method, path+in.query, func(h http.Header) {
				cr(h)
				if in.contentType != "" {
					h.Set("Content-Type", in.contentType)
				}
			}, body)
		}
		for _, cr := range []struct {
			name string
			c    cred
		}{
			{"no credentials", noCred()}, {"a key never issued", neverIssued}, {"both credentials", func(h http.Header) {
				valid(h)
				h.Set("Authorization", "Bearer x")
				h.Set("X-Api-Key", e.apiKey)
			}}, {"a session of another wallet", otherWallet}, {"a read-only session", readOnly},
		} {
			var status int
			var wantCode, wantMsg string
			if stream {
				status, wantCode, wantMsg = refusal(t, e, wallet, cr.c)
			} else {
				want := send(t, c.good, cr.c)
				if status = want.code; status < 400 || status == 400 {
					continue // these credentials pass this route: nothing to refuse first
				}
				wantCode = restCode(t, want)
				wantMsg = want.restErr(status, wantCode)
			}
			if status == 0 {
				continue // the stream takes these credentials
			}
			for _, in := range c.bad {
				t.Run(c.method+" "+c.template+"/"+cr.name+"/"+in.name, func(t *testing.T) {
					got := send(t, in, cr.c)
					if msg := got.restErr(status, wantCode); msg != wantMsg {
						t.Fatalf("%d %q, want the credentials' %d %q", got.code, msg, status, wantMsg)
					}
				})
			}
		}
		for _, in := range c.bad {
			t.Run(c.method+" "+c.template+"/valid credentials/"+in.name, func(t *testing.T) {
				got := send(t, in, valid)
				if got.code < 400 || got.code >= 500 || got.code == 401 || got.code == 403 {
					t.Fatalf("%d %s: want the check's 4xx", got.code, got.body)
				}
			})
		}
	}
}

// refusal is how the wallet stream's WebSocket refuses credentials: the
// status, code and message of its error event (0: it takes them).
func refusal(t *testing.T, e *env, wallet string, c cred) (int, string, string) {
	t.Helper()
	h := http.Header{}
	c(h)
	res := readAll(t, e.dialStream(t, wallet, "", &websocket.DialOptions{HTTPHeader: h}))
	if res.errEvent == nil || res.close.Code < 4401 {
		return 0, "", ""
	}
	status, _ := res.errEvent["statusCode"].(float64)
	code, _ := res.errEvent["code"].(string)
	msg, _ := res.errEvent["message"].(string)
	return int(status), code, msg
}

// restCode is the code of a REST error body.
func restCode(t *testing.T, r *response) string {
	t.Helper()
	code, _ := r.json()["code"].(string)
	return code
}

// Over Connect and gRPC too, the credentials come first: before the body's
// check (malformed JSON, protobuf that does not parse) and before the rules
// (CheckRules runs in the handler, after the auth interceptor).
func TestCredentialsBeforeRulesOverConnect(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name, procedure, contentType, body string
	}{
		{"malformed JSON", "ProjectService/GetLeaderboard", "application/json", `{"limit": 12`},
		{"limit out of range", "ProjectService/GetLeaderboard", "application/json", `{"limit": 5000}`},
		{"a wrong type", "WalletService/BuildTransactions", "application/json", `{"donationPercentage":"x"}`},
		{"protobuf that does not parse", "SessionService/CreateSession", "application/proto", "\x0a\xff\x01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Content-Type": {tc.contentType}}
			if status := rawStatus(t, "POST", e.srv.URL+"/reclaim.v1."+tc.procedure, h, tc.body); status != http.StatusUnauthorized {
				t.Fatalf("HTTP %d, want 401", status)
			}
			if r := e.connectRaw(t, tc.procedure, apiKey(e.apiKey), []byte(tc.body)); tc.contentType == "application/json" && r.status != 400 {
				t.Fatalf("with a key: %d %s, want 400", r.status, r.message)
			}
		})
	}
	for _, opts := range [][]connect.ClientOption{nil, {connect.WithGRPC()}, {connect.WithGRPCWeb()}, {connect.WithProtoJSON()}} {
		limit := uint32(5000)
		_, err := e.connectClients(opts...).project.GetLeaderboard(context.Background(),
			withCred(&reclaimv1.GetLeaderboardRequest{Limit: &limit}, noCred()))
		if code := connectCode(t, err); code != connect.CodeUnauthenticated {
			t.Errorf("%v: %v, want unauthenticated", opts, err)
		}
		_, err = e.connectClients(opts...).project.GetLeaderboard(context.Background(),
			withCred(&reclaimv1.GetLeaderboardRequest{Limit: &limit}, apiKey(e.apiKey)))
		if code := connectCode(t, err); code != connect.CodeInvalidArgument {
			t.Errorf("%v with a key: %v, want invalid_argument", opts, err)
		}
	}
}

// One message per range: a value below a ranged field's range and one above
// it get the same message but for the value, whichever check finds it (the
// query's or the JSON's type, or the proto's rules), for every ranged field.
func TestOneMessagePerRange(t *testing.T) {
	fc := newFakeCluster(t)
	e := newEnv(t, withRPC(fc.url))
	wallet := fc.owner.String()
	sig := "?signature=" + strings.Repeat("1", 64) + "&"
	key := apiKey(e.apiKey)
	got := regexp.MustCompile(`got "?-?[0-9.e+]+"?`)
	for _, tc := range []struct {
		field, method, path, format string
		values                      []string
	}{
		{"limit", "GET", "/v1/leaderboard?", "limit=%s", []string{"-1", "0", "1001", "4294967296"}},
		{"offset", "GET", "/v1/leaderboard?", "offset=%s", []string{"-1", "1000001", "4294967296"}},
		{"limit", "GET", "/v1/wallet/" + wallet + "/assets?", "limit=%s", []string{"-1", "0", "1001", "4294967296"}},
		{"waitSeconds", "GET", "/v1/wallet/" + wallet + "/submissions" + sig, "waitSeconds=%s", []string{"-1", "31", "4294967296"}},
		{"donationPercentage", "GET", "/v1/wallet/" + wallet + "/summary?", "donationPercentage=%s", []string{"-0.5", "1.5", "-1", "2"}},
		{"donationPercentage", "POST", "/v1/wallet/" + wallet + "/transactions", `{"selectAll":true,"donationPercentage":%s}`, []string{"-0.5", "1.5", "-1", "2"}},
		{"ttlSeconds", "POST", "/v1/sessions", `{"walletAddress":"` + wallet + `","ttlSeconds":%s}`, []string{"-1", "0", "3601", "9223372036854775808"}},
	} {
		t.Run(tc.field+" "+tc.path, func(t *testing.T) {
			e := e.with(t)
			var first string
			for _, v := range tc.values {
				var r *response
				if tc.method == "GET" {
					r = e.rest("GET", tc.path+strings.Replace(tc.format, "%s", v, 1), key, nil)
				} else {
					r = e.rest("POST", tc.path, key, strings.Replace(tc.format, "%s", v, 1))
				}
				msg := r.restErr(400, "invalid_argument")
				if p := r.restParam(); p != tc.field {
					t.Errorf("%s=%s: param %q", tc.field, v, p)
				}
				if !strings.Contains(msg, v) {
					t.Errorf("%s=%s: %q does not give the value", tc.field, v, msg)
				}
				msg = got.ReplaceAllString(msg, "got V")
				if first == "" {
					first = msg
				} else if msg != first {
					t.Errorf("%s=%s: %q, but %s=%s: %q", tc.field, v, msg, tc.field, tc.values[0], first)
				}
			}
		})
	}
}
