package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// topology is deploy/compose.yaml brought up by a test under a project name
// of its own, its images tagged with it (so it never meets a developer's
// `make compose-up`, nor another checkout's test), every port published on
// a loopback port Docker picks. It is taken down, volumes and
// all, when the test ends; its logs are printed if the test failed.
type topology struct {
	t       testing.TB
	project string
	env     []string
	// lb is the balancer's base URL; stats its HAProxy stats page (CSV).
	lb, stats string
	v         *harness.Validator
}

// composeFile is the absolute path of deploy/compose.yaml.
func composeFile() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "deploy", "compose.yaml")
}

// requireCompose skips t, or fails it with CI=true, without Docker or
// docker-compose.
func requireCompose(t testing.TB) {
	t.Helper()
	why := ""
	if _, err := exec.LookPath("docker-compose"); err != nil {
		why = "docker-compose is not installed (apt-get install docker-compose)"
	} else if out, err := exec.CommandContext(context.Background(), "docker", "info").CombinedOutput(); err != nil {
		why = "Docker is not available: " + strings.TrimSpace(string(out))
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: the deployment test must run; .ci/docker.sh sets it up)", why)
	}
	t.Skipf("%s; skipping (bash .ci/docker.sh sets it up)", why)
}

// imageEnv names the base images: the environment's, else the local ones
// .ci/docker.sh builds.
func imageEnv() []string {
	var out []string
	for _, kv := range [][2]string{
		{"RECLAIM_GO_IMAGE", "reclaim/golang:local"},
		{"RECLAIM_DEBIAN_IMAGE", "reclaim/debian-bookworm:local"},
		{"E2E_BASE_IMAGE", harness.DefaultBaseImage},
	} {
		v := os.Getenv(kv[0])
		if v == "" {
			v = kv[1]
		}
		out = append(out, kv[0]+"="+v)
	}
	return out
}

