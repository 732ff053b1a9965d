package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	"golang.org/x/net/http/httpguts"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// The fuzz targets send arbitrary input through the real mux (real SQLite,
// a fake cluster that holds a wallet) as a client would, one target per
// route family. Whatever the input, every answer is a success or a 4xx
// whose body has the documented shape and a message for a person, and a
// refused request writes nothing to the ledger or the submission log.
// `make fuzz` runs each for a while; `go test` runs the seeds and what
// testdata/fuzz holds.

// writeCounter counts what the relay writes: ledger rows (claims and their
// status changes) and submission-log lines.
type writeCounter struct {
	relay.Store
	mu     sync.Mutex
	writes int
}

func (w *writeCounter) add() {
	w.mu.Lock()
	w.writes++
	w.mu.Unlock()
}

func (w *writeCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

func (w *writeCounter) ClaimTicket(ctx context.Context, e ledger.Entry) error {
	w.add()
	return w.Store.ClaimTicket(ctx, e)
}

func (w *writeCounter) MarkSubmitted(ctx context.Context, jti string) (bool, error) {
	w.add()
	return w.Store.MarkSubmitted(ctx, jti)
}

func (w *writeCounter) ReleaseClaim(ctx context.Context, jti string) error {
	w.add()
	return w.Store.ReleaseClaim(ctx, jti)
}

func (w *writeCounter) LogAttempt(ctx context.Context, a ledger.Attempt) error {
	w.add()
	return w.Store.LogAttempt(ctx, a)
}

type fuzzEnv struct {
	*env
	cluster *fakeCluster
	wallet  string
	token   string
	writes  *writeCounter
}

func newFuzzEnv(t testing.TB) *fuzzEnv {
	t.Helper()
	fc := newFakeCluster(t)
	fc.add(6)
	wc := &writeCounter{}
	e := newEnv(t, withRPC(fc.url), withQuota(1e6, 1e7, 0),
		withRelayStore(func(s relay.Store) relay.Store { wc.Store = s; return wc }))
	wallet := fc.owner.String()
	return &fuzzEnv{env: e, cluster: fc, wallet: wallet, token: e.session(wallet), writes: wc}
}

// selections are the wallet's items as a build request lists them.
func (fe *fuzzEnv) selections(t testing.TB) []any {
	t.Helper()
	items := fe.rest("GET", "/v1/wallet/"+fe.wallet+"/assets", bearer(fe.token), nil).status(200).json()["items"].([]any)
	var out []any
	for _, it := range items {
		m := it.(map[string]any)
		acts := m["actions"].([]any)
		if len(acts) == 0 {
			continue
		}
		out = append(out, map[string]any{"type": m["type"], "address": m["address"], "action": acts[0]})
	}
	return out
}

// signedBody builds the wallet's items, signs the transactions as the wallet
// would, and returns a submit body.
func (fe *fuzzEnv) signedBody(t testing.TB) string {
	t.Helper()
	resp := fe.rest("POST", "/v1/wallet/"+fe.wallet+"/transactions", bearer(fe.token),
		map[string]any{"items": fe.selections(t), "priorityFeeLevel": "none"}).status(200).json()
	var signed []any
	for _, tx := range resp["transactions"].([]any) {
		built := tx.(map[string]any)
		raw, err := base64.StdEncoding.DecodeString(built["transactionBase64"].(string))
		if err != nil {
			t.Fatal(err)
		}
		stx, err := solana.TransactionFromDecoder(bin.NewBinDecoder(raw))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &fe.cluster.ownerKey }); err != nil {
			t.Fatal(err)
		}
		out, err := stx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		signed = append(signed, map[string]any{
			"transactionBase64": base64.StdEncoding.EncodeToString(out), "submissionTicket": built["submissionTicket"]})
	}
	b, _ := json.Marshal(map[string]any{"signed": signed})
	return string(b)
}

// connectCodes are the codes a Connect error body may name.
var connectCodes = func() map[string]bool {
	m := map[string]bool{}
	for c := connect.CodeCanceled; c <= connect.CodeUnauthenticated; c++ {
		m[c.String()] = true
	}
	return m
}()

