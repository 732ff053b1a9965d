package admin

import (
	"net/http"
	"strconv"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// The overview shows chartDays days of history, boardPageSize wallets per
// page of the leaderboard and the latestShown latest transactions.
const (
	chartDays     = 30
	boardPageSize = 20
	latestShown   = 10
)

// overviewData is the overview page: the numbers of GET /v1/stats and of the
// leaderboard, from the same ledger.Service.
type overviewData struct {
	Stats  ledger.Stats
	Chart  chart
	Board  []ledger.LeaderboardEntry
	Filter ledger.FilterParams
	// FilterErr is the message of a rejected filter.
	FilterErr string
	Offset    int
	HasNext   bool
	Latest    []latestRow
	Explorer  Explorer
	// Quota is the project's rate limit (nil: not shown).
	Quota *QuotaReport
}

// latestRow is one of the latest transactions. Its figures are what the
// chain did once it is confirmed, the ticket's promise before; Difference
// says how a confirmed one landed otherwise than promised ("" when it did
// not): a wallet that raised its priority fee, an account that received
// lamports after the build.
type latestRow struct {
	CreatedAt              time.Time
	Type, Payer, Status    string
	Signature              string
	GrossRebate, NetRebate int64
	Difference             string
}

func latestRows(entries []ledger.Entry) []latestRow {
	out := make([]latestRow, len(entries))
	for i, e := range entries {
		out[i] = latestRow{
			CreatedAt: e.CreatedAt, Type: e.Type, Payer: e.Payer, Status: string(e.Status), Signature: e.Signature,
			GrossRebate: e.GrossRebate, NetRebate: e.NetRebate, Difference: e.Difference(),
		}
	}
	return out
}

// readFilter takes the leaderboard filters from the query, with the API's
// names; the page size is the console's.
func readFilter(r *http.Request) (ledger.FilterParams, int) {
	q := r.URL.Query()
	p := ledger.FilterParams{
		Payer: q.Get("payer"), TransactionType: q.Get("transactionType"),
		StartDate: q.Get("startDate"), EndDate: q.Get("endDate"),
		Offset: q.Get("offset"),
	}
	offset, _ := strconv.Atoi(p.Offset)
	return p, max(offset, 0)
}

func (c *console) overview(w http.ResponseWriter, r *http.Request, rq *request) {
	d, status, err := c.overviewData(r, rq.actor.Project.ID)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	c.render(w, r, status, overviewView(rq.page(rq.actor.Project.Name, "overview"), d))
}

// overviewData loads everything the overview shows; a rejected filter gives
// status 400 and the rest of the page.
func (c *console) overviewData(r *http.Request, projectID string) (overviewData, int, error) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	status := http.StatusOK
	d := overviewData{Explorer: c.Explorer}
	d.Filter, d.Offset = readFilter(r)
	var err error
	if d.Stats, err = c.Ledger.Stats(ctx, projectID); err != nil {
		return d, 0, err
	}
	params := d.Filter
	params.Limit = strconv.Itoa(boardPageSize + 1) // one more tells whether a next page exists
	d.Board, err = c.Ledger.Leaderboard(ctx, projectID, params)
	invalid, isInvalid := fault.As(err, fault.KindInvalid)
	switch {
	case isInvalid:
		d.FilterErr, status = invalid.Error(), http.StatusBadRequest
	case err != nil:
		return d, 0, err
	}
	if len(d.Board) > boardPageSize {
		d.Board, d.HasNext = d.Board[:boardPageSize], true
	}
	to := c.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	from := to.AddDate(0, 0, -chartDays)
	days, err := c.History.DailyTotals(ctx, projectID, from, to)
	if err != nil {
		return d, 0, err
	}
	d.Chart = newChart(from, chartDays, days)
	latest, err := c.History.LatestEntries(ctx, projectID, latestShown)
	if err != nil {
		return d, 0, err
	}
	d.Latest = latestRows(latest)
	if c.Quotas != nil {
		q, err := c.Quotas.QuotaReport(ctx, projectID)
		if err != nil {
			return d, 0, err
		}
		d.Quota = &q
	}
	return d, status, nil
}

// pageURL is the overview with the same filters at another offset.
func (d overviewData) pageURL(projectID string, offset int) string {
	q := make([]string, 0, 10)
	add := func(k, v string) {
		if v != "" {
			q = append(q, k+"="+urlQueryEscape(v))
		}
	}
	add("startDate", d.Filter.StartDate)
	add("endDate", d.Filter.EndDate)
	add("transactionType", d.Filter.TransactionType)
	add("payer", d.Filter.Payer)
	if offset > 0 {
		add("offset", strconv.Itoa(offset))
	}
	u := projectURL(projectID, "")
	for i, kv := range q {
		if i == 0 {
			u += "?" + kv
		} else {
			u += "&" + kv
		}
	}
	return u + "#leaderboard"
}
