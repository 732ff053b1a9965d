package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Ranged leaderboards are ranked in memory by package ranking, which reads
// a project's confirmed rows through rankSource; the store then sums the
// page's figures from its rollups and rows for those wallets alone
// (sumPieces), which must agree with the ranking's gross, or the page is
// ranked again (docs/decisions.md, "In-memory ranking").
//
// The ranking follows the database, not the other way round: every query
// first reads the project's version (reclaim_project_totals.version,
// migration 10) and the rows counted since its own, in one statement, and
// adds them. A ranking whose count of rows then differs from the project's
// (a version without migration 10 confirmed rows during a rolling upgrade)
// is built again in the background; meanwhile, and while it is first built,
// the leaderboard sums the rollups in SQL as before.

// defaultDeepOffset is Rankings.deepOffset's default.
const defaultDeepOffset = 5_000

// WarmRanking builds projectID's in-memory ranking now, in the caller's
// goroutine, unless it has one; ranged leaderboards otherwise build it on
// first use, in the background, and are summed in SQL until it is ready
// (a few seconds per million rows). It fails when the project cannot be
// ranked in memory.
func (s *Rankings) WarmRanking(ctx context.Context, projectID string) error {
	return s.rank.Warm(ctx, projectID)
}

// rankSource is the ranking.Source of a store: the rows of its ledger.
type rankSource struct{ s *core }

// Read implements ranking.Source in one statement (one snapshot): the
// version and count of confirmed rows of projectID's totals
// (reclaim_project_totals), and its confirmed rows stamped with a
// rank_version above since.
func (src rankSource) Read(ctx context.Context, projectID string, since int64,
	each func(payer, typ string, at, gross, stamp int64) error, totals func(version, count int64),
) error {
	s := src.s
	cond := "TRUE"
	if since >= 0 {
		cond = fmt.Sprintf("rank_version > %d", since)
	}
	q := `SELECT NULL, NULL, NULL, version, transaction_count FROM reclaim_project_totals WHERE project_id = ?
UNION ALL
SELECT payer, type, confirmed_at, gross_rebate, rank_version FROM reclaim_transactions
WHERE project_id = ? AND status = 'confirmed' AND ` + cond
	rows, err := s.db.QueryContext(ctx, q, projectID, projectID)
	if err != nil {
		return fmt.Errorf("read the ranking of %s: %w", projectID, err)
	}
	defer rows.Close()
	var version, count int64
	var payer, typ sql.NullString
	var at any
	var a, b int64
	for rows.Next() {
		if err := rows.Scan(&payer, &typ, &at, &a, &b); err != nil {
			return fmt.Errorf("read the ranking of %s: %w", projectID, err)
		}
		if !payer.Valid {
			version, count = a, b
			continue
		}
		us, err := micros(at)
		if err != nil {
			return fmt.Errorf("read the ranking of %s: %w", projectID, err)
		}
		if err := each(payer.String, typ.String, us, a, b); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the ranking of %s: %w", projectID, err)
	}
	totals(version, count)
	return nil
}

// sqliteTimes are the layouts SQLite hands confirmed_at back in, when its
// driver does not parse it.
var sqliteTimes = []string{"2006-01-02 15:04:05.999999999-07:00", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05"}

// micros is a scanned confirmation time in microseconds since 1970, or -1
// when there is none.
func micros(v any) (int64, error) {
	var s string
	switch t := v.(type) {
	case nil:
		return -1, nil
	case time.Time:
		return t.UnixMicro(), nil
	case string:
		s = t
	case []byte:
		s = string(t)
	default:
		return 0, fmt.Errorf("confirmation time of type %T", v)
	}
	for _, layout := range sqliteTimes {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("confirmation time %q", s)
}

// ceilMicros is the first microsecond at or after t: a row confirmed at µs
// x is at or after t exactly when x >= ceilMicros(t).
func ceilMicros(t time.Time) int64 {
	us := t.UnixMicro()
	if time.UnixMicro(us).Before(t) {
		us++
	}
	return us
}

// payerList is payers as a SQL list literal, for sumPieces's condition.
func (s *core) payerList(payers []string) string {
	quoted := make([]string, len(payers))
	for i, p := range payers {
		quoted[i] = s.db.QueryGen().FormatQuery("?", p)
	}
	return "payer IN (" + strings.Join(quoted, ", ") + ")"
}
