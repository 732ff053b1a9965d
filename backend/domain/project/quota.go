package project

import (
	"context"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
)

// Quota is a project's own rate limit, set by the operator: RPS requests a
// second sustained, Burst at once, spent by all the project's API keys and
// sessions together. A project without one has the deployment's default
// (RECLAIM_RATE_LIMIT_RPS and _BURST).
type Quota struct {
	ProjectID string
	RPS       int
	Burst     int
	UpdatedAt time.Time
}

// QuotaStore keeps the projects' own quotas. SetQuota gives ErrNotFound
// for an unknown project; ClearQuota and Quota ErrNotFound for a project
// without one.
type QuotaStore interface {
	SetQuota(ctx context.Context, q Quota) error
	ClearQuota(ctx context.Context, projectID string) error
	Quota(ctx context.Context, projectID string) (Quota, error)
	// Quotas returns every project's own quota.
	Quotas(ctx context.Context) ([]Quota, error)
}

// CheckQuota checks a quota as the operator typed it: whole requests per
// second and a burst the rate limiters can keep (ratelimit.Check), the
// burst at least the rate, so that a second's requests fit.
func CheckQuota(rps, burst int) error {
	if err := ratelimit.Check(float64(rps), burst); err != nil {
		return fault.Invalid("limits", "%v", err)
	}
	if burst < rps {
		return fault.Invalid("burst", "the burst (%d) must be at least the rate (%d requests per second): a second's requests must fit in the bucket", burst, rps)
	}
	return nil
}

// SetQuota gives project projectID its own quota, after CheckQuota.
func (s *Service) SetQuota(ctx context.Context, projectID string, rps, burst int) (Quota, error) {
	if err := CheckQuota(rps, burst); err != nil {
		return Quota{}, err
	}
	q := Quota{ProjectID: projectID, RPS: rps, Burst: burst, UpdatedAt: s.now().UTC()}
	if err := s.store.SetQuota(ctx, q); err != nil {
		return Quota{}, err
	}
	return q, nil
}

// ClearQuota returns project projectID to the default quota; a project
// without its own gives ErrNotFound.
func (s *Service) ClearQuota(ctx context.Context, projectID string) error {
	return s.store.ClearQuota(ctx, projectID)
}

// Quota returns project projectID's own quota, or ErrNotFound when it has
// the default.
func (s *Service) Quota(ctx context.Context, projectID string) (Quota, error) {
	return s.store.Quota(ctx, projectID)
}

// Quotas returns every project's own quota, for the API's rate limiter,
// which reads them again every few seconds.
func (s *Service) Quotas(ctx context.Context) ([]Quota, error) {
	return s.store.Quotas(ctx)
}
