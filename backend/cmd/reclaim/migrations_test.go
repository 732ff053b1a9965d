package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// serveOutcome runs `reclaim serve` with env and reports how it ended: the
// error it returned, or, when it started listening instead, nil and true
// (the server is stopped then).
func serveOutcome(t *testing.T, env map[string]string) (err error, listened bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	getenv := func(k string) string {
		if k == "RECLAIM_ADDR" || k == "RECLAIM_METRICS_ADDR" {
			return "127.0.0.1:0"
		}
		return env[k]
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"serve"}, getenv, strings.NewReader(""), pw, pw)
		pw.Close()
		done <- err
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		var line struct{ Msg string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
			listened = true
			cancel()
		}
	}
	return <-done, listened
}

// With RECLAIM_SKIP_MIGRATIONS, serve refuses a database the migration job
// has not brought up to date (as a pod started before the Helm hook would)
// and leaves it as it was; once `reclaim migrate` ran, it serves.
func TestSkipMigrationsRefusesAnOlderSchema(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	env := map[string]string{"RECLAIM_DATA_DIR": dir, "RECLAIM_SKIP_MIGRATIONS": "true"}
	err, listened := serveOutcome(t, env)
	if listened || err == nil || !strings.Contains(err.Error(), "reclaim migrate") {
		t.Fatalf("serve on a fresh database with migrations skipped: listened %v, err %v; want a refusal naming reclaim migrate", listened, err)
	}
	// Nothing was migrated: a second refusal says the same.
	if err, listened := serveOutcome(t, env); listened || err == nil || !strings.Contains(err.Error(), "reclaim migrate") {
		t.Fatalf("second start: listened %v, err %v", listened, err)
	}
	if out, err := cli(t, dir, "migrate"); err != nil || !strings.Contains(out, "migrations applied") {
		t.Fatalf("migrate: %q, %v", out, err)
	}
	if err, listened := serveOutcome(t, env); !listened || err != nil {
		t.Fatalf("serve after migrate: listened %v, err %v; want it to serve", listened, err)
	}
}
