package config_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
)

func TestOperations(t *testing.T) {
	t.Parallel()
	d := config.Default()
	if d.MetricsAddr != "127.0.0.1:9090" || d.LogFormat != "json" || d.LogLevel != slog.LevelInfo || d.ShutdownTimeout != 20*time.Second || d.ShutdownDelay != 0 {
		t.Fatalf("defaults %+v", d.Operations)
	}
	c, err := config.Load(env(map[string]string{
		"RECLAIM_METRICS_ADDR": "off", "RECLAIM_LOG_FORMAT": "text", "RECLAIM_LOG_LEVEL": "debug",
		"RECLAIM_SHUTDOWN_DELAY_SECONDS": "5", "RECLAIM_SHUTDOWN_TIMEOUT_SECONDS": "25", "RECLAIM_PPROF": "1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Operations{LogFormat: "text", LogLevel: slog.LevelDebug, ShutdownDelay: 5 * time.Second, ShutdownTimeout: 25 * time.Second, Pprof: true}
	if c.Operations != want {
		t.Fatalf("%+v, want %+v", c.Operations, want)
	}
	if c, _ := config.Load(env(map[string]string{"RECLAIM_METRICS_ADDR": "0.0.0.0:9100"})); c.MetricsAddr != "0.0.0.0:9100" {
		t.Fatalf("metrics addr %q", c.MetricsAddr)
	}
	for name, v := range map[string]string{
		"RECLAIM_LOG_FORMAT": "xml", "RECLAIM_LOG_LEVEL": "loud",
		"RECLAIM_SHUTDOWN_DELAY_SECONDS": "-1", "RECLAIM_SHUTDOWN_TIMEOUT_SECONDS": "forever", "RECLAIM_PPROF": "yes",
	} {
		if _, err := config.Load(env(map[string]string{name: v})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v", name, v, err)
		}
	}
}
