package gateway

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/service/auth"
)

// QuotaSource lists the projects that have a quota of their own
// (project.Service).
type QuotaSource interface {
	Quotas(ctx context.Context) ([]project.Quota, error)
}

// RefusalCounter counts a project's refused requests
// (project.RefusalCounter).
type RefusalCounter interface {
	Refused(projectID string)
}

// Quotas sizes the buckets an authenticated request spends from: its
// project's, which all the project's keys and sessions share, and, for a
// request on one wallet, that wallet's share of it, spent first.
type Quotas struct {
	// Default is the quota of a project that has none of its own
	// (RECLAIM_RATE_LIMIT_RPS and _BURST).
	Default ratelimit.Limits
	// WalletShare is the percentage of its project's quota one wallet may
	// spend (RECLAIM_RATE_LIMIT_WALLET_SHARE); 0: no wallet buckets.
	WalletShare int
	// Source lists the projects' own quotas (nil: Default for all).
	Source QuotaSource
	// Refusals counts each project's refused requests, in memory (nil:
	// not counted).
	Refusals RefusalCounter
	// Refresh bounds how stale the copy of the projects' quotas may get
	// (DefaultQuotaRefresh when zero): a quota set with `reclaim project
	// limits` applies on every instance within it.
	Refresh time.Duration
}

// DefaultQuotaRefresh is how often each instance reads the projects' own
// quotas again unless told otherwise.
const DefaultQuotaRefresh = 5 * time.Second

// quotaBook is this instance's copy of the projects' quotas, read again
// in the background once it is older than refresh, so that no request
// waits for the database: a request meeting a stale copy uses it and
// starts one read.
type quotaBook struct {
	Quotas
	timeout time.Duration
	now     func() time.Time
	log     *slog.Logger

	mu         sync.Mutex
	byProj     map[string]ratelimit.Limits
	fetched    time.Time
	refreshing bool
	// ready is closed once the first read landed, which the requests
	// arriving meanwhile wait for.
	ready     chan struct{}
	readyOnce sync.Once
	// loaded, when set (tests), is called after each read landed.
	loaded func()
}

func newQuotaBook(q Quotas, dbTimeout time.Duration, log *slog.Logger) *quotaBook {
	if q.Refresh <= 0 {
		q.Refresh = DefaultQuotaRefresh
	}
	if dbTimeout <= 0 {
		dbTimeout = 5 * time.Second
	}
	return &quotaBook{Quotas: q, timeout: dbTimeout, now: time.Now, log: log, ready: make(chan struct{})}
}

// project returns the quota of projectID. The first call reads the
// quotas before answering (and the calls meanwhile wait for it); later
// ones answer from the copy.
func (b *quotaBook) project(ctx context.Context, projectID string) ratelimit.Limits {
	if b.Source == nil {
		return b.Default
	}
	b.mu.Lock()
	first := b.fetched.IsZero()
	due := !b.refreshing && (first || b.now().Sub(b.fetched) >= b.Refresh)
	if due {
		b.refreshing = true
	}
	b.mu.Unlock()
	switch {
	case due && first:
		b.read(ctx)
	case due:
		go b.read(context.WithoutCancel(ctx)) // outlives the request that noticed it is due, on purpose
	case first:
		select { // another request is reading the first copy
		case <-b.ready:
		case <-ctx.Done():
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if l, ok := b.byProj[projectID]; ok {
		return l
	}
	return b.Default
}

// read reads every project's quota. A failed read keeps the old copy
// (logged) and is tried again after refresh, not per request.
func (b *quotaBook) read(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	started := b.now()
	list, err := b.Source.Quotas(ctx)
	var byProj map[string]ratelimit.Limits
	if err == nil {
		byProj = make(map[string]ratelimit.Limits, len(list))
		for _, q := range list {
			byProj[q.ProjectID] = ratelimit.Limits{RPS: float64(q.RPS), Burst: q.Burst}
		}
	} else {
		b.log.WarnContext(ctx, "rate limits: reading the projects' quotas failed; keeping the last copy", "err", err)
	}
	b.mu.Lock()
	b.refreshing = false
	b.fetched = started
	if byProj != nil {
		b.byProj = byProj
	}
	done := b.loaded
	b.mu.Unlock()
	b.readyOnce.Do(func() { close(b.ready) })
	if done != nil {
		done()
	}
}

// walletShare is a wallet's bucket within project quota q.
func (b *quotaBook) walletShare(q ratelimit.Limits) ratelimit.Limits {
	return ratelimit.Limits{RPS: q.RPS * float64(b.WalletShare) / 100, Burst: max(1, q.Burst*b.WalletShare/100)}
}

// buckets are the buckets p's request spends from, wallet first: its
// wallet's share (a session's wallet, or the wallet an API key's request
// names) and its project's. The keys carry the project's id as a Redis
// hash tag, so that one take's keys share a slot in Redis Cluster.
func (b *quotaBook) buckets(ctx context.Context, p auth.Principal, wallet string) ([]ratelimit.Bucket, []string) {
	q := b.project(ctx, p.ProjectID)
	if p.Wallet != "" {
		wallet = p.Wallet
	}
	projectBucket := ratelimit.Bucket{Key: "p:{" + p.ProjectID + "}", Limits: q}
	if wallet == "" || b.WalletShare <= 0 || auth.ValidateWallet(wallet) != nil {
		return []ratelimit.Bucket{projectBucket}, []string{policyProject}
	}
	return []ratelimit.Bucket{
		{Key: "w:{" + p.ProjectID + "}:" + wallet, Limits: b.walletShare(q)},
		projectBucket,
	}, []string{policyWallet, policyProject}
}
