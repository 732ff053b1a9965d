package telemetrytest

import (
	"bytes"
	"strings"
	"sync"
)

// Logs collects log output written from several goroutines, for a test to
// read back.
type Logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything written so far.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Count returns how many times s occurs in what was written.
func (l *Logs) Count(s string) int { return strings.Count(l.String(), s) }
