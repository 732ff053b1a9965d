package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
)

func TestLanding(t *testing.T) {
	t.Parallel()
	if d := config.Default().Landing; d.RebroadcastInterval != 2*time.Second || d.SendURLs != nil {
		t.Fatalf("defaults %+v", d)
	}
	cases := []struct {
		env      map[string]string
		interval time.Duration
		urls     string
	}{
		{map[string]string{"RECLAIM_REBROADCAST_INTERVAL": "3s"}, 3 * time.Second, ""},
		{map[string]string{"RECLAIM_REBROADCAST_INTERVAL": "5"}, 5 * time.Second, ""},
		{map[string]string{"RECLAIM_REBROADCAST_INTERVAL": "0"}, 0, ""},
		{map[string]string{"RECLAIM_SEND_URLS": " https://mainnet.block-engine.jito.wtf/api/v1/transactions , http://127.0.0.1:8899/?api-key=k,"},
			2 * time.Second, "https://mainnet.block-engine.jito.wtf/api/v1/transactions http://127.0.0.1:8899/?api-key=k"},
	}
	for _, c := range cases {
		got, err := config.Load(env(c.env))
		if err != nil || got.RebroadcastInterval != c.interval || strings.Join(got.SendURLs, " ") != c.urls {
			t.Errorf("%v: %+v, %v", c.env, got.Landing, err)
		}
	}
	for name, v := range map[string]string{
		"RECLAIM_REBROADCAST_INTERVAL": "1500ms",
		"RECLAIM_SEND_URLS":            "https://rpc.example/?api-key=S3CR3T,ftp://S3CR3T@files.example",
	} {
		_, err := config.Load(env(map[string]string{name: v}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v, want an error naming it", name, v, err)
		}
		if err != nil && name == "RECLAIM_SEND_URLS" && (strings.Contains(err.Error(), "S3CR3T") || !strings.Contains(err.Error(), "entry 2")) {
			t.Errorf("the error shows the URL, or does not say which: %v", err)
		}
	}
	for _, v := range []string{"-1s", "61s", "0.5s", "soon", "2m"} {
		if _, err := config.ParseRebroadcastInterval(v); err == nil {
			t.Errorf("ParseRebroadcastInterval(%q) passed", v)
		}
	}
	many := strings.Repeat("https://a.example,", 9)
	if _, err := config.SendURLs(many); err == nil {
		t.Error("nine send URLs passed")
	}
}
