package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

// BenchmarkSignInFlood is issue 19's sign-in flood against the real
// `reclaim serve` (SQLite, this machine's cores): E2E_FLOOD_N sign-ins at
// once (default 500), each with an email and an address of its own (named
// in X-Forwarded-For by the benchmark, which the server trusts as its
// balancer: a botnet behind HAProxy, so that no per-address limit holds
// them), while E2E_FLOOD_WORKERS workers (default 4) call GET /v1/stats
// with an API key (rate limits out of reach). It reports the server's
// resident memory idle and at its peak (VmHWM, /proc), and the API's
// latency quiet and during the flood. Then, for this checkout only, the
// same attackers keep at it for E2E_FLOOD_SECONDS (default 10), each post
// from a new address (a botnet without end, so that every post reaches the
// password budget) with the token of its last answer; the baseline's first
// flood already holds its memory for a minute.
//
//	go test ./e2e -run '^$' -bench SignInFlood -benchtime 1x -v
//
// E2E_FLOOD_BASELINE=dir first measures the reclaim of the checkout at dir
// (main's, say: `git archive main | tar -x -C dir`), then this checkout's.
// Not part of `make test`: it is a measurement, and the baseline may take
// gigabytes.
func BenchmarkSignInFlood(b *testing.B) {
	n, workers := envInt(b, "E2E_FLOOD_N", 500), envInt(b, "E2E_FLOOD_WORKERS", 4)
	variants := []struct{ name, binary string }{{"this checkout", reclaimd.Binary(b)}}
	if dir := os.Getenv("E2E_FLOOD_BASELINE"); dir != "" {
		variants = append([]struct{ name, binary string }{{"baseline " + dir, reclaimd.BuildAt(b, dir)}}, variants...)
	}
	seconds := envInt(b, "E2E_FLOOD_SECONDS", 10)
	for i, v := range variants {
		baseline := len(variants) == 2 && i == 0
		sustain := time.Duration(seconds) * time.Second
		if baseline {
			sustain = 0
		}
		r := signInFlood(b, v.binary, n, workers, sustain)
		b.Logf("%s: %s", v.name, r)
		suffix := ""
		if baseline {
			suffix = "_baseline"
		} else {
			b.ReportMetric(float64(r.sustainedPeak-r.idle)/(1<<20), "MiB_above_idle_sustained")
			b.ReportMetric(float64(r.sustained.quantile(0.99).Microseconds())/1000, "api_p99_ms_sustained")
		}
		b.ReportMetric(float64(r.peak-r.idle)/(1<<20), "MiB_above_idle"+suffix)
		b.ReportMetric(float64(r.during.quantile(0.99).Microseconds())/1000, "api_p99_ms"+suffix)
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a whole number above 0", name, v)
	}
	return n
}

// floodResult is one variant's run.
type floodResult struct {
	n          int
	idle, peak int64
	signIns    map[int]int // status -> count
	floodTook  time.Duration
	quiet      apiLatencies
	during     apiLatencies
	// The sustained flood, when run.
	sustainFor    time.Duration
	sustainedIns  map[int]int
	sustainedPeak int64
	sustained     apiLatencies
}

func (r floodResult) String() string {
	out := fmt.Sprintf("%d sign-ins at once answered in %s %v; resident memory idle %d MiB, peak %d MiB (%d MiB above idle); "+
		"GET /v1/stats quiet %s; during the flood %s",
		r.n, r.floodTook.Round(time.Millisecond), r.signIns, r.idle>>20, r.peak>>20, (r.peak-r.idle)>>20, r.quiet, r.during)
	if r.sustainFor > 0 {
		out += fmt.Sprintf("; then %d attackers for %s, each post from a new address: %v, peak %d MiB (%d MiB above idle), GET /v1/stats %s",
			r.n, r.sustainFor, r.sustainedIns, r.sustainedPeak>>20, (r.sustainedPeak-r.idle)>>20, r.sustained)
	}
	return out
}

// apiLatencies are the answered API calls of a window, sorted, with the
// calls that failed or were not answered 200.
type apiLatencies struct {
	ok     []time.Duration
	failed int
}

func (a apiLatencies) quantile(q float64) time.Duration {
	if len(a.ok) == 0 {
		return 0
	}
	return a.ok[min(len(a.ok)-1, int(q*float64(len(a.ok))))]
}

func (a apiLatencies) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	if len(a.ok) == 0 {
		return fmt.Sprintf("no call answered (%d failed)", a.failed)
	}
	return fmt.Sprintf("%d calls, p50 %s, p99 %s, max %s, %d failed", len(a.ok), ms(a.quantile(0.5)), ms(a.quantile(0.99)), ms(a.ok[len(a.ok)-1]), a.failed)
}