// send makes one request and checks what every answer must be. rest says
// which error body to expect: the REST shape or Connect's.
func (fe *fuzzEnv) send(t *testing.T, req *http.Request, rest bool) (int, []byte) {
	t.Helper()
	before := fe.writes.count()
	resp, err := fe.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, resp.StatusCode, body)
	}
	if resp.StatusCode >= 400 && req.Method != http.MethodHead { // HEAD: headers only
		if rest {
			checkRESTErrorBody(t, resp.StatusCode, resp.Header, body)
		} else {
			checkConnectErrorBody(t, body)
		}
	}
	if resp.StatusCode != http.StatusOK && fe.writes.count() != before {
		t.Fatalf("%s %s refused with %d after writing to the ledger or the submission log", req.Method, req.URL, resp.StatusCode)
	}
	return resp.StatusCode, body
}

func checkRESTErrorBody(t *testing.T, status int, h http.Header, body []byte) {
	t.Helper()
	var e struct {
		StatusCode int    `json:"statusCode"`
		Error      string `json:"error"`
		Code       string `json:"code"`
		Message    string `json:"message"`
		Param      string `json:"param"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || h.Get("Content-Type") != "application/json" {
		t.Fatalf("error body %q (Content-Type %q): %v", body, h.Get("Content-Type"), err)
	}
	if e.StatusCode != status || e.Error != http.StatusText(status) || !connectCodes[e.Code] || e.Message == "" {
		t.Fatalf("error body %s for status %d", body, status)
	}
	checkMessage(t, e.Message)
}

func checkConnectErrorBody(t *testing.T, body []byte) {
	t.Helper()
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &e); err != nil || !connectCodes[e.Code] || e.Message == "" {
		t.Fatalf("Connect error body %q: %v", body, err)
	}
	checkMessage(t, e.Message)
}

// checkMessage refuses messages that show the decoder's internals.
func checkMessage(t *testing.T, msg string) {
	t.Helper()
	for _, internal := range []string{"proto:", "unmarshal message", "protojson", "reclaim.v1."} {
		if strings.Contains(msg, internal) {
			t.Fatalf("message %q shows %q", msg, internal)
		}
	}
}

func (fe *fuzzEnv) request(t *testing.T, method, path, contentType string, body []byte, c cred) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, fe.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	c(req.Header)
	return req
}

var fuzzMethods = []string{"POST", "GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}

func FuzzSessions(f *testing.F) {
	fe := newFuzzEnv(f)
	w := fe.wallet
	for _, body := range []string{
		`{"walletAddress":"` + w + `","scopes":["wallet:read","transactions:build"],"ttlSeconds":600}`,
		`{"walletAddress":"` + w + `"}`,
		`{"walletAddress":"` + w + `","scopes":[],"ttlSeconds":3600}`,
		`{"walletAddress":"` + w + `","scopes":["wallet:write"]}`,
		`{"walletAddress":"` + w + `","ttlSeconds":"300"}`,
		`{"walletAddress":"` + w + `","ttlSeconds":1e3}`,
		`{"wallet_address":"` + w + `","ttl_seconds":60}`,
		`{}`, ``, `{not json`, `[1]`, `null`, `{"walletAddress":null,"scopes":null}`,
	} {
		f.Add(uint8(0), "application/json", body)
	}
	f.Add(uint8(1), "text/html", "")
	f.Add(uint8(0), "application/json; charset=utf-8", `{"walletAddress":"`+w+`"}`)
	f.Fuzz(func(t *testing.T, m uint8, contentType, body string) {
		if !httpguts.ValidHeaderFieldValue(contentType) {
			return // Go's client refuses to send it
		}
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		fe.send(t, fe.request(t, method, "/v1/sessions", contentType, []byte(body), apiKey(fe.apiKey)), true)
		fe.send(t, fe.request(t, "POST", "/reclaim.v1.SessionService/CreateSession", "application/json", []byte(body), apiKey(fe.apiKey)), false)
	})
}

func FuzzBuild(f *testing.F) {
	fe := newFuzzEnv(f)
	sel, _ := json.Marshal(fe.selections(f))
	for _, body := range []string{
		`{"items":` + string(sel) + `,"donationPercentage":0.1,"priorityFeeLevel":"medium"}`,
		`{"items":` + string(sel) + `}`,
		`{"items":[{"type":"empty_account","address":"` + fe.wallet + `","action":"close"}]}`,
		`{"items":[{"type":"nft","address":"x","action":"close"}],"donationPercentage":2}`,
		`{"items":[]}`, `{"items":[null]}`, `{"items":{}}`, `{"items":"all"}`,
		`{"items":[{"type":1}]}`, `{"donationPercentage":"NaN"}`, `{"priorityFeeLevel":"ultra"}`,
		`{not json`, ``, `{"items":[{}],"address":"` + fe.wallet + `"}`,
		`{"selectAll":true}`, `{"selectAll":true,"donationPercentage":0.1,"priorityFeeLevel":"none"}`,
		`{"selectAll":true,"items":` + string(sel) + `}`, `{"selectAll":"yes"}`, `{"selectAll":1}`, `{"selectAll":null}`,
		`{"selectAll":false}`, `{"select_all":true}`,
	} {
		f.Add(fe.wallet, body)
	}
	f.Add("not-an-address", `{"items":[]}`)
	f.Fuzz(func(t *testing.T, address, body string) {
		path := "/v1/wallet/" + address + "/transactions"
		if !validPath(path) {
			return
		}
		fe.send(t, fe.request(t, "POST", path, "application/json", []byte(body), bearer(fe.token)), true)
		fe.send(t, fe.request(t, "POST", "/reclaim.v1.WalletService/BuildTransactions", "application/json", []byte(body), bearer(fe.token)), false)
	})
}

// FuzzSummaryQuery: GET /v1/wallet/{address}/summary parses its path and
// query (donationPercentage, priorityFeeLevel) into a summary that is built
// as a select-all build; no input gets a 5xx.
func FuzzSummaryQuery(f *testing.F) {
	fe := newFuzzEnv(f)
	for _, q := range []string{
		"", "donationPercentage=0.1", "donationPercentage=0&priorityFeeLevel=none", "priorityFeeLevel=high",
		"donationPercentage=1.5", "donationPercentage=-0.1", "donationPercentage=NaN", "donationPercentage=1e-3",
		"donationPercentage=much", "donationPercentage=", "priorityFeeLevel=ultra", "priorityFeeLevel=",
		"donation_percentage=0.1", "items=all", "selectAll=true", "donationPercentage=0.1&donationPercentage=0.2", "x=%zz",
	} {
		f.Add(fe.wallet, q)
	}
	f.Add("not-an-address", "")
	f.Fuzz(func(t *testing.T, address, query string) {
		path := "/v1/wallet/" + address + "/summary?" + query
		if !validPath(path) {
			return
		}
		fe.send(t, fe.request(t, "GET", path, "", nil, bearer(fe.token)), true)
	})
}

func FuzzSubmit(f *testing.F) {
	fe := newFuzzEnv(f)
	for _, body := range []string{
		fe.signedBody(f),
		`{"signed":[{"transactionBase64":"AQID","submissionTicket":"eyJhbGciOiJFZERTQSJ9.e30.AA"}]}`,
		`{"signed":[]}`, `{"signed":[null]}`, `{"signed":{}}`, `{"signed":[{"transactionBase64":"@@"}]}`,
		`{"signed":[{"submissionTicket":""}]}`, `{not json`, ``, `[]`,
		`{"signed":[{"signature":"` + solana.Signature{1}.String() + `","submissionTicket":"eyJhbGciOiJFZERTQSJ9.e30.AA"}]}`,
		`{"signed":[{"signature":"x","transactionBase64":"AQID","submissionTicket":"t"}]}`, `{"signed":[{"signature":null}]}`,
	} {
		f.Add(fe.wallet, body)
	}
	f.Fuzz(func(t *testing.T, address, body string) {
		path := "/v1/wallet/" + address + "/transactions/submit"
		if !validPath(path) {
			return
		}
		fe.send(t, fe.request(t, "POST", path, "application/json", []byte(body), bearer(fe.token)), true)
		fe.send(t, fe.request(t, "POST", "/reclaim.v1.WalletService/SubmitTransactions", "application/json", []byte(body), bearer(fe.token)), false)
	})
}

func FuzzLeaderboardQuery(f *testing.F) {
	fe := newFuzzEnv(f)
	for _, q := range []string{
		"", "payer=" + fe.wallet, "transactionType=token_account_closure", "transactionType=token_burn",
		"startDate=2026-11-01&endDate=2026-11-30", "startDate=2026-11-01T00:00:00Z&endDate=2026-11-02T00:00:00Z",
		"limit=10&offset=0", "limit=1000&offset=1000000", "limit=0", "limit=-1", "limit=1e3", "offset=abc",
		"startDate=yesterday", "endDate=2026-02-30", "transactionType=nft_burn&payer=x", "colour=red",
		"limit=1&limit=2", "payer=%zz", "start_date=2026-11-01", "transaction_type=token_burn",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		path := "/v1/leaderboard?" + query
		if !validPath(path) {
			return
		}
		fe.send(t, fe.request(t, "GET", path, "", nil, apiKey(fe.apiKey)), true)
	})
}

// FuzzSubmissionsQuery: the status route's query (signatures, a wait)
// gets a clear answer, never a 5xx; the fuzz env's wallet has submitted
// nothing, so every wait ends at once.
func FuzzSubmissionsQuery(f *testing.F) {
	fe := newFuzzEnv(f)
	sig := solana.Signature{1}.String()
	for _, q := range []string{
		"signature=" + sig, "signature=" + sig + "&signature=" + sig, "signature=" + sig + "&waitSeconds=30",
		"signature=" + sig + "&waitSeconds=31", "signature=" + sig + "&waitSeconds=-1", "signature=" + sig + "&waitSeconds=1e1",
		"", "signature=", "signature=0OIl", "signature=" + fe.wallet, "signature=%zz", "wait_seconds=5&signature=" + sig,
		"waitSeconds=5&waitSeconds=6&signature=" + sig, "signatures=" + sig, "address=" + fe.wallet,
		"signature=" + sig + "&waitSeconds=3&waitUntil=final", "signature=" + sig + "&waitUntil=%00", "signature=" + sig + "&waitUntil=landed&waitUntil=final",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		path := "/v1/wallet/" + fe.wallet + "/submissions?" + query
		if !validPath(path) {
			return
		}
		fe.send(t, fe.request(t, "GET", path, "", nil, bearer(fe.token)), true)
	})
}

func FuzzStreamQuery(f *testing.F) {
	fe := newFuzzEnv(f)
	for _, q := range []string{"", "chunkSize=50", "chunkSize=1", "chunkSize=500", "chunkSize=0", "chunkSize=501",
		"chunkSize=abc", "chunkSize=-1", "chunkSize=", "token=x", "token=", "extra=1", "chunkSize=2&chunkSize=3"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		path := "/v1/wallet/" + fe.wallet + "/stream?" + query
		if !validPath(path) {
			return
		}
		fe.checkStream(t, path)
	})
}

// checkStream opens the wallet stream with the session as a subprotocol and
// checks how it ends: complete, or an error event in the REST shape followed
// by the close code 4000 + a 4xx status.
func (fe *fuzzEnv) checkStream(t *testing.T, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(fe.srv.URL, "http") + path
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"reclaim.v1", "bearer." + fe.token}})
	if err != nil {
		if resp != nil && resp.StatusCode >= 500 {
			t.Fatalf("upgrade %s: %d", path, resp.StatusCode)
		}
		if resp == nil {
			return // the client refused the URL before sending it
		}
		t.Fatalf("upgrade %s refused with %d: %v", path, resp.StatusCode, err)
	}
	defer c.CloseNow()
	c.SetReadLimit(10 << 20)
	var errEvent []byte
	for {
		_, msg, err := c.Read(ctx)
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			switch {
			case ce.Code == websocket.StatusNormalClosure && errEvent == nil:
				return
			case ce.Code >= 4400 && ce.Code < 4500 && errEvent != nil:
				var e struct {
					Data json.RawMessage `json:"data"`
				}
				_ = json.Unmarshal(errEvent, &e)
				checkRESTErrorBody(t, int(ce.Code)-4000, http.Header{"Content-Type": {"application/json"}}, e.Data)
				return
			}
			t.Fatalf("stream %s closed %d %q after error event %s", path, ce.Code, ce.Reason, errEvent)
		}
		if err != nil {
			t.Fatalf("stream %s: %v", path, err)
		}
		if bytes.HasPrefix(msg, []byte(`{"event":"error"`)) {
			errEvent = msg
		}
	}
}

// validPath reports whether a fuzzed path is one a client sends: Go's client
// refuses some URLs before any byte leaves it, and a raw space or control
// byte in a request line is refused by net/http's parser (400, plain text)
// before any handler runs; browsers and HTTP libraries escape them.
func validPath(path string) bool {
	if _, err := http.NewRequest("GET", "http://127.0.0.1"+path, nil); err != nil {
		return false
	}
	for i := 0; i < len(path); i++ {
		if path[i] <= ' ' || path[i] == 0x7f || path[i] == '#' {
			return false
		}
	}
	return true
}
