package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
)

// BenchmarkDeploymentLoad measures deploy/compose.yaml through its balancer
// on this machine: GET /v1/stats (a session's authentication, the Redis rate
// limit, the ledger's totals in Postgres) from many sessions at once, with
// one instance and with two; then one API key flooded, as a misbehaving
// integrator would. `make load` runs it; docs/performance.md has the figures.
//
//	go test -run '^$' -bench DeploymentLoad -benchtime 1x -v ./e2e/
func BenchmarkDeploymentLoad(b *testing.B) {
	const workers, duration = 32, 15 * time.Second
	// Limits no worker reaches, so that the run measures the service (the
	// limiter is still asked in Redis on every request); the flood below
	// runs with the defaults.
	tp := startTopology(b, "RECLAIM_RATE_LIMIT_RPS=1000000", "RECLAIM_RATE_LIMIT_BURST=1000000")
	donation := tp.v.NewWallet(b, solana.LAMPORTS_PER_SOL).PublicKey()
	projectID := tp.cli("project", "create", "--name", "load", "--donation-wallet", donation.String())
	key := tp.cli("apikey", "create", "--project", projectID)
	// One session per worker, as many wallets of one integrator would have.
	sessions := make([]string, workers)
	for i := range sessions {
		sessions[i] = tp.sessionFor(b, key, solana.NewWallet().PublicKey())
	}
	for _, n := range []int{1, 2} {
		tp.scale(n)
		r := tp.load(workers, duration, func(i int) [2]string { return bearerOf(sessions[i]) })
		b.Logf("%d instance(s), %d workers for %s: %s", n, workers, duration, r)
		b.ReportMetric(r.rps(), fmt.Sprintf("req/s_%d_instances", n))
		b.ReportMetric(float64(r.quantile(0.99).Microseconds())/1000, fmt.Sprintf("p99_ms_%d_instances", n))
	}
	// The key's defaults; the client address's bucket (every worker shares
	// this host's address) out of the way, so the flood meets the key's.
	tp.env = append(tp.env, "RECLAIM_RATE_LIMIT_RPS=20", "RECLAIM_RATE_LIMIT_BURST=40",
		"RECLAIM_RATE_LIMIT_IP_RPS=1000000", "RECLAIM_RATE_LIMIT_IP_BURST=1000000")
	tp.must("up", "-d", "--no-build", "--scale", "reclaim=2") // recreates the instances with the defaults
	tp.waitInstances(2)
	flood := tp.load(8, 10*time.Second, func(int) [2]string { return [2]string{"X-Api-Key", key} })
	b.Logf("one API key flooded by 8 workers for 10s through 2 instances: %s", flood)
	b.ReportMetric(float64(flood.codes[http.StatusTooManyRequests]), "429s_flooded_key")
}

// sessionFor mints a session for wallet with key, through the balancer.
func (tp *topology) sessionFor(tb testing.TB, key string, wallet solana.PublicKey) string {
	tb.Helper()
	a, err := tp.do(context.Background(), "POST", "/v1/sessions", [2]string{"X-Api-Key", key}, map[string]any{"walletAddress": wallet.String()})
	var out struct{ Token string }
	if err == nil && a.status == 200 {
		err = json.Unmarshal(a.body, &out)
	}
	if err != nil || out.Token == "" {
		tb.Fatalf("session: %d %s %v", a.status, a.body, err)
	}
	return out.Token
}

// loadResult is what a load run measured.
type loadResult struct {
	elapsed   time.Duration
	latencies []time.Duration // of every answered request, sorted
	codes     map[int]int
	errors    int
}

func (r loadResult) rps() float64 { return float64(len(r.latencies)) / r.elapsed.Seconds() }

func (r loadResult) quantile(q float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(q*float64(len(r.latencies))))]
}

func (r loadResult) String() string {
	return fmt.Sprintf("%d requests, %.0f req/s, p50 %s, p99 %s, statuses %v, %d transport errors",
		len(r.latencies), r.rps(), r.quantile(0.5).Round(10*time.Microsecond), r.quantile(0.99).Round(10*time.Microsecond), r.codes, r.errors)
}

// load has workers send GET /v1/stats through the balancer back to back
// for duration, worker i with the credential header(i), over keep-alive
// connections.
func (tp *topology) load(workers int, duration time.Duration, header func(i int) [2]string) loadResult {
	return loadGET(tp.lb+"/v1/stats", workers, duration, header)
}

// loadGET has workers GET url back to back for duration, worker i with the
// header header(i) (none when its name is ""), each over a keep-alive
// connection of its own: a closed loop, as wrk's, and like wrk asking for
// no compression.
func loadGET(url string, workers int, duration time.Duration, header func(i int) [2]string) loadResult {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers, DisableCompression: true}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var mu sync.Mutex
	r := loadResult{codes: map[int]int{}}
	var wg sync.WaitGroup
	start := time.Now()
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := header(i)
			var lat []time.Duration
			codes, errs := map[int]int{}, 0
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
				if err != nil {
					panic(err)
				}
				if h[0] != "" {
					req.Header.Set(h[0], h[1])
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs++
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat = append(lat, time.Since(t0))
				codes[resp.StatusCode]++
			}
			mu.Lock()
			defer mu.Unlock()
			r.latencies = append(r.latencies, lat...)
			for c, n := range codes {
				r.codes[c] += n
			}
			r.errors += errs
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	slices.Sort(r.latencies)
	return r
}
