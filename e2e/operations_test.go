package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

// The operations of the real binary, against a scripted cluster (no
// validator needed): what an operator's probes, Prometheus and gRPC tools
// see, and how it stops.

// heldCluster answers getHealth, and lists empty wallets (no token
// accounts, no program accounts, no sysvars); the listing of a wallet in
// hold waits until its channel is closed.
type heldCluster struct {
	url     string
	mu      sync.Mutex
	hold    map[string]chan struct{}
	seen    map[string]bool
	started chan string // each held wallet once
}

func newHeldCluster(t *testing.T) *heldCluster {
	c := &heldCluster{hold: map[string]chan struct{}{}, seen: map[string]bool{}, started: make(chan string, 8)}
	srv := httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(func() {
		c.mu.Lock()
		for _, ch := range c.hold {
			select {
			case <-ch:
			default:
				close(ch)
			}
		}
		c.mu.Unlock()
		srv.Close()
	})
	c.url = srv.URL
	return c
}

func (c *heldCluster) holdWallet(w string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.hold[w] = ch
	return ch
}

func (c *heldCluster) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var result any
	switch req.Method {
	case "getHealth":
		result = "ok"
	case "getProgramAccounts":
		result = []any{}
	case "getMultipleAccounts": // none of the accounts exists (the listing's sysvars)
		var keys []string
		_ = json.Unmarshal(req.Params[0], &keys)
		result = map[string]any{"context": map[string]any{"slot": 1}, "value": make([]any, len(keys))}
	case "getTokenAccountsByOwner":
		var owner string
		_ = json.Unmarshal(req.Params[0], &owner)
		c.mu.Lock()
		hold, first := c.hold[owner], !c.seen[owner]
		c.seen[owner] = true
		c.mu.Unlock()
		if hold != nil {
			if first {
				c.started <- owner
			}
			<-hold
		}
		result = map[string]any{"context": map[string]any{"slot": 1}, "value": []any{}}
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

// opsService is a reclaim serve on SQLite against a held cluster, with a
// project and an API key.
func opsService(t *testing.T, cluster *heldCluster, extraEnv ...string) (*reclaimd.Server, string) {
	t.Helper()
	env := append(os.Environ(), "RECLAIM_DATA_DIR="+t.TempDir(), "RECLAIM_ADDR=127.0.0.1:0", "SOLANA_RPC_URL="+cluster.url,
		"DATABASE_URL=", "REDIS_URL=", "RECLAIM_RATE_LIMIT_RPS=1000", "RECLAIM_RATE_LIMIT_BURST=1000")
	env = append(env, extraEnv...)
	projectID := reclaimd.Run(t, env, "", "project", "create", "--name", "ops")
	key := reclaimd.Run(t, env, "", "apikey", "create", "--project", projectID)
	var echo io.Writer
	if os.Getenv("E2E_SERVICE_LOG") != "" {
		echo = os.Stderr
	}
	return reclaimd.Serve(t, env, echo), key
}

func session(t *testing.T, url, key, wallet string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/sessions", strings.NewReader(`{"walletAddress":"`+wallet+`"}`))
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ Token string }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || body.Token == "" {
		t.Fatalf("session: %d %v", res.StatusCode, err)
	}
	return body.Token
}

