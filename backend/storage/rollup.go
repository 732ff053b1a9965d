package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// The rollups (migration 9, docs/decisions.md "rollups") count the
// confirmed ledger rows per project, wallet, UTC day and type
// (reclaim_rollup_days), per wallet, type or all types, and UTC month or year
// (reclaim_rollup_periods), per project and day (reclaim_project_days) and
// per project (reclaim_project_totals), beside the per-wallet totals of all
// time (reclaim_payer_totals). A row is added to them by the transaction that
// confirms it, by one SQL statement per table that aggregates the rows a
// condition selects: one row when confirming, a batch when backfilling, every
// row when rebuilding, so the buckets are computed in one place.

// Periods of reclaim_rollup_periods.
const (
	periodMonth = 1
	periodYear  = 2
)

// bucketSQL are the SQL expressions of a row's UTC day (days since
// 1970-01-01), month (year*12 + month-1) and year, from confirmed_at.
type bucketSQL struct{ day, month, year string }

func (s *core) buckets() bucketSQL {
	if s.postgres {
		const utc = "(confirmed_at AT TIME ZONE 'UTC')"
		return bucketSQL{
			day:   "(CAST(" + utc + " AS DATE) - DATE '1970-01-01')",
			month: "CAST(EXTRACT(YEAR FROM " + utc + ") * 12 + EXTRACT(MONTH FROM " + utc + ") - 1 AS INTEGER)",
			year:  "CAST(EXTRACT(YEAR FROM " + utc + ") AS INTEGER)",
		}
	}
	// SQLite keeps times as text, "2006-01-02 15:04:05.999999+00:00" in UTC.
	return bucketSQL{
		day:   "CAST(julianday(substr(confirmed_at, 1, 10)) - 2440587.5 AS INTEGER)",
		month: "(CAST(substr(confirmed_at, 1, 4) AS INTEGER) * 12 + CAST(substr(confirmed_at, 6, 2) AS INTEGER) - 1)",
		year:  "CAST(substr(confirmed_at, 1, 4) AS INTEGER)",
	}
}

// addedUp is the SET clause of an upsert that adds the new row's columns to
// the existing row's.
func addedUp(table string, columns ...string) string {
	sets := make([]string, len(columns))
	for i, c := range columns {
		sets[i] = fmt.Sprintf("%[2]s = %[1]s.%[2]s + EXCLUDED.%[2]s", table, c)
	}
	return strings.Join(sets, ", ")
}

// The rollup statements; %[1]s is the condition selecting the rows, %[2]s,
// %[3]s and %[4]s the day, month and year expressions. Each inserts in key
// order, so concurrent confirmations lock shared rows in one order.
var (
	addToRollupDays = `INSERT INTO reclaim_rollup_days (project_id, day, type, payer,
	gross_rebate, net_rebate, transaction_count, donation_amount, donation_count, community_amount)
SELECT project_id, %[2]s, type, payer, SUM(gross_rebate), SUM(net_rebate), COUNT(*),
	SUM(donation_amount), COUNT(CASE WHEN donation_amount > 0 THEN 1 END), SUM(service_fee)
FROM reclaim_transactions WHERE status = 'confirmed' AND confirmed_at IS NOT NULL AND (%[1]s)
GROUP BY project_id, %[2]s, payer, type ORDER BY project_id, %[2]s, payer, type
ON CONFLICT (project_id, day, payer, type) DO UPDATE SET ` + addedUp("reclaim_rollup_days",
		"gross_rebate", "net_rebate", "transaction_count", "donation_amount", "donation_count", "community_amount")

	// Each row counts four times: for its type and for all types (""), in
	// its month and in its year.
	addToRollupPeriods = `INSERT INTO reclaim_rollup_periods (project_id, payer, type, period, bucket,
	` + commaList(figureColumns()) + `)
SELECT project_id, payer, t, period, bucket, SUM(gross_rebate), SUM(net_rebate), COUNT(*),
	` + commaList(typeCountsOf()) + `,
	SUM(donation_amount), COUNT(CASE WHEN donation_amount > 0 THEN 1 END), SUM(service_fee)
FROM (
	SELECT project_id, payer, type, CASE WHEN k.all_types = 1 THEN '' ELSE type END AS t, k.period,
		CASE WHEN k.period = 1 THEN %[3]s ELSE %[4]s END AS bucket,
		gross_rebate, net_rebate, donation_amount, service_fee
	FROM reclaim_transactions CROSS JOIN (
		SELECT 0 AS all_types, 1 AS period UNION ALL SELECT 0, 2 UNION ALL SELECT 1, 1 UNION ALL SELECT 1, 2
	) AS k
	WHERE status = 'confirmed' AND confirmed_at IS NOT NULL AND (%[1]s)
) AS counted
WHERE TRUE
GROUP BY project_id, payer, t, period, bucket ORDER BY project_id, payer, t, period, bucket
ON CONFLICT (project_id, payer, type, period, bucket) DO UPDATE SET ` + addedUp("reclaim_rollup_periods", figureColumns()...)

	addToProjectDays = `INSERT INTO reclaim_project_days (project_id, day, gross_rebate, transaction_count)
SELECT project_id, %[2]s, SUM(gross_rebate), COUNT(*)
FROM reclaim_transactions WHERE status = 'confirmed' AND confirmed_at IS NOT NULL AND (%[1]s)
GROUP BY project_id, %[2]s ORDER BY project_id, %[2]s
ON CONFLICT (project_id, day) DO UPDATE SET ` + addedUp("reclaim_project_days", "gross_rebate", "transaction_count")

	// wallet_count grows by %[2]d: the wallets the rows are the first of,
	// when the caller knows it (a confirmation); otherwise 0, and
	// countWallets recounts. version counts the changes (migration 10).
	// rent_rebate and own_balance_rebate split the gross of the rows with
	// a rent (migration 22); rows recorded before count in neither.
	addToProjectTotals = `INSERT INTO reclaim_project_totals (project_id,
	gross_rebate, net_rebate, transaction_count, wallet_count, donation_count, donation_amount,
	rent_rebate, own_balance_rebate, version)
SELECT project_id, SUM(gross_rebate), SUM(net_rebate), COUNT(*), %[2]d,
	COUNT(CASE WHEN donation_amount > 0 THEN 1 END), SUM(donation_amount),
	` + rentSums + `, 1
FROM reclaim_transactions WHERE status = 'confirmed' AND (%[1]s)
GROUP BY project_id ORDER BY project_id
ON CONFLICT (project_id) DO UPDATE SET ` + addedUp("reclaim_project_totals",
		"gross_rebate", "net_rebate", "transaction_count", "wallet_count", "donation_count", "donation_amount",
		"rent_rebate", "own_balance_rebate") +
		", version = reclaim_project_totals.version + 1"

	// stampRanked sets the rank_version of the rows the caller's WHERE
	// selects to the version of their project that counted them: after
	// addToProjectTotals, in its transaction, on rows it holds.
	stampRanked = `UPDATE reclaim_transactions SET rank_version = (
	SELECT t.version FROM reclaim_project_totals AS t WHERE t.project_id = reclaim_transactions.project_id) WHERE `
)