// apiLoad calls GET /v1/stats with key from workers workers until stop is
// closed.
func apiLoad(base, key string, workers int, stop <-chan struct{}) apiLatencies {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: time.Minute}
	var mu sync.Mutex
	var out apiLatencies
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("GET", base+"/v1/stats", nil)
				req.Header.Set("X-Api-Key", key)
				start := time.Now()
				resp, err := client.Do(req)
				took := time.Since(start)
				if err == nil {
					resp.Body.Close()
				}
				mu.Lock()
				if err != nil || resp.StatusCode != http.StatusOK {
					out.failed++
				} else {
					out.ok = append(out.ok, took)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(out.ok)
	return out
}

// signInFlood runs the flood against binary and measures it; with sustain,
// the sustained flood too.
func signInFlood(b *testing.B, binary string, n, workers int, sustain time.Duration) floodResult {
	b.Helper()
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"RECLAIM_DATA_DIR=" + filepath.Join(b.TempDir(), "data"), "SOLANA_RPC_URL=http://127.0.0.1:1",
		"RECLAIM_ADDR=127.0.0.1:0", "RECLAIM_TRUSTED_PROXIES=127.0.0.1",
		"RECLAIM_RATE_LIMIT_RPS=1000000", "RECLAIM_RATE_LIMIT_BURST=1000000",
	}
	srv := reclaimd.ServeBinary(b, binary, env, nil)
	projectID := reclaimd.RunBinary(b, binary, env, "", "project", "create", "--name", "flood")
	key := reclaimd.RunBinary(b, binary, env, "", "apikey", "create", "--project", projectID)

	// Warm: the API, and one sign-in (its page, its argon2id).
	stop := make(chan struct{})
	go func() { <-time.After(time.Second); close(stop) }()
	if warm := apiLoad(srv.URL, key, 1, stop); len(warm.ok) == 0 {
		b.Fatalf("GET /v1/stats with the key: none answered 200 (%d failed)", warm.failed)
	}
	newVisitor(b, srv.URL, "198.19.0.1").signIn("warm@example.com", attackPassword)
	r := floodResult{n: n, signIns: map[int]int{}}
	r.idle, _ = srv.Memory()

	stop = make(chan struct{})
	go func() { <-time.After(3 * time.Second); close(stop) }()
	r.quiet = apiLoad(srv.URL, key, workers, stop)

	// Each attacker opens the page (its token and cookie) first, as a
	// browser would; then all post at once.
	transport := &http.Transport{MaxIdleConnsPerHost: n}
	visitors := make([]*visitor, n)
	tokens := make([]string, n)
	for i := range visitors {
		visitors[i] = newVisitor(b, srv.URL, fmt.Sprintf("198.18.%d.%d", i/250, i%250+1))
		visitors[i].client.Transport = transport
		visitors[i].client.Timeout = 2 * time.Minute
		tokens[i] = visitors[i].do("GET", "/admin/signin", nil).token()
	}
	stop = make(chan struct{})
	during := make(chan apiLatencies, 1)
	go func() { during <- apiLoad(srv.URL, key, workers, stop) }()
	began := time.Now()
	answers := floodSignIns(visitors, tokens)
	r.floodTook = time.Since(began)
	close(stop)
	r.during = <-during
	_, r.peak = srv.Memory()
	for _, a := range answers {
		r.signIns[a.status]++
	}
	if sustain > 0 {
		r.sustainFor = sustain
		stop = make(chan struct{})
		go func() { during <- apiLoad(srv.URL, key, workers, stop) }()
		r.sustainedIns = keepFlooding(visitors, answers, sustain)
		close(stop)
		r.sustained = <-during
		_, r.sustainedPeak = srv.Memory()
	}
	return r
}

// keepFlooding has each visitor post the sign-in form again and again for
// d, from a new address each time, with the token of its last answer (a
// fresh page when it had none); it returns the answers' statuses.
func keepFlooding(visitors []*visitor, last []visit, d time.Duration) map[int]int {
	var mu sync.Mutex
	codes := map[int]int{}
	var next atomic.Int64
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for i, v := range visitors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := last[i].token()
			for time.Now().Before(end) {
				if tok == "" {
					page, err := v.send("GET", "/admin/signin", nil)
					if err != nil {
						continue
					}
					tok = page.token()
				}
				k := next.Add(1)
				v.from = fmt.Sprintf("10.%d.%d.%d", k>>16&255, k>>8&255, k&255)
				a, err := v.send("POST", "/admin/signin", url.Values{
					"csrf_token": {tok}, "email": {fmt.Sprintf("again%d@example.com", k)}, "password": {attackPassword},
				})
				if err != nil {
					a.status = -1
				}
				tok = a.token()
				mu.Lock()
				codes[a.status]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return codes
}
