package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
)

// cli runs one command against dataDir and returns its stdout.
func cli(t *testing.T, dataDir string, args ...string) (string, error) {
	t.Helper()
	return cliEnv(t, map[string]string{"RECLAIM_DATA_DIR": dataDir}, args...)
}

// cliEnv runs one command in the environment env and returns its stdout.
func cliEnv(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut)
	return out.String(), err
}

// startServer runs `reclaim serve` on dataDir and returns its base URL.
func startServer(t *testing.T, dataDir string) (url string, stop func()) {
	t.Helper()
	url, _, stop = serveWith(t, dataDir, nil)
	return url, stop
}

// serveWith runs `reclaim serve` on dataDir with env on top of the test
// defaults and returns its base URL and what it has logged so far.
func serveWith(t *testing.T, dataDir string, env map[string]string) (url string, logs func() string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		switch k {
		case "RECLAIM_DATA_DIR":
			return dataDir
		case "RECLAIM_ADDR", "RECLAIM_METRICS_ADDR":
			return "127.0.0.1:0"
		}
		return ""
	}
	var mu sync.Mutex
	var all strings.Builder
	read := make(chan struct{})
	go func() { done <- run(ctx, []string{"serve"}, getenv, strings.NewReader(""), pw, pw) }()
	addr := make(chan string, 1)
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			mu.Lock()
			all.WriteString(sc.Text() + "\n")
			mu.Unlock()
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				addr <- line.Addr
			}
		}
	}()
	select {
	case a := <-addr:
		url = "http://" + a
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not start listening within 20s")
	}
	logs = func() string {
		mu.Lock()
		defer mu.Unlock()
		return all.String()
	}
	return url, logs, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		pw.Close()
		<-read
	}
}

func post(t *testing.T, url, key string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func get(t *testing.T, url, authz string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+authz)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The management commands print only what a script needs, and work while a
// server runs on the same data; tokens survive a restart.
func TestCLIWhileServing(t *testing.T) {
	dir := t.TempDir()
	url, stop := startServer(t, dir)

	id, err := cli(t, dir, "project", "create", "--name", "Acme", "--donation-wallet", solana.NewWallet().PublicKey().String())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^prj_[a-z0-9]+\n$`).MatchString(id) {
		t.Fatalf("project create printed %q, want the id alone", id)
	}
	key, err := cli(t, dir, "apikey", "create", "--project", strings.TrimSpace(id))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^ak_live_[1-9A-HJ-NP-Za-km-z]{43,44}\n$`).MatchString(key) {
		t.Fatalf("apikey create printed %q, want the key alone", key)
	}
	key = strings.TrimSpace(key)
	wallet := solana.NewWallet().PublicKey().String()
	code, sess := post(t, url+"/v1/sessions", key, map[string]any{"walletAddress": wallet})
	if code != 200 {
		t.Fatalf("session with the new key: %d %v", code, sess)
	}
	token := sess["token"].(string)

	// Restart: the signing key is kept in the data dir, the token still works.
	stop()
	url, stop = startServer(t, dir)
	defer stop()
	if code := get(t, url+"/v1/stats", token); code != 200 {
		t.Fatalf("token after restart: %d", code)
	}

	out, err := cli(t, dir, "apikey", "revoke", "--key", key)
	if err != nil || !strings.HasPrefix(out, "revoked key_") {
		t.Fatalf("revoke: %q %v", out, err)
	}
	if code, _ := post(t, url+"/v1/sessions", key, map[string]any{"walletAddress": wallet}); code != 401 {
		t.Fatalf("revoked key: %d, want 401", code)
	}
	// Its session ends within the key cache's 2 s: poll with a deadline.
	deadline := time.Now().Add(10 * time.Second)
	for get(t, url+"/v1/stats", token) != 401 {
		if time.Now().After(deadline) {
			t.Fatal("session of a revoked key still works after 10s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestCLIRejections(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no name", []string{"project", "create"}, "--name is required"},
		{"bad donation wallet", []string{"project", "create", "--name", "x", "--donation-wallet", "nope"}, "--donation-wallet"},
		{"no project", []string{"apikey", "create"}, "--project is required"},
		{"unknown project", []string{"apikey", "create", "--project", "prj_nope"}, `no project "prj_nope"`},
		{"no key", []string{"apikey", "revoke"}, "--key is required"},
		{"unknown key", []string{"apikey", "revoke", "--key", "ak_live_nope"}, "no such key"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := cli(t, dir, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || out != "" {
				t.Fatalf("got %q, %v; want error containing %q and no stdout", out, err, tc.want)
			}
		})
	}
}

// Console owners get projects from the command line: at creation, or shared
// later with a role.
func TestCLIOwnersAndSharing(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "RECLAIM_DATA_DIR" {
			return dir
		}
		return ""
	}
	for _, email := range []string{"ada@example.com", "bob@example.com"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"owner", "create", "--email", email}, getenv, strings.NewReader("correct horse battery staple\n"), &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.String(), "own") {
			t.Fatalf("owner create printed %q", out.String())
		}
	}
	id, err := cli(t, dir, "project", "create", "--name", "Shared", "--owner", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	id = strings.TrimSpace(id)
	if out, err := cli(t, dir, "project", "share", "--project", id, "--email", "bob@example.com"); err != nil || !strings.Contains(out, "viewer") {
		t.Fatalf("share: %q %v", out, err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown owner at creation", []string{"project", "create", "--name", "x", "--owner", "eve@example.com"}, "no console owner"},
		{"shared twice", []string{"project", "share", "--project", id, "--email", "bob@example.com"}, "already a member"},
		{"unknown project", []string{"project", "share", "--project", "prj_nope", "--email", "bob@example.com"}, "no project"},
		{"bad role", []string{"project", "share", "--project", id, "--email", "bob@example.com", "--role", "admin"}, "--role"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := cli(t, dir, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