// rentSums are the sums of the rent and the own balance of the rows a
// query selects (ledger.Entry.Split): a row without a rent counts in
// neither, a rent is at most its row's gross.
const rentSums = `CAST(COALESCE(SUM(CASE WHEN rent_rebate IS NULL THEN 0 WHEN rent_rebate > gross_rebate THEN gross_rebate ELSE rent_rebate END), 0) AS BIGINT),
	CAST(COALESCE(SUM(CASE WHEN rent_rebate IS NULL THEN 0 WHEN rent_rebate > gross_rebate THEN 0 ELSE gross_rebate - rent_rebate END), 0) AS BIGINT)`

// addToRollups counts in the rollups the confirmed rows that cond (SQL over
// reclaim_transactions, with args) selects, and newWallets more wallets. The
// per-wallet totals of all time are the caller's business.
func (s *core) addToRollups(ctx context.Context, db bun.IDB, newWallets int, cond string, args ...any) error {
	b := s.buckets()
	for _, q := range []string{addToRollupDays, addToRollupPeriods, addToProjectDays} {
		if _, err := db.ExecContext(ctx, fmt.Sprintf(q, cond, b.day, b.month, b.year), args...); err != nil {
			return fmt.Errorf("add to rollups: %w", err)
		}
	}
	_, err := db.ExecContext(ctx, fmt.Sprintf(addToProjectTotals, cond, newWallets), args...)
	if err != nil {
		return fmt.Errorf("add to project totals: %w", err)
	}
	return nil
}

// countConfirmed counts the row just confirmed, r, everywhere: the
// per-wallet totals of all time and the rollups, in the confirming
// transaction tx.
func (s *core) countConfirmed(ctx context.Context, tx bun.Tx, r *transactionRow) error {
	first, err := addToTotals(ctx, tx, r)
	if err != nil {
		return err
	}
	newWallets := 0
	if first {
		newWallets = 1
	}
	if err := s.addToRollups(ctx, tx, newWallets, "id = ?", r.ID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, stampRanked+"id = ?", r.ID); err != nil {
		return fmt.Errorf("stamp the ranking version: %w", err)
	}
	return nil
}

// recountWallets sets the wallet count of the projects its WHERE, which the
// caller appends, selects.
const recountWallets = `UPDATE reclaim_project_totals SET wallet_count = (
	SELECT COUNT(*) FROM reclaim_payer_totals AS t
	WHERE t.project_id = reclaim_project_totals.project_id AND t.type = '' AND t.transaction_count > 0
) WHERE `

// countWallets sets the wallet count of the projects in ids (all when ids is
// nil) to the number of their wallets with confirmed entries. On Postgres it
// first locks their totals, which a confirmation that adds a wallet updates
// last: one that committed before is in the count, one that did not yet adds
// its wallet after.
func (s *core) countWallets(ctx context.Context, tx bun.Tx, ids []string) error {
	where, args := "TRUE", []any{}
	if ids != nil {
		if len(ids) == 0 {
			return nil
		}
		where, args = "project_id IN (?)", []any{bun.List(ids)}
	}
	if s.postgres {
		if _, err := tx.ExecContext(ctx, "SELECT 1 FROM reclaim_project_totals WHERE "+where+" FOR UPDATE", args...); err != nil {
			return fmt.Errorf("lock project totals: %w", err)
		}
	}
	_, err := tx.ExecContext(ctx, recountWallets+where, args...)
	if err != nil {
		return fmt.Errorf("count wallets: %w", err)
	}
	return nil
}
