package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With SOLANA_RPC_URL set, `reclaim dev` (make run) is `reclaim serve`: it
// starts no validator (its directory does not even exist here) and seeds
// nothing.
func TestDevWithACluster(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"SOLANA_RPC_URL": "http://127.0.0.1:9", "RECLAIM_DATA_DIR": dir, "RECLAIM_ADDR": "127.0.0.1:0",
		"RECLAIM_METRICS_ADDR": "off", "VALIDATOR_PORT": "1",
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"dev", "-validator-dir", filepath.Join(dir, "none")}, func(k string) string { return env[k] }, strings.NewReader(""), pw, pw)
		pw.Close()
	}()
	var lines []string
	listening := make(chan string, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			var l struct {
				Msg       string
				SolanaRPC string `json:"solana_rpc"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "listening" {
				listening <- l.SolanaRPC
			}
		}
	}()
	select {
	case rpc := <-listening:
		if rpc != "http://127.0.0.1:9" {
			t.Errorf("serving against %q", rpc)
		}
	case err := <-done:
		<-read
		t.Fatalf("dev exited before listening: %v\n%s", err, strings.Join(lines, "\n"))
	case <-time.After(60 * time.Second):
		cancel()
		if err := <-done; err != nil {
			t.Logf("dev: %v", err)
		}
		<-read
		t.Fatalf("dev did not listen within 60 s:\n%s", strings.Join(lines, "\n"))
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("dev: %v", err)
	}
	<-read
	out := strings.Join(lines, "\n")
	if strings.Contains(out, `"msg":"validator"`) || strings.Contains(out, "Reclaim is running") {
		t.Errorf("dev with SOLANA_RPC_URL started more than the service:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dev with SOLANA_RPC_URL seeded a demo: %v", err)
	}
}

// dev's own settings are checked before anything starts, naming the bound.
func TestDevSettings(t *testing.T) {
	for env, want := range map[string]string{
		"VALIDATOR_PORT=0":         "VALIDATOR_PORT=\"0\": want a port from 1 to 65534",
		"VALIDATOR_PORT=65535":     "from 1 to 65534 (PubSub takes the next one unless VALIDATOR_PUBSUB_PORT is set)",
		"VALIDATOR_PUBSUB_PORT=ws": "VALIDATOR_PUBSUB_PORT=\"ws\": want a port from 1 to 65535",
		"SAMPLE_APP_PORT=http":     "SAMPLE_APP_PORT=\"http\": want a port from 1 to 65535",
		"SAMPLE_APP_PORT=70000":    "want a port from 1 to 65535",
	} {
		k, v, _ := strings.Cut(env, "=")
		_, _, err := loadDevSettings(nil, func(name string) string {
			if name == k {
				return v
			}
			return ""
		})
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a usage error saying %q", env, err, want)
		}
	}
	d, rest, err := loadDevSettings([]string{"-validator-dir", "v", "-addr", "127.0.0.1:1"}, func(string) string { return "" })
	if err != nil || d.validatorDir != "v" || d.validatorPort != 8899 || d.sampleOrigin != "http://127.0.0.1:5173" || len(rest) != 2 {
		t.Errorf("defaults %+v, serve's flags %v, %v", d, rest, err)
	}
}
