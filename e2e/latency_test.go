package e2e

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

// The RPC latency benchmark: the service reads the validator through a
// harness.DelayProxy, which adds a fixed delay to every JSON-RPC request as a
// remote provider would, and records each request, so each operation is
// measured in time and in sequential round trips (the critical path of its
// requests), locally (no delay) and at the delay.
//
//	E2E_LATENCY=1 go test ./e2e -run TestRPCLatency -v -count=1
//
// prints the table of docs/performance.md for a wallet of 1,000 empty token
// accounts (half Token, half Token-2022) and builds of 500 of them.
// E2E_LATENCY_SIZES (default 1000) lists wallet sizes, E2E_LATENCY_MS the
// delay (default 100), E2E_LATENCY_RUNS the runs per operation and latency
// (default 3), E2E_LATENCY_CPU_RUNS the runs whose processor time gives
// requests per second per core (default 10; 0 leaves it out);
// E2E_LATENCY_TRACE=1 logs every request of every run, and
// RECLAIM_RPC_CONCURRENCY reaches the service. E2E_LATENCY_BASELINE=dir
// builds the reclaim of the checkout at dir (a worktree of the base commit,
// say) and measures it in the same run, its requests interleaved with this
// checkout's, on the same wallet: the before and after tables. Without E2E_LATENCY the test
// runs a short variant (120 accounts, 100 ms, one run) that keeps the
// benchmark working. Both fail when an operation takes more than two
// sequential round trips (up to 1,000 accounts, at the default concurrency),
// and when the stream's first chunk takes more than one, at any size. Each
// size logs the service's resident and peak memory after its runs.

// latencyOp is one operation of the benchmark, run on a service of a
// variant: the one with a service fee when fee is set.
type latencyOp struct {
	name string
	fee  bool
	// run performs the operation once; it returns when the measured part
	// ended (the first chunk, for the stream).
	run func(t *testing.T, s *service, token string) time.Time
	// roundTrips is the most sequential round trips it may take (0: 2).
	roundTrips int
}

// variant is one reclaim binary under test: this checkout's and, with
// E2E_LATENCY_BASELINE, another checkout's, both against the same
// validator, proxy and wallet, their runs interleaved so that both see the
// same load.
type variant struct {
	name           string
	plain, withFee *service
}

func (v variant) of(op latencyOp) *service {
	if op.fee {
		return v.withFee
	}
	return v.plain
}

// opResult is an operation measured at one delay.
type opResult struct {
	times      []time.Duration
	roundTrips []int
	busy       []time.Duration // the validator's, harness.Busy
	calls      map[string]int
}

