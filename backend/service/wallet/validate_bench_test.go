package wallet

import (
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// The service's own checks of a 500-item build (what the proto's rules
// leave to it): go test -run '^$' -bench ValidateBuild ./backend/service/wallet
func BenchmarkValidateBuild500(b *testing.B) {
	items := make([]Selection, 500)
	for i := range items {
		items[i] = SelectionOf(assets.TypeEmptyAccount, solana.NewWallet().PublicKey().String(), assets.ActionClose)
	}
	level, donation := PriorityLevel("high"), 0.1
	req := BuildRequest{Items: items, PriorityFeeLevel: &level, DonationPercentage: &donation}
	b.ReportAllocs()
	for b.Loop() {
		if err := validateBuild(req); err != nil {
			b.Fatal(err)
		}
	}
}
