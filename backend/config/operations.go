package config

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Operations are the settings of how the service is watched and stopped.
type Operations struct {
	// MetricsAddr is the listen address of GET /metrics, apart from the API
	// so that it is never public by accident; "" turns metrics off.
	MetricsAddr string
	// LogFormat is "json" (one object a line) or "text".
	LogFormat string
	// LogLevel is the least level logged.
	LogLevel slog.Level
	// ShutdownDelay is how long a stopping server keeps serving, while
	// /readyz already fails, for load balancers to notice.
	ShutdownDelay time.Duration
	// ShutdownTimeout bounds how long requests and streams in flight may
	// take to finish once the server stops accepting; then they are ended.
	ShutdownTimeout time.Duration
	// Pprof serves Go's profiles under /debug/pprof/ on the metrics
	// listener (never on the API's).
	Pprof bool
}

func defaultOperations() Operations {
	return Operations{MetricsAddr: "127.0.0.1:9090", LogFormat: "json", LogLevel: slog.LevelInfo, ShutdownTimeout: 20 * time.Second}
}

// load reads the operations settings from getenv; it returns what is wrong.
func (o *Operations) load(getenv func(string) string) []string {
	var errs []string
	if v := strings.TrimSpace(getenv("RECLAIM_METRICS_ADDR")); v != "" {
		o.MetricsAddr = v
		if v == "off" {
			o.MetricsAddr = ""
		}
	}
	switch v := strings.TrimSpace(getenv("RECLAIM_LOG_FORMAT")); v {
	case "":
	case "json", "text":
		o.LogFormat = v
	default:
		errs = append(errs, fmt.Sprintf("RECLAIM_LOG_FORMAT=%q: want json or text", v))
	}
	if v := strings.TrimSpace(getenv("RECLAIM_LOG_LEVEL")); v != "" {
		if err := o.LogLevel.UnmarshalText([]byte(v)); err != nil {
			errs = append(errs, fmt.Sprintf("RECLAIM_LOG_LEVEL=%q: want debug, info, warn or error", v))
		}
	}
	switch v := strings.TrimSpace(getenv("RECLAIM_PPROF")); v {
	case "", "0", "false":
	case "1", "true":
		o.Pprof = true
	default:
		errs = append(errs, fmt.Sprintf("RECLAIM_PPROF=%q: want 1 or 0", v))
	}
	for _, s := range []struct {
		name string
		dst  *time.Duration
	}{{"RECLAIM_SHUTDOWN_DELAY_SECONDS", &o.ShutdownDelay}, {"RECLAIM_SHUTDOWN_TIMEOUT_SECONDS", &o.ShutdownTimeout}} {
		v := strings.TrimSpace(getenv(s.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 600 {
			errs = append(errs, fmt.Sprintf("%s=%q: want a whole number from 0 to 600", s.name, v))
			continue
		}
		*s.dst = time.Duration(n) * time.Second
	}
	return errs
}