func TestRPCLatency(t *testing.T) {
	t.Parallel()
	full := os.Getenv("E2E_LATENCY") != ""
	sizes, delay, runs, cpuRuns := []int{120}, 100*time.Millisecond, 1, 0
	if full {
		sizes = envInts(t, "E2E_LATENCY_SIZES", []int{1000})
		delay = time.Duration(envInts(t, "E2E_LATENCY_MS", []int{100})[0]) * time.Millisecond
		runs = envInts(t, "E2E_LATENCY_RUNS", []int{3})[0]
		cpuRuns = envInts(t, "E2E_LATENCY_CPU_RUNS", []int{10})[0]
	}
	trace := os.Getenv("E2E_LATENCY_TRACE") != ""
	v := harness.Shared(t)
	proxy := v.NewDelayProxy(t, 0)
	via := "SOLANA_RPC_URL=" + proxy.URL
	this := variant{name: "this checkout", plain: startService(t, v, via, "RECLAIM_SERVICE_FEE_BPS=0", "RECLAIM_TREASURY_WALLET=")}
	this.withFee = startService(t, v, via)
	variants := []variant{this}
	if dir := os.Getenv("E2E_LATENCY_BASELINE"); dir != "" {
		bin := reclaimd.BuildAt(t, dir)
		variants = append(variants, variant{name: "baseline " + dir, plain: this.plain.twin(bin), withFee: this.withFee.twin(bin)})
	}
	t.Logf("load average at start: %s", loadAverage())
	for _, n := range sizes {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			owner, accounts := latencyWallet(t, v, n)
			sel := closeAll(pickHalf(accounts, 500))
			tokens := map[bool]string{false: this.plain.session(owner), true: this.withFee.session(owner)}
			ops := []latencyOp{
				{name: fmt.Sprintf("GET /v1/wallet/{a}/assets, %d items", n), run: func(t *testing.T, s *service, token string) time.Time {
					return listAll(t, s, owner, token, n)
				}},
				// The first chunk carries the empty accounts as the token
				// accounts alone tell them (early items): one round trip.
				{name: "stream, first chunk", roundTrips: 1, run: func(t *testing.T, s *service, token string) time.Time {
					return streamFirst(t, s, owner, token, n)
				}},
				// Builds of closes: the selected accounts (and the
				// recipients) in one round trip; the blockhash and fees
				// come from the build poller, the compute limits from the
				// table (issue 25).
				{name: fmt.Sprintf("build %d items, no transfers", len(sel)), roundTrips: 1, run: func(t *testing.T, s *service, token string) time.Time {
					return buildAll(t, s, owner, token, map[string]any{"items": sel, "priorityFeeLevel": "none"}, len(sel))
				}},
				{name: fmt.Sprintf("build %d items, donation + fee + medium priority", len(sel)), fee: true, roundTrips: 1, run: func(t *testing.T, s *service, token string) time.Time {
					return buildAll(t, s, owner, token, map[string]any{"items": sel, "donationPercentage": 0.1, "priorityFeeLevel": "medium"}, len(sel))
				}},
				// The summary and select-all list the wallet (two round
				// trips, the recipients beside them); the fees of what
				// they found and the blockhash come from the build
				// poller, the compute limits from the table.
				{name: "summary, donation + fee + medium priority", fee: true, run: func(t *testing.T, s *service, token string) time.Time {
					return summarize(t, s, owner, token, min(n, 500))
				}},
				{name: fmt.Sprintf("select-all build (%d items), donation + fee + medium priority", min(n, 500)), fee: true, run: func(t *testing.T, s *service, token string) time.Time {
					return buildAll(t, s, owner, token, map[string]any{"selectAll": true, "donationPercentage": 0.1, "priorityFeeLevel": "medium"}, min(n, 500))
				}},
			}
			// results[variant][delay][op]
			results := make([]map[time.Duration][]opResult, len(variants))
			for i := range results {
				results[i] = map[time.Duration][]opResult{}
			}
			for _, d := range []time.Duration{0, delay} {
				proxy.SetDelay(d)
				for _, op := range ops {
					rs := make([]opResult, len(variants))
					for _, vr := range variants {
						op.run(t, vr.of(op), tokens[op.fee]) // warm: connections, caches
					}
					for run := range runs {
						for j := range variants {
							k := (j + run) % len(variants) // alternate which goes first
							start := time.Now()
							end := op.run(t, variants[k].of(op), tokens[op.fee])
							var calls []harness.Call
							for _, c := range proxy.Since(start) {
								// The build poller's reads run in the background, not for the request.
								if !c.End.After(end) && c.Caller != "poller" {
									calls = append(calls, c)
								}
							}
							rs[k].times = append(rs[k].times, end.Sub(start))
							rs[k].roundTrips = append(rs[k].roundTrips, harness.RoundTrips(calls))
							rs[k].busy = append(rs[k].busy, harness.Busy(calls))
							rs[k].calls = harness.Methods(calls)
							if trace {
								t.Logf("%s, %s, at %s: %s in all%s", op.name, variants[k].name, d, end.Sub(start).Round(time.Millisecond), traceCalls(start, calls))
							}
						}
					}
					for k := range variants {
						results[k][d] = append(results[k][d], rs[k])
					}
				}
			}
			proxy.SetDelay(0)
			for k, vr := range variants {
				t.Logf("RPC latency of %s, wallet of %d empty token accounts, %d runs each, load average %s:\n%s", vr.name, n, runs, loadAverage(),
					latencyTable(ops, results[k][0], results[k][delay], delay))
				if cpuRuns > 0 {
					t.Logf("processor time of %s (local RPC, %d requests each):\n%s", vr.name, cpuRuns, processorTime(t, vr, ops, tokens, cpuRuns))
				}
				// The service's memory: its requests ran one at a time,
				// so the peak is that of its largest request (plus what
				// the process holds idle).
				rss, peak := vr.plain.server.Memory()
				t.Logf("memory of %s after the %d-item runs: resident %d MiB, peak %d MiB", vr.name, n, rss>>20, peak>>20)
			}
			// Each operation is two round trips: the token accounts, then
			// their mints and metadata (the stream's first page); a build
			// of closes one, the selected accounts with the recipients.
			// Beyond 1,000 accounts the reads of a
			// round outnumber the default limit of calls in flight.
			// The stream's first chunk is one round trip at every size.
			for i, op := range ops {
				if (n > 1000 || os.Getenv("RECLAIM_RPC_CONCURRENCY") != "") && op.roundTrips != 1 {
					continue
				}
				want := cmp.Or(op.roundTrips, 2)
				if rt := slices.Max(results[0][delay][i].roundTrips); rt > want {
					t.Errorf("%s: %d sequential round trips, want %d", op.name, rt, want)
				}
			}
		})
	}
}

