package rollup

import "github.com/reclaim-sol/reclaim/backend/domain/ledger"

// PageCheck is a page as an in-memory ranking has it: its wallets in
// order, and their gross. The figures summed for those wallets must agree
// with it, or the page is ranked again.
type PageCheck struct {
	Payers []string
	Gross  []int64
}

// Holds reports whether entries, summed from the rollups, are the page c
// ranked.
func (c *PageCheck) Holds(entries []ledger.LeaderboardEntry) bool {
	if len(entries) != len(c.Payers) {
		return false
	}
	for i, e := range entries {
		if e.Payer != c.Payers[i] || e.TotalGrossRebate != c.Gross[i] {
			return false
		}
	}
	return true
}
