package txbuild

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/reclaim-sol/reclaim/backend/chain/ixtest"
)

// TestInstructionLayouts pins every instruction of the frame byte for byte,
// and checks ours against solana-go's encoders. The token instructions are
// pinned in package spltoken.
func TestInstructionLayouts(t *testing.T) {
	t.Parallel()
	owner, to := key("owner"), key("to")
	ixtest.Run(t, []ixtest.Case{
		{
			Name: "SetComputeUnitLimit", Ix: setComputeUnitLimit(1_400_000),
			Program: solana.ComputeBudget, Data: "02" + "c05c1500",
			Same: computebudget.NewSetComputeUnitLimitInstruction(1_400_000).Build(),
		},
		{
			Name: "SetComputeUnitPrice", Ix: setComputeUnitPrice(1_000),
			Program: solana.ComputeBudget, Data: "03" + "e803000000000000",
			Same: computebudget.NewSetComputeUnitPriceInstruction(1_000).Build(),
		},
		{
			Name: "Transfer", Ix: transfer(owner, to, 203_928),
			Program: solana.SystemProgramID, Data: "02000000" + "981c030000000000",
			Metas: []ixtest.Meta{{Key: owner, Signer: true, Writable: true}, {Key: to, Writable: true}},
			Same:  system.NewTransferInstruction(203_928, owner, to).Build(),
		},
	})
}
