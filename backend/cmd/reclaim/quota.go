package main

import (
	"context"
	"errors"
	"fmt"
	"io"

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
	set := *rps != 0 || *burst != 0
	switch {
	case *projectID == "":
		return usageError{"project limits: --project is required"}
	case set && *toDefault:
		return usageError{"project limits: give either --rps and --burst or --default, not both"}
	case set && (*rps == 0 || *burst == 0):
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
	defer e.store.Close()
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
	rps, burst, whose := float64(q.RPS), q.Burst, "its own, set "+q.UpdatedAt.Format("2006-01-02 15:04:05 UTC")
	if !own {
		rps, burst, whose = cfg.RateLimitRPS, cfg.RateLimitBurst, "the default: RECLAIM_RATE_LIMIT_RPS and _BURST"
	}
	share := cfg.RateLimitWalletShare
	return fmt.Sprintf("%s: %g requests/s, burst %d (%s); each wallet %g/s, burst %d (RECLAIM_RATE_LIMIT_WALLET_SHARE %d%%); a change applies within %s",
		projectID, rps, burst, whose, rps*float64(share)/100, max(1, burst*share/100), share, cfg.SessionCheckInterval)
}
