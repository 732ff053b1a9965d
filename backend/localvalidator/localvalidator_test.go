package localvalidator_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/localvalidator"
)

// The image (Dockerfile: compose and the e2e suite run it) starts the
// validator as Args says, on the usual ports, and exposes them.
func TestImageStartsItAsArgsSay(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var entrypoint []string
	var expose string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "ENTRYPOINT "); ok {
			if err := json.Unmarshal([]byte(rest), &entrypoint); err != nil {
				t.Fatalf("ENTRYPOINT %s: %v", rest, err)
			}
		}
		if rest, ok := strings.CutPrefix(line, "EXPOSE "); ok {
			expose = rest
		}
	}
	want := append([]string{"node"}, localvalidator.Args("0.0.0.0", localvalidator.RPCPort, localvalidator.PubSubPort)...)
	if !slices.Equal(entrypoint, want) {
		t.Errorf("the Dockerfile's ENTRYPOINT is %q, want %q", entrypoint, want)
	}
	if want := strconv.Itoa(localvalidator.RPCPort) + " " + strconv.Itoa(localvalidator.PubSubPort); expose != want {
		t.Errorf("the Dockerfile's EXPOSE is %q, want %q", expose, want)
	}
}

// Dir, from the repository's root, is this folder, and server.js is in it.
func TestDirIsThisFolder(t *testing.T) {
	t.Parallel()
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(here, "..", "..")
	if got := filepath.Join(root, localvalidator.Dir); got != here {
		t.Errorf("Dir from the root %s is %s, want this folder %s", root, got, here)
	}
	if _, err := os.Stat(filepath.Join(root, localvalidator.Dir, "server.js")); err != nil {
		t.Error(err)
	}
}

// Start runs the real validator: it answers getHealth once Start returns,
// and Stop ends its whole process group and waits for it.
func TestStartAndStop(t *testing.T) {
	t.Parallel()
	needNode(t)
	ctx := context.Background()
	ports := freePorts(t, 2)
	rpc, ws := ports[0], ports[1]
	v, err := localvalidator.Start(ctx, ".", rpc, ws, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(rpc), strings.NewReader(localvalidator.HealthRequest))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("getHealth once Start returned: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), localvalidator.HealthyAnswer) {
		t.Errorf("getHealth answered %s", body)
	}
	conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(ws))
	if err != nil {
		t.Errorf("PubSub on %d: %v", ws, err)
	} else {
		conn.Close()
	}
	pid := v.Pid()
	v.Stop()
	select {
	case <-v.Done():
	default:
		t.Fatal("Stop returned before the validator exited")
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the validator's process group %d after Stop: %v, want none (ESRCH)", pid, err)
	}
	v.Stop() // again: nothing left to do
}

// A port another program holds: Start names it and the likely cause.
func TestStartOnATakenPort(t *testing.T) {
	t.Parallel()
	needNode(t)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	port := held.Addr().(*net.TCPAddr).Port
	v, err := localvalidator.Start(context.Background(), ".", port, freePorts(t, 1)[0], io.Discard)
	if err == nil {
		v.Stop()
		t.Fatal("the validator started on a taken port")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:"+strconv.Itoa(port)) || !strings.Contains(err.Error(), "is a port taken?") {
		t.Errorf("%v, want the port named and the likely cause", err)
	}
}

// A folder without the validator: Start says where it looked and what to do.
func TestStartWithoutTheValidator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ports := freePorts(t, 2)
	_, err := localvalidator.Start(context.Background(), dir, ports[0], ports[1], io.Discard)
	if err == nil || !strings.Contains(err.Error(), "the local validator is not at "+dir) || !strings.Contains(err.Error(), "SOLANA_RPC_URL") {
		t.Errorf("%v, want where the validator is missing and what to do", err)
	}
}

// freePorts returns n loopback ports free a moment ago, all different.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// needNode skips a test that runs the validator where node and npm are
// missing, but fails it in CI, which never skips.
func needNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing: %v", tool, err)
			}
			t.Skipf("%s is missing: %v", tool, err)
		}
	}
}
