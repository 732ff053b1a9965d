package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// connectResult is a Connect unary response read whole: status, and the
// error body's code, message and the field its BadRequest detail names.
type connectResult struct {
	status  int
	header  http.Header
	code    string
	message string
	param   string
}

// connectRaw posts a raw JSON body to a Connect procedure, as curl or a
// hand-written client would.
func (e *env) connectRaw(t testing.TB, procedure string, c cred, body []byte) connectResult {
	t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+"/reclaim.v1."+procedure, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	c(req.Header)
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := connectResult{status: resp.StatusCode, header: resp.Header}
	if resp.StatusCode == http.StatusOK {
		return out
	}
	var wire struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details []struct {
			Type  string `json:"type"`
			Value string `json:"value"`
			Debug struct {
				FieldViolations []struct {
					Field string `json:"field"`
				} `json:"fieldViolations"`
			} `json:"debug"`
		} `json:"details"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil || wire.Code == "" {
		t.Fatalf("Connect error body %s: %v", raw, err)
	}
	out.code, out.message = wire.Code, wire.Message
	for _, d := range wire.Details {
		if d.Type == "google.rpc.BadRequest" && len(d.Debug.FieldViolations) > 0 {
			out.param = d.Debug.FieldViolations[0].Field
		}
	}
	return out
}

// restParam returns the "param" of a REST error body.
func (r *response) restParam() string {
	r.t.Helper()
	var body struct {
		Param string `json:"param"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		r.t.Fatalf("error body %s: %v", r.body, err)
	}
	return body.Param
}

// The rows of issue 9: client input that got a 5xx or a misleading status.
// Each is asked through REST and, where the route has a procedure that takes
// the same body, through Connect.
func TestClientInputGetsAClearAnswer(t *testing.T) {
	e := newEnv(t)
	wallet := newWallet()
	big := `{"walletAddress":"` + strings.Repeat("a", 2<<20) + `"}`
	rows := []struct {
		name      string
		method    string
		path      string
		procedure string // Connect procedure taking the same body, if any
		body      string
		status    int
		code      string
		message   string // the message contains it
		param     string
	}{
		{"build: not JSON", "POST", "/v1/wallet/" + wallet + "/transactions", "WalletService/BuildTransactions",
			`{not json`, 400, "invalid_argument", "request body is not valid JSON (line 1, column 2)", ""},
		{"build: null item", "POST", "/v1/wallet/" + wallet + "/transactions", "WalletService/BuildTransactions",
			`{"items":[null]}`, 400, "invalid_argument", "items[0]: must be an object, got null", "items[0]"},
		{"submit: null signed entry", "POST", "/v1/wallet/" + wallet + "/transactions/submit", "WalletService/SubmitTransactions",
			`{"signed":[null]}`, 400, "invalid_argument", "signed[0]: must be an object, got null", "signed[0]"},
		{"submit: signed is an object", "POST", "/v1/wallet/" + wallet + "/transactions/submit", "WalletService/SubmitTransactions",
			`{"signed":{}}`, 400, "invalid_argument", "signed: must be an array, got an object", "signed"},
		{"build: empty address in the path", "POST", "/v1/wallet//transactions", "",
			`{"items":[]}`, 400, "invalid_argument", "the path has no address: send it as /v1/wallet/{address}/transactions", "address"},
		{"stream: empty address in the path", "GET", "/v1/wallet//stream", "",
			``, 400, "invalid_argument", "the path has no address", "address"},
		{"a path with ..", "GET", "/v1/wallet/" + wallet + "/../../stats", "",
			``, 404, "not_found", "no route for this path", ""},
		{"a path with //", "GET", "/v1//stats", "",
			``, 404, "not_found", "no route for this path", ""},
		{"sessions: 2 MB body", "POST", "/v1/sessions", "SessionService/CreateSession",
			big, 413, "invalid_argument", "larger than the limit of 1048576 bytes", ""},
		{"sessions: not JSON", "POST", "/v1/sessions", "SessionService/CreateSession",
			`{not json`, 400, "invalid_argument", "request body is not valid JSON (line 1, column 2)", ""},
		{"sessions: wrong type", "POST", "/v1/sessions", "SessionService/CreateSession",
			`{"walletAddress":12}`, 400, "invalid_argument", "walletAddress: must be a string, got 12", "walletAddress"},
		{"sessions: unknown field", "POST", "/v1/sessions", "SessionService/CreateSession",
			`{"walletAddress":"x","ttl":60}`, 400, "invalid_argument", `unknown field "ttl": this request takes walletAddress, scopes, ttlSeconds`, "ttl"},
		{"sessions: a field twice", "POST", "/v1/sessions", "SessionService/CreateSession",
			`{"ttlSeconds":60,"ttlSeconds":70}`, 400, "invalid_argument", `field "ttlSeconds" is given twice`, "ttlSeconds"},
		{"sessions: an array", "POST", "/v1/sessions", "SessionService/CreateSession",
			`[1,2]`, 400, "invalid_argument", "request body must be a JSON object, got an array", ""},
		{"sessions: ttl not whole", "POST", "/v1/sessions", "SessionService/CreateSession",
			`{"walletAddress":"x","ttlSeconds":1.5}`, 400, "invalid_argument", `ttlSeconds: must be a whole number, got "1.5"`, "ttlSeconds"},
	}
	for _, row := range rows {
		t.Run("REST/"+row.name, func(t *testing.T) {
			e := e.with(t)
			r := e.rest(row.method, row.path, apiKey(e.apiKey), row.body)
			msg := r.restErr(row.status, row.code)
			if !strings.Contains(msg, row.message) {
				t.Fatalf("message %q, want it to contain %q", msg, row.message)
			}
			if strings.Contains(msg, "proto") || strings.Contains(msg, "unmarshal") {
				t.Fatalf("message %q shows protobuf internals", msg)
			}
			if p := r.restParam(); p != row.param {
				t.Fatalf("param %q, want %q", p, row.param)
			}
			if ra := r.header.Get("Retry-After"); ra != "" {
				t.Fatalf("Retry-After %q on a request that can never pass", ra)
			}
		})
		if row.procedure == "" {
			continue
		}
		t.Run("Connect/"+row.name, func(t *testing.T) {
			e := e.with(t)
			res := e.connectRaw(t, row.procedure, apiKey(e.apiKey), []byte(row.body))
			if res.code != row.code || !strings.Contains(res.message, row.message) || res.param != row.param {
				t.Fatalf("Connect %d %s %q (param %q), want %s containing %q (param %q)",
					res.status, res.code, res.message, res.param, row.code, row.message, row.param)
			}
			if strings.Contains(res.message, "proto") || strings.Contains(res.message, "unmarshal") {
				t.Fatalf("message %q shows protobuf internals", res.message)
			}
			if ra := res.header.Get("Retry-After"); ra != "" {
				t.Fatalf("Retry-After %q on a request that can never pass", ra)
			}
		})
	}
}

