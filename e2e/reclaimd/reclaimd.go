// Package reclaimd runs the real reclaim binary for tests: it builds it once
// per test binary, starts `reclaim serve` and learns its address from the
// "listening" log line (no polling), runs CLI commands, and stops a server
// with SIGINT and waits for it to exit before the test's other cleanups
// (its temporary directories) run. Tests only.
package reclaimd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var build struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of a reclaim binary built from this checkout, once
// per test binary.
func Binary(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "reclaim-bin")
		if err != nil {
			build.err = err
			return
		}
		build.path = filepath.Join(dir, "reclaim")
		_, file, _, _ := runtime.Caller(0)
		build.err = goBuild(filepath.Join(filepath.Dir(file), "..", ".."), build.path)
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// BuildAt builds the reclaim binary of the checkout at dir into t's
// temporary directory and returns its path.
func BuildAt(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "reclaim")
	if err := goBuild(dir, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// goBuild builds the reclaim binary of the checkout at dir to path.
func goBuild(dir, path string) error {
	cmd := exec.Command("go", "build", "-o", path, "./backend/cmd/reclaim")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build reclaim in %s: %w\n%s", dir, err, out)
	}
	return nil
}

// Server is a running `reclaim serve`.
type Server struct {
	// URL is its base address, http://host:port.
	URL  string
	pid  int
	mu   sync.Mutex
	logs bytes.Buffer
}

// CPU is the processor time the server has used so far, user and system,
// from /proc (Linux); 0 where /proc cannot tell.
func (s *Server) CPU() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses: utime and
	// stime are the 12th and 13th, in clock ticks of 1/100 s on Linux.
	end := bytes.LastIndexByte(raw, ')')
	if end < 0 {
		return 0
	}
	f := strings.Fields(string(raw[end+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// Logs returns what the server has logged so far.
func (s *Server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// Serve starts `reclaim serve` with env (which should set RECLAIM_ADDR to a
// port-0 address) and returns once it listens. The server is stopped when t
// ends: SIGINT, then wait for its exit. With echo set, its log lines are
// copied there too.
func Serve(t testing.TB, env []string, echo io.Writer) *Server {
	t.Helper()
	return ServeBinary(t, Binary(t), env, echo)
}

// ServeBinary is Serve with another reclaim binary (another checkout's, to
// compare with).
func ServeBinary(t testing.TB, binary string, env []string, echo io.Writer) *Server {
	t.Helper()
	cmd := exec.Command(binary, "serve")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{pid: cmd.Process.Pid}
	addr := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			s.mu.Lock()
			s.logs.Write(sc.Bytes())
			s.logs.WriteByte('\n')
			s.mu.Unlock()
			if echo != nil {
				fmt.Fprintln(echo, sc.Text())
			}
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				select {
				case addr <- line.Addr:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // a line too long for the scanner
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-done // the log pipe is drained before Wait closes it
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("reclaim serve log:\n%s", s.Logs())
		}
	})
	select {
	case a := <-addr:
		s.URL = "http://" + a
		return s
	case <-done:
		t.Fatalf("reclaim serve exited before listening:\n%s", s.Logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("reclaim serve did not listen within 60s:\n%s", s.Logs())
	}
	return nil
}

// Run runs a reclaim CLI command with env and stdin and returns its standard
// output, trimmed. A failing command fails t with its standard error.
func Run(t testing.TB, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reclaim %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}
