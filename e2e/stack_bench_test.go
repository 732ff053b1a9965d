package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

// BenchmarkStackSideBySide measures what Reclaim adds to an authenticated
// read, against the ceiling of its own stack, in one run on one machine:
// GET /v1/stats with a session token from 32 keep-alive connections in a
// closed loop, sent to
//
//   - the bare stack (e2e/barestack): the same generated ProjectService
//     behind Connect and vanguard, with a GetStats that does no work;
//   - `reclaim serve` of this checkout, as it runs by default (SQLite, the
//     memory rate limiter asked on every request with limits out of reach,
//     metrics, the access log at info);
//   - with E2E_STACK_BASELINE=dir, the reclaim of another checkout (main's,
//     say: `git archive main | tar -x -C dir`), the same way.
//
// The servers take turns, E2E_STACK_ROUNDS rounds (3) of E2E_STACK_SECONDS
// (5) each, so that every one sees the same machine; each round's share of
// the bare stack is its requests a second over the bare stack's of that
// round. Reported: the median of the rounds' requests a second and shares,
// p50 and p99 over every request of a server, and requests per second of
// the server's own processor time. The load generator is this process, on
// the same cores, as wrk would be.
//
//	go test ./e2e -run '^$' -bench StackSideBySide -benchtime 1x -v
//
// E2E_STACK_PROFILE=dir also writes a CPU profile of this checkout's
// reclaim over its rounds (RECLAIM_PPROF, /debug/pprof on the metrics
// listener) to dir/reclaim.cpu.pprof, and what it allocated to
// dir/reclaim.allocs.pprof: `go tool pprof -top dir/reclaim.cpu.pprof`.
// Not part of `make test`: it is a measurement.
func BenchmarkStackSideBySide(b *testing.B) {
	const workers = 32
	rounds := envInt(b, "E2E_STACK_ROUNDS", 3)
	duration := time.Duration(envInt(b, "E2E_STACK_SECONDS", 5)) * time.Second
	servers := []*stackServer{startBare(b)}
	if dir := os.Getenv("E2E_STACK_BASELINE"); dir != "" {
		servers = append(servers, startStackReclaim(b, "baseline", reclaimd.BuildAt(b, dir), false))
	}
	this := startStackReclaim(b, "reclaim", reclaimd.Binary(b), os.Getenv("E2E_STACK_PROFILE") != "")
	servers = append(servers, this)
	for _, s := range servers { // warm: connections, caches, the runtime
		s.load(workers, time.Second)
		s.results, s.cpu = nil, 0
	}
	var profiles []*profiling
	if dir := os.Getenv("E2E_STACK_PROFILE"); dir != "" {
		// Over every round: the server works only in its own.
		d := time.Duration(rounds*len(servers))*duration + time.Second
		profiles = append(profiles, startProfile(b, this.srv, "profile", d, filepath.Join(dir, "reclaim.cpu.pprof")),
			startProfile(b, this.srv, "allocs", d, filepath.Join(dir, "reclaim.allocs.pprof")))
	}
	for range rounds {
		for _, s := range servers {
			s.load(workers, duration)
		}
	}
	for _, p := range profiles {
		p.wait(b)
	}
	bare := servers[0]
	for _, s := range servers {
		var shares []float64
		for i, r := range s.results {
			shares = append(shares, r.rps()/bare.results[i].rps())
		}
		all := pooled(s.results)
		b.Logf("%-8s %s; median %.0f req/s (%s), %.0f%% of the bare stack (%s), %.0f req per cpu-s of the server",
			s.name, all, median(rpsOf(s.results)), joinf(rpsOf(s.results), "%.0f"), 100*median(shares), joinf(shares, "%.2f"),
			float64(len(all.latencies))/s.cpu.Seconds())
		b.ReportMetric(median(rpsOf(s.results)), "req/s_"+s.name)
		b.ReportMetric(float64(all.quantile(0.99).Microseconds())/1000, "p99_ms_"+s.name)
		if s != bare {
			b.ReportMetric(100*median(shares), "pct_of_bare_"+s.name)
		}
	}
}

// stackServer is one server of the side-by-side run and what it measured.
type stackServer struct {
	name    string
	srv     *reclaimd.Server
	url     string
	header  [2]string
	results []loadResult
	cpu     time.Duration // the server's processor time over its rounds
}