// A GET has no body: the Content-Type some clients set on every request is
// ignored, and a body sent with a GET is refused with a message.
func TestGetIgnoresContentType(t *testing.T) {
	e := newEnv(t)
	for _, ct := range []string{"text/html", "application/json", "application/x-www-form-urlencoded"} {
		req, err := http.NewRequest("GET", e.srv.URL+"/v1/stats", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", ct)
		req.Header.Set("X-Api-Key", e.apiKey)
		resp, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/stats with Content-Type %s: %d, want 200", ct, resp.StatusCode)
		}
	}
	msg := e.rest("GET", "/v1/stats", apiKey(e.apiKey), `{"x":1}`).restErr(400, "invalid_argument")
	if !strings.Contains(msg, "takes no body") {
		t.Fatalf("message %q", msg)
	}
}

// A body sent as something else than JSON is a 415 that says what to send.
func TestNonJSONBodyIs415(t *testing.T) {
	e := newEnv(t)
	req, err := http.NewRequest("POST", e.srv.URL+"/v1/sessions", strings.NewReader(`walletAddress=x`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Api-Key", e.apiKey)
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := &response{t: t, code: resp.StatusCode, header: resp.Header, body: b}
	if msg := r.restErr(415, "invalid_argument"); !strings.Contains(msg, "Content-Type: application/json") {
		t.Fatalf("message %q", msg)
	}
}

// Query strings are checked against the route: names, repeats and types.
func TestQueryStringErrorsNameTheParameter(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		query, param, message string
	}{
		{"limit=abc", "limit", `limit must be a whole number from 1 to 1000, got "abc"`},
		{"offset=-1", "offset", "offset: must be from 0 to 1000000, got -1"}, // one message per range
		{"limit=1&limit=2", "limit", "limit is given 2 times"},
		{"colour=red", "colour", `unknown query parameter "colour": this route takes payer, transactionType, startDate, endDate, limit, offset`},
		{"limit=%zz", "", "the query string is malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			e := e.with(t)
			r := e.rest("GET", "/v1/leaderboard?"+tc.query, apiKey(e.apiKey), nil)
			if msg := r.restErr(400, "invalid_argument"); !strings.Contains(msg, tc.message) {
				t.Fatalf("message %q, want %q", msg, tc.message)
			}
			if p := r.restParam(); p != tc.param {
				t.Fatalf("param %q, want %q", p, tc.param)
			}
		})
	}
	r := e.rest("GET", "/v1/wallet/"+newWallet()+"/assets?address="+newWallet(), apiKey(e.apiKey), nil)
	if msg := r.restErr(400, "invalid_argument"); !strings.Contains(msg, `unknown query parameter "address"`) {
		t.Fatalf("a path parameter in the query: %q", msg)
	}
}
