package telemetry

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the metrics at GET /metrics, and nothing else: it is meant
// for its own listener (RECLAIM_METRICS_ADDR), never the public one.
func (m *Metrics) Handler(log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		Registry:          m.reg, // promhttp_metric_handler_errors_total
		EnableOpenMetrics: true,
	}))
	return mux
}
