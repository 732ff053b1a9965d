package e2e

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestSecretsStayOutOfLogsAndPages (issue 19): every secret the service is
// given or hands out (the keys and passwords in every URL setting, in their
// userinfo, path and query; the signing key; the API key pepper; an API key;
// a session token; tickets) appears in no line the real binary logs over a
// whole flow (list, stream, build, sign, submit, confirm, refusals, the
// tracker, readiness, a trace collector that refuses every export, a Redis
// that is down, shutdown) and on no page of the console a project owner
// browses (every page it links to, the explorer links of the confirmed
// transactions among them; RECLAIM_CLUSTER is localnet, where links used to
// carry SOLANA_RPC_URL), nor in /metrics or /readyz. An API key made in the
// console shows once, on the page that made it. The providers did receive
// their keys: the URLs were used, not dropped.
func TestSecretsStayOutOfLogsAndPages(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	secrets := map[string]string{}
	secret := func(name string) string {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		secrets[name] = name + "-" + hex.EncodeToString(b)
		return secrets[name]
	}
	// withSecrets puts a secret in base's userinfo, path and query, where
	// providers put their keys.
	withSecrets := func(base, name string) string {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword("reclaim", secret(name+"-password"))
		u.Path = "/" + secret(name+"-path")
		u.RawQuery = "api-key=" + secret(name+"-query")
		return u.String()
	}
	keyReached := map[string]*atomic.Bool{}
	provider := func(name string, answer func(r *http.Request) string) string {
		keyReached[name] = new(atomic.Bool)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("api-key") == secrets[name+"-query"] {
				keyReached[name].Store(true)
			}
			_, _ = io.WriteString(w, answer(r))
		}))
		t.Cleanup(srv.Close)
		return withSecrets(srv.URL, name)
	}
	das := newDASStandIn(t, v)
	photonURL := provider("photon", func(*http.Request) string {
		return `{"jsonrpc":"2.0","id":"reclaim","result":{"context":{"slot":1},"value":{"cursor":null,"items":[]}}}`
	})
	priceURL := provider("price", func(*http.Request) string { return `{"data":{},"timeTaken":0.001}` })
	var exports atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		exports.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		http.Error(w, "refused", http.StatusBadRequest) // not retried: the exporter's error names the URL
	}))
	t.Cleanup(collector.Close)
	env := []string{
		"SOLANA_RPC_URL=" + withSecrets(v.URL, "solana"),
		"DAS_RPC_URL=" + withSecrets(das.srv.URL, "das"),
		"PHOTON_RPC_URL=" + photonURL,
		"RECLAIM_PRICE_URL=" + priceURL,
		"REDIS_URL=redis://:" + secret("redis-password") + "@" + closedPort(t) + "/0",
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + withSecrets(collector.URL, "otlp"),
		"OTEL_BSP_SCHEDULE_DELAY=200",
		"RECLAIM_SIGNING_KEY=" + secret64(t, secrets, "signing-key"),
		"RECLAIM_API_KEY_PEPPER=" + secret64(t, secrets, "pepper"),
		"RECLAIM_CLUSTER=localnet",
		"RECLAIM_LOG_LEVEL=debug",
	}
	if os.Getenv(storagetest.EnvPostgresURL) != "" || os.Getenv("CI") == "true" {
		// The test server trusts loopback, so the password is carried,
		// never checked; it must still never be shown.
		u, err := url.Parse(storagetest.NewPostgresDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(u.User.Username(), secret("database-password"))
		env = append(env, "DATABASE_URL="+u.String())
	} else {
		t.Log(storagetest.EnvPostgresURL + " is empty: the flow runs on SQLite, DATABASE_URL untested here")
	}
	s := startService(t, v, env...)
	secrets["api-key"] = s.apiKey

	owner, accounts := emptyWallet(t, v, 3)
	w := owner.PublicKey()
	token := s.session(w)
	secrets["session-token"] = token
	items := s.listAll(t, w, token)
	if len(items) < 3 {
		t.Fatalf("listed %d items, want the 3 empty accounts at least", len(items))
	}
	streamFirst(t, s, w, token, len(items))
	b := s.build(t, w, token, map[string]any{"items": closeAll(accounts), "donationPercentage": 0.1})
	var signed []signedTx
	for i, tx := range b.Transactions {
		secrets[fmt.Sprintf("ticket-%d", i)] = tx.SubmissionTicket
		signed = append(signed, signedTx{signTx(t, tx.TransactionBase64, owner), tx.SubmissionTicket})
	}
	forged := signed[0]
	forged.SubmissionTicket = forged.SubmissionTicket[:len(forged.SubmissionTicket)-4] + "AAAA"
	if r := s.submit(t, w, token, forged)[0]; r.Error == nil || r.Error.Code != "INVALID_TICKET" {
		t.Fatalf("forged ticket: %+v", r)
	}
	var sigs []string
	for _, r := range s.submit(t, w, token, signed...) {
		if r.Status != "submitted" || r.Signature == nil {
			t.Fatalf("submit: %+v %+v", r, r.Error)
		}
		sigs = append(sigs, *r.Signature)
	}
	waitFor(t, "the tracker confirms the transactions", 60*time.Second, func() bool {
		var st map[string]int64
		s.call("GET", "/v1/stats", s.key(), nil, &st)
		return st["totalTransactionCount"] == int64(len(sigs))
	})
	if code := s.call("GET", "/v1/stats", [2]string{"X-Api-Key", s.apiKey + "x"}, nil, nil); code != 401 {
		t.Fatalf("a wrong API key: %d", code)
	}
	_, readyz := getBody(t, s.url+"/readyz")
	_, metrics := getBody(t, s.server.MetricsURL+"/metrics")
	other := map[string]string{"/readyz": readyz, "/metrics": metrics}

	pages, madeKey := browseConsole(t, s)
	if overview := pages["GET /admin/projects/"+s.projectID]; !strings.Contains(overview, "https://explorer.solana.com/tx/"+sigs[0]) {
		t.Fatalf("the overview links no confirmed transaction to the explorer:\n%s", overview)
	}
	s.server.Stop(os.Interrupt) // the tracer exports what it holds, and fails
	logs := s.server.Logs()

	if exports.Load() == 0 || !strings.Contains(logs, `"msg":"tracing: `) {
		t.Errorf("no export reached the collector (%d) or no tracing error was logged", exports.Load())
	}
	for name, reached := range keyReached {
		if !reached.Load() {
			t.Errorf("%s was never called with its key", name)
		}
	}
	for name, value := range secrets {
		if strings.Contains(logs, value) {
			t.Errorf("%s is logged: %s", name, linesWith(logs, value))
		}
		for what, page := range pages {
			if strings.Contains(page, value) {
				t.Errorf("%s is on %s: %s", name, what, linesWith(page, value))
			}
		}
		for what, body := range other {
			if strings.Contains(body, value) {
				t.Errorf("%s is in %s", name, what)
			}
		}
	}
	if strings.Contains(logs, madeKey) {
		t.Error("the API key made in the console is logged")
	}
	shown := 0
	for what, page := range pages {
		if strings.Contains(page, madeKey) {
			shown++
			if !strings.HasPrefix(what, "POST /admin/projects/"+s.projectID+"/keys") {
				t.Errorf("the API key made in the console is on %s", what)
			}
		}
	}
	if shown != 1 {
		t.Errorf("the API key made in the console shows on %d pages, want 1 (the one that made it)", shown)
	}
	names := make([]string, 0, len(pages))
	for what := range pages {
		names = append(names, what)
	}
	sort.Strings(names)
	t.Logf("%d secrets; %d log lines; %d console pages: %s", len(secrets), strings.Count(logs, "\n"), len(pages), strings.Join(names, ", "))
}