func randomBase64(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// startTopology builds the images (Docker's layer cache makes an unchanged
// one instant) and brings the topology up with extraEnv (compose variables,
// such as RECLAIM_RATE_LIMIT_RPS), then waits until the balancer has both
// instances in rotation.
func startTopology(t testing.TB, extraEnv ...string) *topology {
	t.Helper()
	requireCompose(t)
	harness.SetTestcontainersEnv()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	validator, err := harness.EnsureImage(ctx, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	tp := &topology{t: t, project: "reclaime2e" + hex.EncodeToString(suffix)}
	tp.env = append(os.Environ(), imageEnv()...)
	tp.env = append(tp.env,
		"RECLAIM_VALIDATOR_IMAGE="+validator, "RECLAIM_IMAGE_TAG="+tp.project,
		"RECLAIM_PORT=", "RECLAIM_LB_STATS_PORT=", "RECLAIM_VALIDATOR_PORT=", "RECLAIM_VALIDATOR_WS_PORT=",
		"POSTGRES_PASSWORD="+hex.EncodeToString(suffix)+"pw", "RECLAIM_SIGNING_KEY="+randomBase64(32),
		"RECLAIM_API_KEY_PEPPER="+randomBase64(32))
	tp.env = append(tp.env, extraEnv...)

	start := time.Now()
	if _, err := tp.compose(ctx, "build", "reclaim", "lb", "postgres", "redis"); err != nil {
		t.Fatal(err)
	}
	t.Logf("images built in %s", time.Since(start).Round(time.Millisecond))
	t.Cleanup(tp.down)
	start = time.Now()
	if _, err := tp.compose(ctx, "up", "-d", "--no-build"); err != nil {
		t.Fatal(err)
	}
	tp.lb = "http://" + tp.port("lb", 1, 8080)
	tp.stats = "http://" + tp.port("lb", 1, 8404) + "/stats;csv"
	url := "http://" + tp.port("validator", 1, 8899)
	tp.v = &harness.Validator{RPC: rpc.New(url), URL: url, Image: validator}
	tp.waitInstances(2)
	t.Logf("topology %s up in %s: balancer %s, validator %s", tp.project, time.Since(start).Round(time.Millisecond), tp.lb, url)
	return tp
}

// compose runs docker-compose on the topology's project and returns its
// standard output.
func (tp *topology) compose(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "docker-compose", append([]string{"-f", composeFile(), "-p", tp.project}, args...)...)
	cmd.Env = tp.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("docker-compose %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// must runs docker-compose and fails the test if it fails.
func (tp *topology) must(args ...string) string {
	tp.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := tp.compose(ctx, args...)
	if err != nil {
		tp.t.Fatal(err)
	}
	return out
}

func (tp *topology) down() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if tp.t.Failed() {
		if logs, err := tp.compose(ctx, "logs", "--no-color", "--tail=150"); err == nil {
			tp.t.Logf("topology logs:\n%s", logs)
		}
	}
	if _, err := tp.compose(ctx, "down", "-v", "--remove-orphans", "--timeout", "5"); err != nil {
		tp.t.Errorf("take the topology down: %v", err)
	}
	// The images tagged for this topology (their layers stay cached).
	out, err := exec.CommandContext(ctx, "docker", "rmi", "reclaim/reclaim:"+tp.project, "reclaim/haproxy:"+tp.project).CombinedOutput()
	if err != nil {
		tp.t.Errorf("remove the topology's images: %v\n%s", err, out)
	}
}

// port returns the host address (127.0.0.1:port) of a container port of
// the index-th container of service.
func (tp *topology) port(service string, index, port int) string {
	tp.t.Helper()
	return tp.must("port", "--index="+strconv.Itoa(index), service, strconv.Itoa(port))
}

// container is the name of the index-th container of service.
func (tp *topology) container(service string, index int) string {
	return fmt.Sprintf("%s_%s_%d", tp.project, service, index)
}

// docker runs the docker CLI and fails the test if it fails.
func (tp *topology) docker(args ...string) {
	tp.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput(); err != nil {
		tp.t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// cli runs a reclaim command in the first instance's container, as an
// operator would, and returns its output.
func (tp *topology) cli(args ...string) string {
	tp.t.Helper()
	return tp.must(append([]string{"exec", "-T", "--index=1", "reclaim", "/usr/local/bin/reclaim"}, args...)...)
}

// scale runs n reclaim instances and waits until the balancer has them all
// in rotation (and no other).
func (tp *topology) scale(n int) {
	tp.t.Helper()
	tp.must("up", "-d", "--no-build", "--no-recreate", "--scale", "reclaim="+strconv.Itoa(n))
	tp.waitInstances(n)
}

// waitInstances waits until the balancer's checks have exactly n instances
// up (their /readyz answered 200).
func (tp *topology) waitInstances(n int) {
	tp.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	last := -1
	for time.Now().Before(deadline) {
		if last = tp.instancesUp(); last == n {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	tp.t.Fatalf("the balancer has %d instances up, want %d", last, n)
}

// instancesUp counts the instances HAProxy's checks have up in the
// HTTP/1.1 backend; -1 when its stats do not answer.
func (tp *topology) instancesUp() int {
	servers, err := tp.servers()
	if err != nil {
		return -1
	}
	up := 0
	for _, s := range servers {
		if strings.HasPrefix(s["status"], "UP") {
			up++
		}
	}
	return up
}

// servers reads HAProxy's stats of the instances' slots in the HTTP/1.1
// backend, one map of column to value per slot.
func (tp *topology) servers() ([]map[string]string, error) {
	resp, err := http.Get(tp.stats)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := csv.NewReader(resp.Body)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("stats: %w", err)
	}
	header := rows[0]
	header[0] = strings.TrimPrefix(header[0], "# ")
	var out []map[string]string
	for _, row := range rows[1:] {
		if len(row) < 2 || row[0] != "reclaim" || !strings.HasPrefix(row[1], "instance") {
			continue
		}
		m := map[string]string{}
		for i, v := range row {
			if i < len(header) {
				m[header[i]] = v
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// answer is one response through the balancer.
type answer struct {
	status   int
	instance string // the instance that answered (X-Reclaim-Instance)
	limit    string // its X-RateLimit-Limit
	body     []byte
}

// do sends a JSON request through the balancer without failing the test,
// for callers on other goroutines and for requests expected to fail.
func (tp *topology) do(ctx context.Context, method, path string, header [2]string, body any) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, tp.lb+path, rd)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if header[0] != "" {
		req.Header.Set(header[0], header[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, instance: resp.Header.Get("X-Reclaim-Instance"), limit: resp.Header.Get("X-RateLimit-Limit"), body: raw}, err
}

// metricsURLs returns the /metrics URL of each of the first n instances.
func (tp *topology) metricsURLs(n int) []string {
	tp.t.Helper()
	urls := make([]string, n)
	for i := range urls {
		urls[i] = "http://" + tp.port("reclaim", i+1, 9090) + "/metrics"
	}
	return urls
}

// metric sums, over the /metrics of urls, the samples of the named metric
// whose labels include every one of labels (`name="value"`).
func (tp *topology) metric(urls []string, name string, labels ...string) float64 {
	tp.t.Helper()
	var sum float64
	for _, u := range urls {
		resp, err := http.Get(u)
		if err != nil {
			tp.t.Fatal(err)
		}
		v, err := sumSamples(resp.Body, name, labels)
		resp.Body.Close()
		if err != nil {
			tp.t.Fatal(err)
		}
		sum += v
	}
	return sum
}

// sumSamples reads the Prometheus text format and sums the samples of name
// carrying every label of labels.
func sumSamples(r io.Reader, name string, labels []string) (float64, error) {
	var sum float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || !strings.HasPrefix(line, name) {
			continue
		}
		series, value, ok := strings.Cut(line, " ")
		metric, set, _ := strings.Cut(series, "{")
		if !ok || metric != name {
			continue
		}
		match := true
		for _, l := range labels {
			match = match && (strings.Contains(set, ","+l) || strings.HasPrefix(set, l))
		}
		if !match {
			continue
		}
		f, err := strconv.ParseFloat(strings.Fields(value)[0], 64)
		if err != nil {
			return 0, fmt.Errorf("metric line %q: %w", line, err)
		}
		sum += f
	}
	return sum, sc.Err()
}
