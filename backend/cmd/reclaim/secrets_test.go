package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/config"
)

// TestStartLogKeepsURLSecrets: `reclaim serve` names every URL setting it
// was given in its start line by scheme and host alone; the keys and
// passwords in their paths, queries and userinfo appear in no line it logs.
// (The whole flow, with every page of the console, is e2e's
// TestSecretsStayOutOfLogsAndPages.)
func TestStartLogKeepsURLSecrets(t *testing.T) {
	const secret = "pr0v1d3r-s3cr3t"
	env := map[string]string{
		"SOLANA_RPC_URL":    "http://127.0.0.1:1/?api-key=" + secret,
		"DAS_RPC_URL":       "https://das.example/v0/" + secret,
		"PHOTON_RPC_URL":    "https://photon.example/?api-key=" + secret,
		"RECLAIM_PRICE_URL": "https://price.example/v2?apikey=" + secret,
		"REDIS_URL":         "redis://:" + secret + "@127.0.0.1:1/0",
		"RECLAIM_SEND_URLS": "https://sender.example/?api-key=" + secret + ", http://127.0.0.1:2/" + secret + "/",
	}
	_, logs, stop := serveWith(t, t.TempDir(), env)
	stop()
	out := logs()
	if strings.Contains(out, secret) {
		t.Fatalf("a secret is logged:\n%s", out)
	}
	var listening map[string]string
	for _, line := range strings.Split(out, "\n") {
		var l map[string]any
		if json.Unmarshal([]byte(line), &l) == nil && l["msg"] == "listening" {
			listening = map[string]string{}
			for k, v := range l {
				switch v := v.(type) {
				case string:
					listening[k] = v
				case []any:
					listening[k] = strings.TrimSuffix(fmt.Sprintln(v...), "\n")
				}
			}
		}
	}
	want := map[string]string{"solana_rpc": "http://127.0.0.1:1", "das_rpc": "https://das.example", "photon_rpc": "https://photon.example",
		"price": "https://price.example", "redis": "redis://127.0.0.1:1", "send_paths": "https://sender.example http://127.0.0.1:2"}
	for k, v := range want {
		if listening[k] != v {
			t.Errorf("listening %s = %q, want %q (%v)", k, listening[k], v, listening)
		}
	}
	if got := endpoints(config.Config{DatabaseURL: "postgres://reclaim:" + secret + "@db:5432/reclaim?sslmode=disable"}); len(got) != 2 || got[1] != "postgres://db:5432" {
		t.Errorf("database endpoint %v", got)
	}
}

// TestServeRefusesSettingsWithoutQuotingThem: a malformed explorer
// template, Redis URL or price cap stops serve with a message naming the
// setting, never its value (it may hold a key).
func TestServeRefusesSettingsWithoutQuotingThem(t *testing.T) {
	const secret = "s3cr3t-in-a-bad-url"
	for name, env := range map[string]map[string]string{
		"RECLAIM_EXPLORER_URL": {"RECLAIM_EXPLORER_URL": "ftp://" + secret + "/{kind}/{id}"},
		"REDIS_URL":            {"REDIS_URL": "redis://:" + secret + "@[::1/0"},
		"DATABASE_URL":         {"DATABASE_URL": "postgres://reclaim:" + secret + " @db/reclaim"},
		"RECLAIM_SEND_URLS":    {"RECLAIM_SEND_URLS": "https://sender.example, ftp://" + secret + "@files.example/"},
	} {
		t.Run(name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "RECLAIM_DATA_DIR" {
					return t.TempDir()
				}
				if k == "RECLAIM_ADDR" || k == "RECLAIM_METRICS_ADDR" {
					return "127.0.0.1:0"
				}
				return env[k]
			}
			var out strings.Builder
			err := run(t.Context(), []string{"serve"}, getenv, strings.NewReader(""), &out, &out)
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("err = %v, want one naming %s", err, name)
			}
			if shown := err.Error() + out.String(); strings.Contains(shown, secret) {
				t.Fatalf("the value is shown: %s", shown)
			}
		})
	}
}

// TestUsageKeepsURLSecrets: serve's flags take their defaults from the
// environment, and -help prints them: URL settings by scheme and host.
func TestUsageKeepsURLSecrets(t *testing.T) {
	const secret = "pr0v1d3r-s3cr3t"
	cfg := config.Default()
	cfg.SolanaRPCURL, cfg.DASRPCURL, cfg.PhotonRPCURL = "https://rpc.example/?api-key="+secret, "https://das.example/"+secret, "https://photon.example/?k="+secret
	cfg.PriceURL, cfg.RedisURL, cfg.DatabaseURL = "https://price.example/?k="+secret, "redis://:"+secret+"@redis:6379", "postgres://u:"+secret+"@db/reclaim"
	cfg.SendURLs = []string{"https://sender.example/?api-key=" + secret, "https://jito.example/api/v1/transactions"}
	fs := serveFlags(&cfg)
	var out strings.Builder
	fs.SetOutput(&out)
	if err := fs.Parse([]string{"-help"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parse -help: %v", err)
	}
	if strings.Contains(out.String(), secret) || !strings.Contains(out.String(), `(default "https://rpc.example")`) ||
		!strings.Contains(out.String(), `default "https://sender.example,https://jito.example"`) {
		t.Fatalf("usage:\n%s", out.String())
	}
	if err := fs.Parse(nil); err != nil || cfg.SolanaRPCURL != "https://rpc.example/?api-key="+secret {
		t.Fatalf("the setting itself changed: %q, %v", cfg.SolanaRPCURL, err)
	}
}
