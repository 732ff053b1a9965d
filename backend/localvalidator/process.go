package localvalidator

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/npmci"
)

// Process is a running local validator, in a process group of its own:
// Ctrl-C in the terminal reaches the program that started it (`reclaim
// dev`) alone, which stops the group and waits for it.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited and been reaped
	err  error         // how it exited, once done is closed

	stopOnce sync.Once
}

// grace is how long the validator has to exit on SIGTERM before its group
// is killed.
const grace = 10 * time.Second

// Start installs the validator's packages in dir (its folder, Dir from the
// repository's root) when they are missing (npm ci, locked), starts it on
// 127.0.0.1:port with PubSub on wsPort and returns once it listens, or with
// what it said if it exits first. Its later output goes to logw. The caller
// stops it (Stop).
func Start(ctx context.Context, dir string, port, wsPort int, logw io.Writer) (*Process, error) {
	if _, err := os.Stat(filepath.Join(dir, "server.js")); err != nil {
		return nil, fmt.Errorf("the local validator is not at %s (run make run from the repository's root, or set SOLANA_RPC_URL to use a cluster of your own): %w", dir, err)
	}
	if !npmci.Installed(dir) {
		fmt.Fprintf(logw, "installing the local validator's packages (npm ci in %s)…\n", dir)
		if out, err := npmci.Ensure(ctx, dir); err != nil {
			return nil, fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out)
		}
	}
	// Without the cancel: stop ends the whole process group and waits, where
	// a cancelled context would kill node alone.
	cmd := exec.CommandContext(context.WithoutCancel(ctx), "node", Args("127.0.0.1", port, wsPort)...) //nolint:gosec // G204: node and a script of the repository; the ports are numbers
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = logw
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the local validator (node %s/server.js): %w", dir, err)
	}
	v := &Process{cmd: cmd, done: make(chan struct{})}
	ready := make(chan struct{})
	var said strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		listening := false
		for sc.Scan() {
			line := sc.Text()
			if !listening {
				said.WriteString(line + "\n")
				if strings.HasPrefix(line, ReadyPrefix) {
					listening = true
					close(ready)
				}
				continue
			}
			fmt.Fprintln(logw, line)
		}
		_, _ = io.Copy(io.Discard, out)
		v.err = cmd.Wait()
		close(v.done)
	}()
	select {
	case <-ready:
		return v, nil
	case <-v.done:
		return nil, fmt.Errorf("the local validator exited before it listened on 127.0.0.1:%d or PubSub on %d (%w); is a port taken? VALIDATOR_PORT and VALIDATOR_PUBSUB_PORT move them:\n%s", port, wsPort, v.err, said.String())
	case <-ctx.Done():
		v.Stop()
		return nil, ctx.Err()
	case <-time.After(2 * time.Minute):
		v.Stop()
		return nil, fmt.Errorf("the local validator did not listen on 127.0.0.1:%d within 2 minutes:\n%s", port, said.String())
	}
}

// Pid is the validator's process id, which is also its process group's.
func (v *Process) Pid() int { return v.cmd.Process.Pid }

// Done is closed once the validator has exited.
func (v *Process) Done() <-chan struct{} { return v.done }

// Stop ends the validator's process group (SIGTERM, then SIGKILL after a
// grace of 10 s) and waits until the validator is reaped. It may be called
// more than once.
func (v *Process) Stop() {
	v.stopOnce.Do(func() {
		pgid := v.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-v.done:
		case <-time.After(grace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-v.done
		}
		// Anything the validator left in its group goes too (none: ESRCH).
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	})
}
