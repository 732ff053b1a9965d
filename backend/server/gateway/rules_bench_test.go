package gateway

import (
	"testing"

	"github.com/gagliardetto/solana-go"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// The rules' cost per request, for GET /v1/stats (no rules) and a
// 500-item build: go test -run '^$' -bench CheckRules ./backend/server
func BenchmarkCheckRules(b *testing.B) {
	items := make([]*reclaimv1.ItemSelection, 500)
	for i := range items {
		items[i] = &reclaimv1.ItemSelection{Type: "empty_account", Address: solana.NewWallet().PublicKey().String(), Action: "close"}
	}
	level, donation := "high", 0.1
	build := &reclaimv1.BuildTransactionsRequest{Address: solana.NewWallet().PublicKey().String(), Items: items, PriorityFeeLevel: &level, DonationPercentage: &donation}
	b.Run("stats", func(b *testing.B) {
		req := &reclaimv1.GetStatsRequest{}
		b.ReportAllocs()
		for b.Loop() {
			if err := CheckRules(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("build500", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := CheckRules(build); err != nil {
				b.Fatal(err)
			}
		}
	})
}