// processorTime runs each operation runs times on vr's services and
// reports the processor time the service used per request.
func processorTime(t *testing.T, vr variant, ops []latencyOp, tokens map[bool]string, runs int) string {
	t.Helper()
	var out []string
	for _, op := range ops {
		s := vr.of(op)
		before := s.cpu()
		for range runs {
			op.run(t, s, tokens[op.fee])
		}
		used := s.cpu() - before
		out = append(out, fmt.Sprintf("%s: %s of processor per request, %.0f requests per second per core",
			op.name, (used/time.Duration(runs)).Round(100*time.Microsecond), float64(runs)/used.Seconds()))
	}
	return strings.Join(out, "\n")
}

// twin starts another server on s's data (database, keys: its sessions are
// s's) from binary, as another() does from this checkout's.
func (s *service) twin(binary string) *service {
	c := *s
	c.server = reclaimd.ServeBinary(s.t, binary, s.env, nil)
	c.url = c.server.URL
	return &c
}

// latencyWallet is a funded wallet of n empty token accounts, half under
// SPL Token and half under Token-2022, in the order they were made.
func latencyWallet(t *testing.T, v *harness.Validator, n int) (solana.PublicKey, []solana.PublicKey) {
	t.Helper()
	start := time.Now()
	owner, atas, _ := v.EmptyAccountsWallet(t, n)
	t.Logf("wallet of %d empty token accounts made in %s", n, time.Since(start).Round(time.Millisecond))
	return owner.PublicKey(), atas
}

// pickHalf takes half of accounts, at most most, alternating between the
// first (SPL Token) and the second (Token-2022) half.
func pickHalf(accounts []solana.PublicKey, most int) []solana.PublicKey {
	k := min(len(accounts)/2, most)
	var out []solana.PublicKey
	for i := 0; len(out) < k; i++ {
		out = append(out, accounts[i])
		if len(out) < k {
			out = append(out, accounts[len(accounts)/2+i])
		}
	}
	return out
}

// timedAnswer sends a request with the session token and returns the body, read
// whole, and when it was: the operation's end, before the test decodes it.
func timedAnswer(t *testing.T, s *service, method, path, token string, body any) ([]byte, time.Time) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	end := time.Now()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %.300s %v", method, path, resp.StatusCode, raw, err)
	}
	return raw, end
}

func listAll(t *testing.T, s *service, owner solana.PublicKey, token string, n int) time.Time {
	t.Helper()
	raw, end := timedAnswer(t, s, "GET", "/v1/wallet/"+owner.String()+"/assets", token, nil)
	var l listing
	if err := json.Unmarshal(raw, &l); err != nil || len(l.Items) != n {
		t.Fatalf("assets: %d items, %v", len(l.Items), err)
	}
	return end
}

