package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
)

func TestStorage(t *testing.T) {
	t.Parallel()
	d := config.Default().Storage
	if d.RankingMaxBytes != 512<<20 || d.RankingMaxRows != -1 || d.AttemptsRetention != 30*24*time.Hour || d.Deprecated() != nil {
		t.Fatalf("defaults %+v", d)
	}
	cases := []struct {
		env  map[string]string
		want config.Storage
	}{
		{map[string]string{"RECLAIM_RANKING_MAX_BYTES": "1GiB", "RECLAIM_ATTEMPTS_RETENTION": "7d"}, config.Storage{RankingMaxBytes: 1 << 30, RankingMaxRows: -1, AttemptsRetention: 7 * 24 * time.Hour}},
		{map[string]string{"RECLAIM_RANKING_MAX_BYTES": "268435456", "RECLAIM_ATTEMPTS_RETENTION": "36h"}, config.Storage{RankingMaxBytes: 256 << 20, RankingMaxRows: -1, AttemptsRetention: 36 * time.Hour}},
		{map[string]string{"RECLAIM_RANKING_MAX_BYTES": "0", "RECLAIM_ATTEMPTS_RETENTION": "0"}, config.Storage{RankingMaxRows: -1}},
		// The deprecated bound still works: 0 ranks in SQL, as it did.
		{map[string]string{"RECLAIM_RANKING_MAX_ROWS": "0"}, config.Storage{RankingMaxBytes: 512 << 20, AttemptsRetention: 30 * 24 * time.Hour}},
		{map[string]string{"RECLAIM_RANKING_MAX_ROWS": "20000000", "RECLAIM_RANKING_MAX_BYTES": "64M"}, config.Storage{RankingMaxBytes: 64 << 20, RankingMaxRows: 20_000_000, AttemptsRetention: 30 * 24 * time.Hour}},
		{map[string]string{"RECLAIM_SKIP_MIGRATIONS": "true"}, config.Storage{RankingMaxBytes: 512 << 20, RankingMaxRows: -1, AttemptsRetention: 30 * 24 * time.Hour, SkipMigrations: true}},
		{map[string]string{"RECLAIM_SKIP_MIGRATIONS": "0"}, config.Storage{RankingMaxBytes: 512 << 20, RankingMaxRows: -1, AttemptsRetention: 30 * 24 * time.Hour}},
	}
	for _, c := range cases {
		got, err := config.Load(env(c.env))
		if err != nil || got.Storage != c.want {
			t.Errorf("%v: %+v, %v; want %+v", c.env, got.Storage, err, c.want)
		}
		if dep := got.Deprecated(); (len(dep) == 1) != (c.want.RankingMaxRows >= 0) ||
			len(dep) == 1 && !strings.Contains(dep[0], "RECLAIM_RANKING_MAX_BYTES") {
			t.Errorf("%v: deprecations %q", c.env, dep)
		}
	}
	for name, v := range map[string]string{
		"RECLAIM_RANKING_MAX_BYTES": "lots", "RECLAIM_RANKING_MAX_ROWS": "-1",
		"RECLAIM_ATTEMPTS_RETENTION": "30m", "RECLAIM_SKIP_MIGRATIONS": "sometimes",
	} {
		if _, err := config.Load(env(map[string]string{name: v})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v, want an error naming it", name, v, err)
		}
	}
	for _, v := range []string{"-5", "5 TiB", "1e9", "2d"} {
		if _, err := config.ParseBytes(v); err == nil {
			t.Errorf("ParseBytes(%q) passed", v)
		}
	}
	for _, v := range []string{"0d", "-1d", "1.5d", "forever", "59m"} {
		if _, err := config.ParseRetention(v); err == nil {
			t.Errorf("ParseRetention(%q) passed", v)
		}
	}
}