// browseConsole signs a project owner in, makes an API key, and follows
// every console link from the projects page: every page it was served, and
// the key.
func browseConsole(t *testing.T, s *service) (map[string]string, string) {
	t.Helper()
	c := s.console(t)
	keysPath := "/admin/projects/" + s.projectID + "/keys"
	made := c.post(t, keysPath, c.get(t, keysPath), url.Values{"name": {"made in the console"}})
	key := regexp.MustCompile(`ak_live_[1-9A-HJ-NP-Za-km-z]{32,}`).FindString(made)
	if key == "" {
		t.Fatalf("no API key on the page that made it:\n%s", made)
	}
	link := regexp.MustCompile(`href="(/admin/[^"#?]*)"`)
	queue := []string{"/admin/projects"}
	seen := map[string]bool{}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		if seen[path] || strings.HasPrefix(path, "/admin/static/") {
			continue
		}
		seen[path] = true
		for _, m := range link.FindAllStringSubmatch(c.get(t, path), -1) {
			queue = append(queue, m[1])
		}
	}
	if len(seen) < 5 {
		t.Fatalf("only %d console pages reached: %v", len(seen), seen)
	}
	return c.pages, key
}

// secret64 is a fresh base64 secret of 32 bytes, recorded under name.
func secret64(t *testing.T, secrets map[string]string, name string) string {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	secrets[name] = base64.StdEncoding.EncodeToString(b)
	return secrets[name]
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// linesWith is the lines of text holding s, for a failure's message.
func linesWith(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