// streamFirst streams the wallet (chunks of 50) to its end and returns when
// the first chunk arrived.
func streamFirst(t *testing.T, s *service, owner solana.PublicKey, token string, n int) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url := "ws" + strings.TrimPrefix(s.url, "http") + "/v1/wallet/" + owner.String() + "/stream?token=" + token
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.CloseNow()
	c.SetReadLimit(16 << 20)
	var first time.Time
	items, early := 0, 0
	for {
		_, msg, err := c.Read(ctx)
		if first.IsZero() {
			first = time.Now()
		}
		if err != nil {
			// The empty accounts come early too (a service before
			// early items sends none).
			if websocket.CloseStatus(err) != websocket.StatusNormalClosure || items != n || early > n {
				t.Fatalf("stream ended with %v after %d items, %d early", err, items, early)
			}
			return first
		}
		var ev struct{ Data streamChunk }
		if err := json.Unmarshal(msg, &ev); err != nil {
			t.Fatal(err)
		}
		items += len(ev.Data.Items)
		early += len(ev.Data.EarlyItems)
	}
}

func buildAll(t *testing.T, s *service, owner solana.PublicKey, token string, body map[string]any, n int) time.Time {
	t.Helper()
	raw, end := timedAnswer(t, s, "POST", "/v1/wallet/"+owner.String()+"/transactions", token, body)
	var b built
	if err := json.Unmarshal(raw, &b); err != nil || int(b.Totals.ItemCount) != n {
		t.Fatalf("built %d items of %d, %v", b.Totals.ItemCount, n, err)
	}
	return end
}

// summarize asks the wallet's summary at a donation and the medium
// priority, which must state a select-all build of n items.
func summarize(t *testing.T, s *service, owner solana.PublicKey, token string, n int) time.Time {
	t.Helper()
	raw, end := timedAnswer(t, s, "GET", "/v1/wallet/"+owner.String()+"/summary?donationPercentage=0.1&priorityFeeLevel=medium", token, nil)
	var sum summary
	if err := json.Unmarshal(raw, &sum); err != nil || int(sum.Totals.ItemCount) != n {
		t.Fatalf("summary of %d items, want %d: %v", sum.Totals.ItemCount, n, err)
	}
	return end
}

// latencyTable formats the results as docs/performance.md shows them: the
// round trips, the validator's busy time and the calls are those of the
// runs behind the delay (at no delay, calls issued together are often
// apart by more than the previous one took, and chains of them count as
// round trips).
func latencyTable(ops []latencyOp, local, delayed []opResult, delay time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| operation | local RPC | %d ms RPC | round trips | validator busy | RPC calls |\n|---|---|---|---|---|---|\n", delay.Milliseconds())
	for i, op := range ops {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", op.name, spread(local[i].times), spread(delayed[i].times),
			intSpread(delayed[i].roundTrips), spread(delayed[i].busy), methodCounts(delayed[i].calls))
	}
	return b.String()
}

// spread is "median (min-max)" of times in milliseconds.
func spread(times []time.Duration) string {
	s := slices.Clone(times)
	slices.Sort(s)
	ms := func(d time.Duration) int64 { return d.Round(time.Millisecond).Milliseconds() }
	if len(s) == 1 {
		return fmt.Sprintf("%d ms", ms(s[0]))
	}
	return fmt.Sprintf("%d ms (%d-%d)", ms(s[len(s)/2]), ms(s[0]), ms(s[len(s)-1]))
}

func intSpread(v []int) string {
	lo, hi := slices.Min(v), slices.Max(v)
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

func methodCounts(calls map[string]int) string {
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(calls)) {
		parts = append(parts, fmt.Sprintf("%s %d", m, calls[m]))
	}
	return strings.Join(parts, ", ")
}

// traceCalls lists calls as "method start-end (upstream)" in milliseconds
// since start.
func traceCalls(start time.Time, calls []harness.Call) string {
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "\n  %-28s %4d-%4d ms (validator %d ms)", c.Method, c.Start.Sub(start).Milliseconds(),
			c.End.Sub(start).Milliseconds(), c.Upstream.Milliseconds())
	}
	return b.String()
}

func (s *service) cpu() time.Duration { return s.server.CPU() }

// envInts reads a comma-separated list of whole numbers, def when unset.
func envInts(t *testing.T, name string, def []int) []int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			t.Fatalf("%s=%q: want whole numbers", name, v)
		}
		out = append(out, n)
	}
	return out
}

func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(raw))
	return strings.Join(f[:min(3, len(f))], " ")
}
