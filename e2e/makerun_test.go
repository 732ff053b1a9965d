package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMakeRun is a newcomer's first command: `make run` on a fresh clone of
// this checkout (its HEAD), on free ports, starts the whole local stack (the
// validator installed and started beside the service, the demo seeded) and
// prints one block; the API is ready and lists the demo wallet's items with
// the printed key; SIGINT to the terminal's process group stops everything,
// leaving no process. A second `make run` reuses the data: the same key and
// wallet, the items made again on the new validator.
func TestMakeRun(t *testing.T) {
	t.Parallel()
	needTools(t, "git", "make", "node", "npm")
	start := time.Now()
	clone := freshClone(t)
	t.Logf("cloned in %s", time.Since(start).Round(time.Millisecond))

	apiPort, validatorPort := freePort(t, 1), freePort(t, 2)
	env := []string{
		"RECLAIM_ADDR=127.0.0.1:" + apiPort, "VALIDATOR_PORT=" + validatorPort, "RECLAIM_METRICS_ADDR=off",
		"SAMPLE_APP_PORT=" + freePort(t, 1),
	}
	first := startMakeRun(t, clone, env)
	t.Logf("make run printed its block %s after the clone started", time.Since(start).Round(time.Second))
	for _, want := range []string{"API", "Console", "sign in as demo@example.com, password ", "API reference", "make example", "Demo wallet", "API key", "/mcp"} {
		if !strings.Contains(first.block, want) {
			t.Errorf("the block does not say %q:\n%s", want, first.block)
		}
	}
	demo := readDemoFile(t, filepath.Join(clone, "data", "demo.json"))
	if !strings.Contains(first.block, demo.APIKey) || !strings.Contains(first.block, demo.Wallet) || !strings.Contains(first.block, demo.ConsolePassword) {
		t.Errorf("the block does not show demo.json's key, wallet and sign-in:\n%s", first.block)
	}
	api := "http://127.0.0.1:" + apiPort
	waitReady(t, api)
	counts := listDemo(t, api, demo)
	if counts["empty_account"] != 3 || counts["token"] != 3 || counts["nft"] != 1 {
		t.Errorf("the demo wallet lists %v", counts)
	}
	first.interrupt(t)

	second := startMakeRun(t, clone, env)
	again := readDemoFile(t, filepath.Join(clone, "data", "demo.json"))
	if again.APIKey != demo.APIKey || again.Wallet != demo.Wallet || again.ProjectID != demo.ProjectID || again.ConsolePassword != demo.ConsolePassword {
		t.Errorf("a second make run made a new demo: %+v, then %+v", demo, again)
	}
	waitReady(t, api)
	if got := listDemo(t, api, again); got["empty_account"] != 3 {
		t.Errorf("the second run's validator lists %v for the demo wallet", got)
	}
	second.interrupt(t)
}

// needTools skips the test when a tool is missing, or fails it when CI=true.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI=true)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// freshClone clones this checkout's HEAD into a temporary directory.
func freshClone(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..")
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "reclaim")
	for _, args := range [][]string{
		{"clone", "--quiet", "--no-checkout", root, dir},
		{"-C", dir, "checkout", "--quiet", strings.TrimSpace(string(head))},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dir
}

// freePort returns a port that is free with the n-1 after it (the
// validator's PubSub takes the next one).
func freePort(t *testing.T, n int) string {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ok := true
		var others []net.Listener
		for i := 1; i < n; i++ {
			o, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+i))
			if err != nil {
				ok = false
				break
			}
			others = append(others, o)
		}
		ln.Close()
		for _, o := range others {
			o.Close()
		}
		if ok {
			return fmt.Sprint(port)
		}
	}
	t.Fatal("no free ports")
	return ""
}

// makeRun is a running `make run`, in a process group of its own as a
// terminal's foreground job is.
type makeRun struct {
	cmd          *exec.Cmd
	block        string
	validatorPID int
	done         chan struct{}
	stderr       *strings.Builder
}

func startMakeRun(t *testing.T, dir string, env []string) *makeRun {
	t.Helper()
	cmd := exec.Command("make", "run")
	cmd.Dir = dir
	cmd.Env = append(withoutEnv(os.Environ(), "SOLANA_RPC_URL", "RECLAIM_DATA_DIR", "DATABASE_URL", "REDIS_URL", "MAKEFLAGS"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &makeRun{cmd: cmd, done: make(chan struct{}), stderr: &strings.Builder{}}
	pid := make(chan int, 1)
	block := make(chan string, 1)
	logs := make(chan struct{})
	go func() {
		defer close(logs)
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			m.stderr.WriteString(sc.Text() + "\n")
			var line struct {
				Msg string
				Pid int
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "validator" {
				pid <- line.Pid
			}
		}
	}()
	go func() {
		sc := bufio.NewScanner(stdout)
		var b strings.Builder
		in := false
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "Reclaim is running") {
				in = true
			}
			if in {
				b.WriteString(line + "\n")
				if strings.HasPrefix(strings.TrimSpace(line), "Try ") {
					block <- b.String()
					in = false
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		<-logs
		_ = cmd.Wait()
		close(m.done)
	}()
	t.Cleanup(func() {
		select {
		case <-m.done:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			if m.validatorPID != 0 {
				_ = syscall.Kill(-m.validatorPID, syscall.SIGKILL)
			}
			<-m.done
		}
	})
	timeout := time.After(10 * time.Minute)
	for m.block == "" {
		select {
		case p := <-pid:
			m.validatorPID = p
		case b := <-block:
			m.block = b
		case <-m.done:
			t.Fatalf("make run exited before its block:\n%s", m.stderr.String())
		case <-timeout:
			t.Fatalf("make run printed no block within 10 minutes:\n%s", m.stderr.String())
		}
	}
	if m.validatorPID == 0 {
		select {
		case m.validatorPID = <-pid:
		default:
			t.Fatalf("make run did not log the validator's pid:\n%s", m.stderr.String())
		}
	}
	return m
}

// interrupt sends SIGINT to the job's process group, as Ctrl-C in a
// terminal does, waits for make to exit, and checks that nothing it
// started is left: not its group, not the validator's.
func (m *makeRun) interrupt(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(-m.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.done:
	case <-time.After(time.Minute):
		t.Fatalf("make run did not stop within a minute of SIGINT:\n%s", m.stderr.String())
	}
	for name, pgid := range map[string]int{"make run's": m.cmd.Process.Pid, "the validator's": m.validatorPID} {
		if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s process group %d is still there after SIGINT (%v)", name, pgid, err)
		}
	}
	if !strings.Contains(m.stderr.String(), `"msg":"stopped"`) {
		t.Errorf("the service did not log that it stopped:\n%s", m.stderr.String())
	}
}

func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

type demoJSON struct {
	ProjectID, APIKey, Wallet, ConsoleEmail, ConsolePassword string
}

func readDemoFile(t *testing.T, path string) demoJSON {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d demoJSON
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// waitReady asks /readyz until it answers 200 (at most a minute).
func waitReady(t *testing.T, api string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s/readyz: not ready within a minute (%v)", api, err)
		case <-tick.C:
		}
	}
}

// listDemo lists the demo wallet with the demo's API key and returns the counts.
func listDemo(t *testing.T, api string, d demoJSON) map[string]int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, api+"/v1/wallet/"+d.Wallet+"/assets", nil)
	req.Header.Set("X-Api-Key", d.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l struct{ Counts map[string]int }
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&l) != nil {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("list the demo wallet: %d %s", resp.StatusCode, b)
	}
	return l.Counts
}
