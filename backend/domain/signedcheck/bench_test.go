package signedcheck

import (
	"testing"

	"github.com/gagliardetto/solana-go"
)

// BenchmarkCheck is submit's check of a v0 message a wallet guarded.
func BenchmarkCheck(b *testing.B) {
	built := built()
	d := allowed(b, signedBy(b, built...), fixtureNet)
	msg := signedBy(b, append(append([]solana.Instruction{}, built...), assertSystemOwned(wallet))...)
	for b.Loop() {
		if _, err := Check(d, wallet, msg); err != nil {
			b.Fatal(err)
		}
	}
}
