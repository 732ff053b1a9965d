package admin_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/admin"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// testQuotas is the console's quota panel over real storage, as
// cmd/reclaim wires it (a default of 200/s, burst 400, a 5% wallet share).
type testQuotas struct {
	projects *project.Service
	refusals *project.RefusalCounter
}

func (q testQuotas) QuotaReport(ctx context.Context, projectID string) (admin.QuotaReport, error) {
	r := admin.QuotaReport{RPS: 200, Burst: 400, WalletShare: 5}
	own, err := q.projects.Quota(ctx, projectID)
	switch {
	case err == nil:
		r.RPS, r.Burst, r.Own = float64(own.RPS), own.Burst, true
	case !errors.Is(err, project.ErrNotFound):
		return r, err
	}
	r.WalletRPS, r.WalletBurst = r.RPS*5/100, max(1, r.Burst*5/100)
	r.Refused24h, err = q.refusals.Last24h(ctx, projectID)
	return r, err
}

// The overview shows the project's quota, each wallet's share and the
// requests refused in the last 24 hours, counted in memory and added to
// the database at a flush.
func TestOverviewShowsTheQuota(t *testing.T) {
	t.Parallel()
	var q testQuotas
	h := newHarness(t, false, func(d *admin.Deps) { d.Quotas = &q })
	q = testQuotas{projects: project.NewService(h.store, h.hasher, h.clock.Now), refusals: project.NewRefusalCounter(h.store, h.clock.Now)}
	h.owner("alice@example.com")
	b := h.browser()
	csrf := b.signIn("alice@example.com")
	id := b.createProject(csrf, "Acme")

	check := func(want map[string]string, hint string) {
		t.Helper()
		resp := b.get("/admin/projects/" + id)
		for tid, w := range want {
			if got := text(byTestID(resp.doc, tid)); got != w {
				t.Errorf("%s = %q, want %q", tid, got, w)
			}
		}
		if got := text(byTestID(resp.doc, "quota")); !strings.Contains(got, hint) {
			t.Errorf("quota panel %q does not say %q", got, hint)
		}
	}
	check(map[string]string{"quota-project": "200 req/s, burst 400", "quota-wallet": "10 req/s, burst 20", "quota-refused": "0"}, "the deployment's default")

	ctx := context.Background()
	if _, err := q.projects.SetQuota(ctx, id, 50, 100); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		q.refusals.Refused(id)
	}
	q.refusals.Refused("prj_deleted")                                      // a project deleted since: counted, never shown
	check(map[string]string{"quota-refused": "0"}, "set for this project") // not flushed yet
	if err := q.refusals.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	check(map[string]string{"quota-project": "50 req/s, burst 100", "quota-wallet": "2.5 req/s, burst 5", "quota-refused": "1,000"}, "set for this project by the operator")
}
