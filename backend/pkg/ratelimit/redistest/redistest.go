// Package redistest runs a redis-server of a test's own, which the test can
// stop and start again to play an outage without disturbing the Redis that
// other tests share (scripts/testredis.sh).
package redistest

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is a running redis-server.
type Server struct {
	cmd     *exec.Cmd
	drained chan struct{} // closed once its output ends: it exited
	stopped bool
}

// Start starts redis-server on the unix socket path (nothing on TCP, nothing
// kept on disk) and returns once it accepts connections, which it says on
// its output ("Ready to accept connections" in Redis 7.2, "The server is now
// ready to accept connections at" in 7.0). The test's cleanup stops it.
// Without redis-server the test is skipped, except in CI, where it fails.
func Start(t testing.TB, socket string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed (CI=true: the Redis outage tests must run)")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	// The test's context ends it with SIGKILL if the test ends first.
	cmd := exec.CommandContext(t.Context(), bin, "--port", "0", "--unixsocket", socket, "--unixsocketperm", "700",
		"--save", "", "--appendonly", "no", "--dir", filepath.Dir(socket))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{cmd: cmd, drained: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		defer close(s.drained)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if ready != nil && strings.Contains(strings.ToLower(sc.Text()), "ready to accept connections") {
				close(ready)
				ready = nil
			}
		}
	}()
	t.Cleanup(func() { s.Stop(t) })
	select {
	case <-ready:
	case <-s.drained:
		s.Stop(t)
		t.Fatal("redis-server exited before accepting connections")
	case <-time.After(10 * time.Second):
		t.Fatal("redis-server did not accept connections within 10s")
	}
	return s
}

// Stop ends the server and waits for it to exit. Stopping it twice is
// stopping it once.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if s.stopped {
		return
	}
	s.stopped = true
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Error(err)
	}
	<-s.drained
	_ = s.cmd.Wait() // a terminated process's exit status says nothing
}
