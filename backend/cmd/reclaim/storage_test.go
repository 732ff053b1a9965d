package main

import (
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
)

// serve's flags set the storage settings as the environment does.
func TestStorageFlags(t *testing.T) {
	cfg := config.Default()
	err := serveFlags(&cfg).Parse([]string{"-ranking-max-bytes", "1GiB", "-ranking-max-rows", "0", "-attempts-retention", "7d"})
	want := config.Storage{RankingMaxBytes: 1 << 30, RankingMaxRows: 0, AttemptsRetention: 7 * 24 * time.Hour}
	if err != nil || cfg.Storage != want {
		t.Fatalf("%+v, %v; want %+v", cfg.Storage, err, want)
	}
	for _, args := range [][]string{{"-ranking-max-bytes", "much"}, {"-attempts-retention", "1m"}} {
		cfg := config.Default()
		if err := serveFlags(&cfg).Parse(args); err == nil {
			t.Errorf("%q passed", args)
		}
	}
}
