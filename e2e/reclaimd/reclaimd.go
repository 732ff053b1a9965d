// Package reclaimd runs the real reclaim binary for tests: it builds it once
// per test binary, starts `reclaim serve` and learns its addresses from the
// "metrics listening" and "listening" log lines (no polling), runs CLI
// commands, and stops a server with SIGINT (or the signal a test sends with
// Stop) and waits for it to exit before the test's other cleanups (its
// temporary directories) run. Tests only.
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
	"slices"
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
		build.err = goBuild(filepath.Join(filepath.Dir(file), "..", ".."), build.path, "./backend/cmd/reclaim")
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
	if err := goBuild(dir, path, "./backend/cmd/reclaim"); err != nil {
		t.Fatal(err)
	}
	return path
}

// BuildPackage builds the command pkg ("./e2e/barestack") of this checkout
// into t's temporary directory and returns the binary's path.
func BuildPackage(t testing.TB, pkg string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if err := goBuild(filepath.Join(filepath.Dir(file), "..", ".."), path, pkg); err != nil {
		t.Fatal(err)
	}
	return path
}

// goBuild builds the command pkg of the checkout at dir to path.
func goBuild(dir, path, pkg string) error {
	cmd := exec.Command("go", "build", "-o", path, pkg)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %w\n%s", pkg, dir, err, out)
	}
	return nil
}

// Server is a running `reclaim serve`.
type Server struct {
	// URL is its base address, http://host:port.
	URL string
	// MetricsURL is the base address of its metrics listener ("" when off).
	MetricsURL string
	mu         sync.Mutex
	logs       bytes.Buffer
	logged     *sync.Cond // broadcast on every line
	stop       func(os.Signal) *os.ProcessState
	pid        int
}

// Stop sends sig and waits for the server to exit; it returns how it
// exited. Later calls (and the test's cleanup) return the same.
func (s *Server) Stop(sig os.Signal) *os.ProcessState { return s.stop(sig) }

// WaitLog waits until the server has logged a line whose msg is msg, or
// until it exits (then it fails t).
func (s *Server) WaitLog(t testing.TB, msg string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !strings.Contains(s.logs.String(), `"msg":"`+msg+`"`) {
		if s.logged == nil {
			t.Fatalf("reclaim serve exited without logging %q:\n%s", msg, s.logs.String())
		}
		s.logged.Wait()
	}
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

// Memory is the server's resident memory now (VmRSS) and its peak so far
// (VmHWM), in bytes, from /proc (Linux); zeros where /proc cannot tell.
func (s *Server) Memory() (rss, peak int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		name, v, ok := strings.Cut(line, ":")
		f := strings.Fields(v)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			peak = kb << 10
		}
	}
	return rss, peak
}

// Logs returns what the server has logged so far.
func (s *Server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// Serve starts `reclaim serve` with env (which should set RECLAIM_ADDR to a
// port-0 address; RECLAIM_METRICS_ADDR is a port-0 address unless env sets
// it) and returns once it listens. The server is stopped when t ends:
// SIGINT, then wait for its exit. With echo set, its log lines are copied
// there too.
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
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "RECLAIM_METRICS_ADDR=") }) {
		// Parallel servers must not all take the default 127.0.0.1:9090.
		cmd.Env = append(slices.Clone(env), "RECLAIM_METRICS_ADDR=127.0.0.1:0")
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{pid: cmd.Process.Pid}
	s.logged = sync.NewCond(&s.mu)
	addr := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if bytes.Contains(sc.Bytes(), []byte(`listening"`)) {
				// Only the start lines are read: a load test's access
				// lines must not cost the test's own processor time.
				_ = json.Unmarshal(sc.Bytes(), &line)
			}
			s.mu.Lock()
			s.logs.Write(sc.Bytes())
			s.logs.WriteByte('\n')
			if line.Msg == "metrics listening" {
				s.MetricsURL = "http://" + line.Addr
			}
			s.logged.Broadcast()
			s.mu.Unlock()
			if echo != nil {
				fmt.Fprintln(echo, sc.Text())
			}
			if line.Msg == "listening" {
				select {
				case addr <- line.Addr:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // a line too long for the scanner
		s.mu.Lock()
		s.logged.Broadcast()
		s.logged = nil // WaitLog: nothing more will come
		s.mu.Unlock()
	}()
	var once sync.Once
	var state *os.ProcessState
	s.stop = func(sig os.Signal) *os.ProcessState {
		once.Do(func() {
			_ = cmd.Process.Signal(sig)
			<-done // the log pipe is drained before Wait closes it
			_ = cmd.Wait()
			state = cmd.ProcessState
		})
		return state
	}
	t.Cleanup(func() {
		s.Stop(os.Interrupt)
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
	return RunBinary(t, Binary(t), env, stdin, args...)
}

// RunBinary is Run with another reclaim binary.
func RunBinary(t testing.TB, binary string, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
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
