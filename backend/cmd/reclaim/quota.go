package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// projectLimits shows a project's quota, sets its own (--rps and --burst)
// or returns it to the deployment's default (--default), and prints the
// quota the project then has. Every instance applies a change within
// RECLAIM_SESSION_CHECK_INTERVAL.
func projectLimits(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := storeFlags("project limits", &cfg)
	projectID := fs.String("project", "", "project id (required)")
	rps := fs.Int("rps", 0, "requests per second, spent by all the project's keys and sessions together")
	burst := fs.Int("burst", 0, "requests at once, at least --rps")
	toDefault := fs.Bool("default", false, "return the project to the default quota (RECLAIM_RATE_LIMIT_RPS and _BURST)")
	if err := parse(fs, args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	set := given["rps"] || given["burst"]
	switch {
	case *projectID == "":
		return usageError{"project limits: --project is required"}
	case set && *toDefault:
		return usageError{"project limits: give either --rps and --burst or --default, not both"}
	case set && !(given["rps"] && given["burst"]):
		return usageError{"project limits: give --rps and --burst together"}
	case set:
		if err := project.CheckQuota(*rps, *burst); err != nil {
			return usageError{"project limits: " + err.Error()}
		}
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	if _, err := e.projects.Get(ctx, *projectID); errors.Is(err, project.ErrNotFound) {
		return fmt.Errorf("project limits: no project %s", *projectID)
	} else if err != nil {
		return err
	}
	switch {
	case set:
		if _, err := e.projects.SetQuota(ctx, *projectID, *rps, *burst); err != nil {
			return err
		}
	case *toDefault:
		if err := e.projects.ClearQuota(ctx, *projectID); err != nil && !errors.Is(err, project.ErrNotFound) {
			return err
		}
	}
	q, err := e.projects.Quota(ctx, *projectID)
	own := err == nil
	if err != nil && !errors.Is(err, project.ErrNotFound) {
		return err
	}
	fmt.Fprintln(stdout, describeQuota(cfg, *projectID, q, own))
	return nil
}

// describeQuota is the line `reclaim project limits` prints.
func describeQuota(cfg config.Config, projectID string, q project.Quota, own bool) string {
	eq := effectiveQuota(cfg, q, own)
	whose := "the default: RECLAIM_RATE_LIMIT_RPS and _BURST"
	if own {
		whose = "its own, set " + eq.updated.Format("2006-01-02 15:04:05 UTC")
	}
	return fmt.Sprintf("%s: %g requests/s, burst %d (%s); each wallet %g/s, burst %d (RECLAIM_RATE_LIMIT_WALLET_SHARE %d%%); a change applies within %s",
		projectID, eq.rps, eq.burst, whose, eq.walletRPS, eq.walletBur, cfg.RateLimitWalletShare, cfg.SessionCheckInterval)
}

// refusalFlushEvery is how often an instance adds the refusals it counted
// to the database: the console's count lags by at most this.
const refusalFlushEvery = time.Minute

// flushRefusals adds the counted refusals to the database every
// refusalFlushEvery until ctx ends, then once more; the channel closes
// when it has stopped.
func flushRefusals(ctx context.Context, e *env, cfg config.Config, log *slog.Logger) <-chan struct{} {
	done := make(chan struct{})
	flush := func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, cfg.DBTimeout)
		defer cancel()
		if err := e.refusals.Flush(ctx); err != nil {
			log.WarnContext(ctx, "rate limits: adding the refused requests' counts failed; kept for the next try", "err", err)
		}
	}
	go func() {
		defer close(done)
		t := time.NewTicker(refusalFlushEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				flush(context.WithoutCancel(ctx))
				return
			case <-t.C:
				flush(ctx)
			}
		}
	}()
	return done
}

// quota is what a project's rate limit comes to: its own or the default,
// and each wallet's share of it.
type quota struct {
	rps, walletRPS   float64
	burst, walletBur int
	own              bool
	updated          time.Time
}

func effectiveQuota(cfg config.Config, q project.Quota, own bool) quota {
	out := quota{rps: cfg.RateLimitRPS, burst: cfg.RateLimitBurst}
	if own {
		out = quota{rps: float64(q.RPS), burst: q.Burst, own: true, updated: q.UpdatedAt}
	}
	share := cfg.RateLimitWalletShare
	out.walletRPS, out.walletBur = out.rps*float64(share)/100, max(1, out.burst*share/100)
	return out
}

// consoleQuotas is the console's view of a project's rate limit.
type consoleQuotas struct {
	cfg config.Config
	e   *env
}

func (c consoleQuotas) QuotaReport(ctx context.Context, projectID string) (admin.QuotaReport, error) {
	q, err := c.e.projects.Quota(ctx, projectID)
	own := err == nil
	if err != nil && !errors.Is(err, project.ErrNotFound) {
		return admin.QuotaReport{}, err
	}
	refused, err := c.e.refusals.Last24h(ctx, projectID)
	if err != nil {
		return admin.QuotaReport{}, err
	}
	eq := effectiveQuota(c.cfg, q, own)
	return admin.QuotaReport{
		RPS: eq.rps, Burst: eq.burst, Own: own, WalletShare: c.cfg.RateLimitWalletShare,
		WalletRPS: eq.walletRPS, WalletBurst: eq.walletBur, Refused24h: refused,
	}, nil
}