func getBody(t *testing.T, url string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// Probes on the API's listener, metrics on their own, gRPC tools through
// reflection: buf curl calls GetStats over gRPC knowing nothing of our
// protos.
func TestOperationsEndpoints(t *testing.T) {
	t.Parallel()
	srv, key := opsService(t, newHeldCluster(t))
	if code, body := getBody(t, srv.URL+"/healthz"); code != 200 || body != `{"status":"ok"}`+"\n" {
		t.Fatalf("healthz %d %s", code, body)
	}
	if code, body := getBody(t, srv.URL+"/readyz"); code != 200 || !strings.Contains(body, `"cluster":"ok","database":"ok"`) {
		t.Fatalf("readyz %d %s", code, body)
	}
	if code, _ := getBody(t, srv.URL+"/metrics"); code != 404 {
		t.Fatalf("/metrics on the API's listener: %d", code)
	}
	if code, _ := getBody(t, srv.URL+"/v1/stats", "X-Api-Key", key); code != 200 {
		t.Fatalf("stats %d", code)
	}

	out := bufCurl(t, srv.URL+"/reclaim.v1.ProjectService/GetStats", "-H", "X-Api-Key: "+key, "-d", "{}")
	if !strings.Contains(out, `"totalTransactionCount": 0`) && !strings.Contains(out, `"totalTransactionCount":0`) && !strings.Contains(out, "{}") {
		t.Fatalf("buf curl GetStats: %s", out)
	}
	if out := bufCurl(t, srv.URL+"/grpc.health.v1.Health/Check", "-d", "{}"); !strings.Contains(out, "SERVING") {
		t.Fatalf("buf curl Health/Check: %s", out)
	}

	// A request is recorded a moment after its client has the answer.
	waitFor(t, "the requests in /metrics", 10*time.Second, func() bool {
		code, metrics := getBody(t, srv.MetricsURL+"/metrics")
		if code != 200 {
			t.Fatalf("metrics %d", code)
		}
		var missing []string
		for _, want := range []string{
			`reclaim_request_duration_seconds_count{code="ok",procedure="/reclaim.v1.ProjectService/GetStats",protocol="rest"} 1`,
			`reclaim_request_duration_seconds_count{code="ok",procedure="/reclaim.v1.ProjectService/GetStats",protocol="grpc"} 1`,
			`reclaim_request_duration_seconds_count{code="ok",procedure="/readyz",protocol="http"} 1`,
			`reclaim_request_duration_seconds_count{code="ok",procedure="/grpc.health.v1.Health/Check",protocol="grpc"} 1`,
			`reclaim_jsonrpc_call_duration_seconds_count{caller="readyz",method="getHealth",outcome="ok",upstream="cluster"} `,
			`reclaim_tracker_in_flight 0`,
			`go_sql_open_connections{db_name="reclaim"}`,
			`reclaim_build_info{`,
		} {
			if !strings.Contains(metrics, want) {
				missing = append(missing, want)
			}
		}
		if len(missing) > 0 {
			t.Logf("/metrics lacks %q so far", missing)
		}
		return len(missing) == 0
	})
}

// bufCurl runs `buf curl` over gRPC (HTTP/2 without TLS) with reflection.
func bufCurl(t *testing.T, url string, args ...string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", append([]string{"tool", "buf", "curl", "--protocol", "grpc", "--http2-prior-knowledge", url}, args...)...)
	cmd.Dir = filepath.Join(filepath.Dir(file), "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("buf curl %s: %v\n%s", url, err, stderr.String())
	}
	return string(out)
}

// On SIGTERM: readiness fails at once while the server still serves (the
// shutdown delay); a request in flight finishes with its answer; a stream
// still running at the drain timeout is closed with 1001 going away; the
// process exits 0 after delay + timeout.
func TestDrainOnSIGTERM(t *testing.T) {
	t.Parallel()
	cluster := newHeldCluster(t)
	const delay, timeout = 2 * time.Second, 3 * time.Second
	srv, key := opsService(t, cluster, "RECLAIM_SHUTDOWN_DELAY_SECONDS=2", "RECLAIM_SHUTDOWN_TIMEOUT_SECONDS=3")
	requestWallet, streamWallet := solana.NewWallet().PublicKey().String(), solana.NewWallet().PublicKey().String()
	release := cluster.holdWallet(requestWallet)
	cluster.holdWallet(streamWallet) // never released: the stream outlives the drain

	type answer struct {
		code int
		body string
		at   time.Time
	}
	requestDone := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/wallet/"+requestWallet+"/assets", nil)
		req.Header.Set("X-Api-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			requestDone <- answer{body: err.Error(), at: time.Now()}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		requestDone <- answer{res.StatusCode, string(b), time.Now()}
	}()
	waitHeld(t, cluster.started, requestWallet)
	tok := session(t, srv.URL, key, streamWallet)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/v1/wallet/"+streamWallet+"/stream?token="+tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitHeld(t, cluster.started, streamWallet)

	sigterm := time.Now()
	stopped := make(chan *os.ProcessState, 1)
	go func() { stopped <- srv.Stop(syscall.SIGTERM) }()
	srv.WaitLog(t, "draining")
	if code, body := getBody(t, srv.URL+"/readyz"); code != 503 || body != `{"status":"draining"}`+"\n" {
		t.Fatalf("readyz while draining: %d %s", code, body)
	}
	if code, _ := getBody(t, srv.URL+"/healthz"); code != 200 {
		t.Fatalf("healthz while draining: %d", code)
	}
	close(release)
	a := <-requestDone
	if a.code != 200 || !strings.Contains(a.body, `"items":[]`) {
		t.Fatalf("the request in flight: %d %s", a.code, a.body)
	}
	_, _, err = ws.Read(ctx)
	streamClosed := time.Now()
	if websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("stream: %v, want close 1001", err)
	}
	state := <-stopped
	exited := time.Now()
	if state == nil || state.ExitCode() != 0 {
		t.Fatalf("exit %v", state)
	}
	took := exited.Sub(sigterm)
	if took < delay+timeout || took > delay+timeout+10*time.Second {
		t.Fatalf("SIGTERM to exit took %v, want about %v", took, delay+timeout)
	}
	t.Logf("SIGTERM at 0: request answered at %v, stream closed (1001) at %v, exit 0 at %v",
		a.at.Sub(sigterm).Round(time.Millisecond), streamClosed.Sub(sigterm).Round(time.Millisecond), took.Round(time.Millisecond))
	for _, msg := range []string{`"msg":"drain timeout reached`, `"msg":"stopped"`} {
		if !strings.Contains(srv.Logs(), msg) {
			t.Errorf("log lacks %s", msg)
		}
	}
}

// A SIGTERM with nothing in flight exits at once (no delay configured).
func TestStopWhenIdle(t *testing.T) {
	t.Parallel()
	srv, _ := opsService(t, newHeldCluster(t))
	start := time.Now()
	state := srv.Stop(syscall.SIGTERM)
	if state.ExitCode() != 0 || time.Since(start) > 5*time.Second {
		t.Fatalf("exit %v after %v", state, time.Since(start))
	}
	t.Logf("idle SIGTERM to exit: %v", time.Since(start).Round(time.Millisecond))
}

func waitHeld(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("the cluster saw %s first, want %s", got, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the cluster never saw %s", want)
	}
}