func (s *stackServer) load(workers int, d time.Duration) {
	cpu := s.srv.CPU()
	r := loadGET(s.url, workers, d, func(int) [2]string { return s.header })
	s.cpu += s.srv.CPU() - cpu
	if r.codes[http.StatusOK] != len(r.latencies) || r.errors > 0 {
		panic(fmt.Sprintf("%s: not every request answered 200: %s", s.name, r))
	}
	s.results = append(s.results, r)
}

func startBare(b *testing.B) *stackServer {
	bin := reclaimd.BuildPackage(b, "./e2e/barestack")
	srv := reclaimd.ServeBinary(b, bin, []string{"RECLAIM_ADDR=127.0.0.1:0"}, nil)
	return &stackServer{name: "bare", srv: srv, url: srv.URL + "/v1/stats"}
}

// startStackReclaim starts binary's reclaim serve with a project, an API
// key and one session for a new wallet; limits out of reach (still asked).
func startStackReclaim(b *testing.B, name, binary string, pprof bool) *stackServer {
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"RECLAIM_DATA_DIR=" + filepath.Join(b.TempDir(), "data"), "SOLANA_RPC_URL=http://127.0.0.1:1",
		"RECLAIM_ADDR=127.0.0.1:0",
		"RECLAIM_RATE_LIMIT_RPS=1000000", "RECLAIM_RATE_LIMIT_BURST=1000000",
		"RECLAIM_RATE_LIMIT_IP_RPS=1000000", "RECLAIM_RATE_LIMIT_IP_BURST=1000000",
	}
	if pprof {
		env = append(env, "RECLAIM_PPROF=1")
	}
	srv := reclaimd.ServeBinary(b, binary, env, nil)
	projectID := reclaimd.RunBinary(b, binary, env, "", "project", "create", "--name", "stack")
	key := reclaimd.RunBinary(b, binary, env, "", "apikey", "create", "--project", projectID)
	token := mintSession(b, srv.URL, key, solana.NewWallet().PublicKey())
	return &stackServer{name: name, srv: srv, url: srv.URL + "/v1/stats", header: bearerOf(token)}
}

// mintSession asks the server at base for a session of wallet with key.
func mintSession(tb testing.TB, base, key string, wallet solana.PublicKey) string {
	tb.Helper()
	body := `{"walletAddress":"` + wallet.String() + `"}`
	req, err := http.NewRequest("POST", base+"/v1/sessions", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || out.Token == "" {
		tb.Fatalf("session: %d %v", resp.StatusCode, err)
	}
	return out.Token
}

// profiling is a CPU profile being taken of a server.
type profiling struct {
	done chan error
}

// startProfile asks srv's /debug/pprof/<kind> ("profile": processor time,
// "allocs": what was allocated) for d, written to path when it ends.
func startProfile(tb testing.TB, srv *reclaimd.Server, kind string, d time.Duration, path string) *profiling {
	tb.Helper()
	if srv.MetricsURL == "" {
		tb.Fatal("no metrics listener to profile through")
	}
	p := &profiling{done: make(chan error, 1)}
	go func() {
		resp, err := http.Get(fmt.Sprintf("%s/debug/pprof/%s?seconds=%d", srv.MetricsURL, kind, int(d.Seconds())))
		if err != nil {
			p.done <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			p.done <- fmt.Errorf("profile: %s", resp.Status)
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			p.done <- err
			return
		}
		f, err := os.Create(path)
		if err != nil {
			p.done <- err
			return
		}
		_, err = io.Copy(f, resp.Body)
		p.done <- errors.Join(err, f.Close())
	}()
	return p
}

func (p *profiling) wait(tb testing.TB) {
	tb.Helper()
	if err := <-p.done; err != nil {
		tb.Fatal(err)
	}
}

func rpsOf(rs []loadResult) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.rps()
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func joinf(v []float64, format string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(parts, ", ")
}

// pooled is every request of rs as one result.
func pooled(rs []loadResult) loadResult {
	out := loadResult{codes: map[int]int{}}
	for _, r := range rs {
		out.elapsed += r.elapsed
		out.latencies = append(out.latencies, r.latencies...)
		for c, n := range r.codes {
			out.codes[c] += n
		}
		out.errors += r.errors
	}
	slices.Sort(out.latencies)
	return out
}
