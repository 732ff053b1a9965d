package storage

import (
	"fmt"
	"strings"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// The per-wallet rollups (reclaim_payer_totals, reclaim_rollup_periods) and
// the leaderboard's rows count each wallet's transactions per type, one
// column per ledger type named for it: token_account_closure_count, ...,
// lookup_table_reclaim_count. The first three came with the tables
// (migrations 2 and 9), four with migration 14 and the last with migration
// 24 (migrations_types.go).

// typeCountColumn is the column counting transactions of type t.
func typeCountColumn(t string) string { return t + "_count" }

// typeCountColumns are the columns of every type, in ledger.Types order.
func typeCountColumns() []string {
	out := make([]string, len(ledger.Types))
	for i, t := range ledger.Types {
		out[i] = typeCountColumn(t)
	}
	return out
}

// typeCountsOf are the SQL expressions counting, per type in ledger.Types
// order, the rows aggregated: COUNT(CASE WHEN type = '...' THEN 1 END).
func typeCountsOf() []string {
	out := make([]string, len(ledger.Types))
	for i, t := range ledger.Types {
		out[i] = fmt.Sprintf("COUNT(CASE WHEN type = '%s' THEN 1 END)", t)
	}
	return out
}

// figureColumns are the columns every per-wallet rollup row sums, the type
// counts in the middle: the order of the leaderboard's figures.
func figureColumns() []string {
	return append(append([]string{"gross_rebate", "net_rebate", "transaction_count"}, typeCountColumns()...),
		"donation_amount", "donation_count", "community_amount")
}

func commaList(s []string) string { return strings.Join(s, ", ") }

// typeCountsAs is typeCountsOf, each named as its column.
func typeCountsAs() string {
	exprs := typeCountsOf()
	for i, t := range ledger.Types {
		exprs[i] += " AS " + typeCountColumn(t)
	}
	return commaList(exprs)
}
