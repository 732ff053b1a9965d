package stake_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/stake"
)

// FuzzStakeState feeds what a cluster could answer for a stake account, the
// Clock and StakeHistory: parsing and deciding withdrawability never panic,
// and nothing is withdrawable whole while its effective stake is not 0.
func FuzzStakeState(f *testing.F) {
	w := key("withdrawer")
	f.Add(layout(stake.StateStake, w, stake.Lockup{}, &delegated), []byte{}, uint64(2))
	f.Add(layout(stake.StateInitialized, w, stake.Lockup{Epoch: 3}, nil), []byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, uint64(1))
	f.Fuzz(func(t *testing.T, account, history []byte, epoch uint64) {
		a, err := stake.Parse(account)
		if err != nil {
			return
		}
		h, _ := stake.ParseHistory(&rpc.Account{Owner: stake.SysvarOwner, Data: rpc.DataBytesOrJSONFromBytes(history)})
		c := stake.Clock{Epoch: epoch}
		ok, reason := a.Withdrawable(a.Withdrawer, c, h)
		if ok && a.Delegation != nil && a.Delegation.DeactivationEpoch <= epoch && a.Delegation.Effective(epoch, h) != 0 {
			t.Fatalf("withdrawable with %d effective", a.Delegation.Effective(epoch, h))
		}
		if ok != (reason == "") {
			t.Fatalf("ok %v, reason %q", ok, reason)
		}
		if ok, _ := a.Withdrawable(solana.PublicKey{}, c, h); ok && !a.Withdrawer.IsZero() {
			t.Fatal("withdrawable by another key")
		}
	})
}
