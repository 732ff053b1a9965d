package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMakeRunBesideOtherPrograms is issue 35's newcomer on a busy machine:
// other programs hold the metrics listener's usual 9090 (Prometheus's), the
// API's neighbours and the validator's usual 8899 and 8900. A fresh clone's
// `make run` still prints its block, and every port the block advertises
// is its own (the metrics and the validator moved to free ports, a note
// says so). A second `make run` on other ports runs beside the first; one
// on the first's ports is refused before it starts anything, naming each
// taken port and its variable. The TypeScript client installs by path
// from the clone, as the README says, into a scratch project, and calls
// the running stack.
func TestMakeRunBesideOtherPrograms(t *testing.T) {
	t.Parallel()
	needTools(t, "git", "make", "node", "npm")
	clone := freshClone(t)
	apiPort, _ := strconv.Atoi(freePort(t, 3))
	apiPort++ // free with both neighbours
	held := map[int]bool{}
	for _, p := range []int{9090, 8899, 8900, apiPort - 1, apiPort + 1} {
		holdIfFree(t, p)
		held[p] = true
	}
	api := fmt.Sprintf("http://127.0.0.1:%d", apiPort)
	first := startMakeRun(t, clone, []string{"RECLAIM_ADDR=127.0.0.1:" + strconv.Itoa(apiPort), "SAMPLE_APP_PORT=" + freePort(t, 1)})
	t.Cleanup(func() { first.interrupt(t) })

	ports := blockPorts(t, first.block)
	for name, p := range ports {
		if held[p] {
			t.Errorf("the block advertises %s on port %d, which another program holds:\n%s", name, p, first.block)
		}
	}
	if !strings.Contains(first.block, "VALIDATOR_PORT and VALIDATOR_PUBSUB_PORT fix them") {
		t.Errorf("the block does not say the validator moved:\n%s", first.block)
	}
	if !strings.Contains(first.block, "http://127.0.0.1 receivers allowed") {
		t.Errorf("the block does not say local webhooks work:\n%s", first.block)
	}
	waitReady(t, api)
	if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", ports["metrics"])); err != nil || resp.StatusCode != 200 {
		t.Errorf("the printed metrics listener: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	demo := readDemoFile(t, filepath.Join(clone, "data", "demo.json"))
	if counts := listDemo(t, api, demo); counts["empty_account"] != 3 {
		t.Errorf("the demo wallet lists %v", counts)
	}

	// On the first's ports: refused at once, every taken port named.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	clash := exec.CommandContext(ctx, "make", "run")
	clash.Dir = clone
	clash.Env = append(withoutEnv(os.Environ(), "SOLANA_RPC_URL", "RECLAIM_DATA_DIR", "DATABASE_URL", "REDIS_URL", "MAKEFLAGS", "RECLAIM_METRICS_ADDR"),
		"RECLAIM_ADDR=127.0.0.1:"+strconv.Itoa(apiPort), "VALIDATOR_PORT="+strconv.Itoa(ports["validator"]),
		"RECLAIM_DATA_DIR="+t.TempDir(), "SAMPLE_APP_PORT="+freePort(t, 1))
	out, err := clash.CombinedOutput()
	if err == nil {
		t.Fatalf("make run on the first's ports started:\n%s", out)
	}
	for _, want := range []string{
		fmt.Sprintf("127.0.0.1:%d (RECLAIM_ADDR)", apiPort), fmt.Sprintf("127.0.0.1:%d (VALIDATOR_PORT)", ports["validator"]), "nothing was started",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make run on taken ports does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "starting the local validator") {
		t.Errorf("make run on taken ports started the validator:\n%s", out)
	}

	// A second stack on other ports, beside the first.
	secondAPI := freePort(t, 1)
	second := startMakeRun(t, clone, []string{
		"RECLAIM_ADDR=127.0.0.1:" + secondAPI, "VALIDATOR_PORT=" + freePort(t, 2), "SAMPLE_APP_PORT=" + freePort(t, 1),
		"RECLAIM_DATA_DIR=" + t.TempDir(),
	})
	waitReady(t, "http://127.0.0.1:"+secondAPI)
	waitReady(t, api)

	// The TypeScript client by path, as the README says, from the clone.
	app := t.TempDir()
	if err := os.WriteFile(filepath.Join(app, "package.json"), []byte(`{"name":"scratch","private":true,"type":"module"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "stats.mjs"), []byte(statsScript), 0o600); err != nil {
		t.Fatal(err)
	}
	npm := exec.CommandContext(ctx, "npm", "install", "--install-links", "--no-audit", "--no-fund", filepath.Join(clone, "gen", "ts"), "@connectrpc/connect-node@2.1.2")
	npm.Dir = app
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm install --install-links gen/ts: %v\n%s", err, out)
	}
	node := exec.CommandContext(ctx, "node", "stats.mjs", api, demo.APIKey)
	node.Dir = app
	out, err = node.CombinedOutput()
	if err != nil {
		t.Fatalf("node stats.mjs: %v\n%s", err, out)
	}
	var stats struct{ TotalWallets, Type string }
	if err := json.Unmarshal(out, &stats); err != nil || stats.Type != "bigint" {
		t.Errorf("the client installed by path answered %s (%v)", out, err)
	}
	second.interrupt(t)
}

// statsScript calls GetStats with the client installed by path.
const statsScript = `import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ProjectService, apiKey } from "@reclaim-sol/client";
const [baseUrl, key] = process.argv.slice(2);
const transport = createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: [apiKey(key)] });
const stats = await createClient(ProjectService, transport).getStats({});
console.log(JSON.stringify({ totalWallets: String(stats.totalWallets), type: typeof stats.totalWallets }));
`

// holdIfFree listens on 127.0.0.1:port until the test ends, as another
// program would; a port some program already holds stays held.
func holdIfFree(t *testing.T, port int) {
	t.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatal(err)
		}
		return
	}
	t.Cleanup(func() { ln.Close() })
}

// blockPorts reads the ports the printed block advertises.
func blockPorts(t *testing.T, block string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for name, re := range map[string]*regexp.Regexp{
		"api":       regexp.MustCompile(`API\s+http://127\.0\.0\.1:(\d+)`),
		"validator": regexp.MustCompile(`Validator\s+http://127\.0\.0\.1:(\d+)`),
		"pubsub":    regexp.MustCompile(`PubSub ws://127\.0\.0\.1:(\d+)`),
		"metrics":   regexp.MustCompile(`Metrics\s+http://127\.0\.0\.1:(\d+)/metrics`),
	} {
		m := re.FindStringSubmatch(block)
		if m == nil {
			t.Fatalf("the block does not show the %s's port:\n%s", name, block)
		}
		out[name], _ = strconv.Atoi(m[1])
	}
	return out
}
