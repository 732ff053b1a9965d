// Package feature reads the accounts of the Feature program
// (Feature111111111111111111111111111111111111), the cluster's feature
// gates: a gate's account exists once it is proposed, and holds the slot it
// was activated at once it is active. Layout (bincode, solana-feature-gate-
// interface's Feature): activated_at Option<u64>, a 0 or 1 tag then the
// slot.
package feature

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// ProgramID owns every feature account.
var ProgramID = solana.FeatureProgramID

// Active reports whether the feature account a (nil when it does not
// exist) is an activated feature; slot is the slot it was activated at.
func Active(a *rpc.Account) (slot uint64, active bool) {
	if a == nil || a.Data == nil || !a.Owner.Equals(ProgramID) {
		return 0, false
	}
	d := a.Data.GetBinary()
	if len(d) < 9 || d[0] != 1 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(d[1:9]), true
}
