package telemetry

import (
	"context"
	"database/sql"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// buildInfo is reclaim_build_info: 1, labelled with what the binary knows
// of its own build (the module version, the VCS revision when the build
// recorded one, the Go version).
func buildInfo() prometheus.Collector {
	version, revision, goVersion := "unknown", "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version, goVersion = bi.Main.Version, bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "build_info",
		Help:        "1, labelled with the build's module version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": goVersion},
	})
	g.Set(1)
	return g
}

// Version is the binary's module version ("(devel)" for a build from a
// checkout), for the traces' service.version.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return "unknown"
}

// WatchDB adds the connection pool's statistics (go_sql_*, db_name="reclaim").
func (m *Metrics) WatchDB(db *sql.DB) {
	if m == nil {
		return
	}
	m.reg.MustRegister(collectors.NewDBStatsCollector(db, "reclaim"))
}

// InFlightFunc reports the ledger's entries still in flight (sent or being
// sent, not yet settled) and the claim time of the oldest.
type InFlightFunc func(ctx context.Context) (n int, oldest time.Time, err error)

// WatchTracker adds the confirmation tracker's metrics: what this process's
// tracker settled (counts, from relay.Tracker.Counts) and the ledger's
// entries in flight (inFlight, read at each scrape within one second: the
// same figure on every instance sharing the database).
func (m *Metrics) WatchTracker(counts func() relay.TrackerCounts, inFlight InFlightFunc) {
	if m == nil {
		return
	}
	m.reg.MustRegister(newTrackerCollector(counts, inFlight))
}

// trackerCollector reads the tracker's counters and the ledger at scrape
// time, so nothing needs updating between scrapes.
type trackerCollector struct {
	counts   func() relay.TrackerCounts
	inFlight InFlightFunc

	settled, landed, mismatch, rebroadcasts, inFlightN, oldest, up *prometheus.Desc
}

func newTrackerCollector(counts func() relay.TrackerCounts, inFlight InFlightFunc) *trackerCollector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(namespace+"_tracker_"+name, help, labels, nil)
	}
	return &trackerCollector{
		counts: counts, inFlight: inFlight,
		settled: desc("settled_total",
			"Transactions this process's tracker settled, by status (confirmed, failed, expired).", "status"),
		landed: desc("landed_total",
			"Transactions this process's tracker found at confirmed commitment (landed), and landed ones it found gone (dropped: a fork lost their block).", "outcome"),
		mismatch: desc("landed_mismatch_total",
			"Confirmed transactions whose landed figures differ from their ticket's promise (a raised priority fee, lamports received after the build)."),
		rebroadcasts: desc("rebroadcasts_total",
			"Transactions in flight this process's tracker sent again to the cluster's RPC, by outcome (ok, failed: the RPC did not take it); each also went to every extra send path.", "outcome"),
		inFlightN: desc("in_flight",
			"Ledger entries sent or being sent and not yet settled (the whole ledger's: every instance reports the same)."),
		oldest: desc("oldest_in_flight_seconds",
			"Age of the oldest entry in flight; 0 when none. Growing past a minute or two means the trackers are behind."),
		up: desc("in_flight_up",
			"1 when the last scrape could count the entries in flight, 0 when the database did not answer within 1s."),
	}
}

func (c *trackerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.settled, c.landed, c.mismatch, c.rebroadcasts, c.inFlightN, c.oldest, c.up} {
		ch <- d
	}
}

func (c *trackerCollector) Collect(ch chan<- prometheus.Metric) {
	n := c.counts()
	ch <- prometheus.MustNewConstMetric(c.settled, prometheus.CounterValue, float64(n.Confirmed), "confirmed")
	ch <- prometheus.MustNewConstMetric(c.settled, prometheus.CounterValue, float64(n.Failed), "failed")
	ch <- prometheus.MustNewConstMetric(c.settled, prometheus.CounterValue, float64(n.Expired), "expired")
	ch <- prometheus.MustNewConstMetric(c.landed, prometheus.CounterValue, float64(n.Landed), "landed")
	ch <- prometheus.MustNewConstMetric(c.landed, prometheus.CounterValue, float64(n.Dropped), "dropped")
	ch <- prometheus.MustNewConstMetric(c.mismatch, prometheus.CounterValue, float64(n.Differing))
	ch <- prometheus.MustNewConstMetric(c.rebroadcasts, prometheus.CounterValue, float64(n.Rebroadcasts-n.RebroadcastFailures), "ok")
	ch <- prometheus.MustNewConstMetric(c.rebroadcasts, prometheus.CounterValue, float64(n.RebroadcastFailures), "failed")
	if c.inFlight == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	count, oldest, err := c.inFlight(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	age := 0.0
	if count > 0 && !oldest.IsZero() {
		age = max(time.Since(oldest).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(c.inFlightN, prometheus.GaugeValue, float64(count))
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age)
}

// WatchSendPaths adds reclaim_send_path_failures_total: the sends to each
// extra send path (RECLAIM_SEND_URLS) that failed, read from failures (one
// count per path, in their order) at scrape time. The label is the path's
// position in RECLAIM_SEND_URLS, from 1, never its URL; the log lines of a
// failure name its scheme and host.
func (m *Metrics) WatchSendPaths(failures func() []uint64) {
	if m == nil || len(failures()) == 0 {
		return
	}
	m.reg.MustRegister(&sendPathCollector{failures: failures, desc: prometheus.NewDesc(namespace+"_send_path_failures_total",
		"Sends to an extra send path that failed (refused, unanswered, unreachable), by the path's position in RECLAIM_SEND_URLS (1, 2, ...).",
		[]string{"path"}, nil)})
}

type sendPathCollector struct {
	failures func() []uint64
	desc     *prometheus.Desc
}

func (c *sendPathCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *sendPathCollector) Collect(ch chan<- prometheus.Metric) {
	for i, n := range c.failures() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), strconv.Itoa(i+1))
	}
}
