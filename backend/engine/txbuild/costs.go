package txbuild

import (
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
)

// Compute units per instruction kind. A transaction whose every instruction
// is in the table gets its limit from the table, without simulating it: the
// sum of its instructions' costs, then the same margin a simulated need
// gets (computeLimit: 10% and 1,000 units more) and the guard headroom. A
// transaction with any other instruction (Metaplex, Core and Bubblegum
// burns) is simulated, as before.
//
// Each cost is the most one instruction of that kind consumed on the e2e
// validator (TestComputeTableCoversSimulation measures them, on SPL Token
// as p-token and on Token-2022 accounts with and without extensions; the
// figures are beside each entry), with room above it, about twice; the classic SPL Token program, which the validator does
// not run, costs what its maintainers measured (the p-token README: 2,916
// units for CloseAccount, 4,753 for Burn), with the same room. Builtins
// (Compute Budget, System, the upgradeable loader) cost their fixed
// default.
//
// A kind is its program and the first byte of its data: the instruction's
// tag (one byte for the token programs and the Compute Budget program, the
// low byte of a u32 for the System program, the loader and the stake
// program, whose instructions here number under 256).
type costKind struct {
	program solana.PublicKey
	tag     byte
}

// Instruction tags of the kinds the builder emits.
const (
	tagCloseAccount           = 9
	tagBurnChecked            = 15
	tagTransferFeeExtension   = 26 // HarvestWithheldTokensToMint is its sub-instruction 4
	tagWithdrawExcessLamports = 38
	tagSystemWithdrawNonce    = 5
	tagLoaderClose            = 5
	tagStakeWithdraw          = 4
)

// unitCosts holds every kind's cost but SPL Token's, which depends on
// whether the cluster runs p-token (tokenCosts).
var unitCosts = map[costKind]uint64{
	{solana.ComputeBudget, tagSetComputeUnitLimit}:            150,    // builtin: exactly 150
	{solana.ComputeBudget, tagSetComputeUnitPrice}:            150,    // builtin
	{solana.ComputeBudget, tagSetLoadedAccountsDataSizeLimit}: 150,    // builtin: the reference key's
	{solana.SystemProgramID, systemTransfer}:                  150,    // builtin
	{solana.SystemProgramID, tagSystemWithdrawNonce}:          150,    // builtin
	{loaderv3.ProgramID, tagLoaderClose}:                      2_370,  // builtin: exactly 2,370
	{stake.ProgramID, tagStakeWithdraw}:                       10_000, // core BPF: 6,128
	{solana.Token2022ProgramID, tagCloseAccount}:              4_000,  // 1,684 with a transfer fee
	{solana.Token2022ProgramID, tagBurnChecked}:               4_000,  // 1,795
	{solana.Token2022ProgramID, tagTransferFeeExtension}:      3_000,  // harvest of one account: 1,299
	{solana.Token2022ProgramID, tagWithdrawExcessLamports}:    4_000,  // 1,403
	{solana.TokenProgramID, tagCloseAccount}:                  4_000,  // classic: 2,916
	{solana.TokenProgramID, tagBurnChecked}:                   6_500,  // classic: Burn 4,753
}

// pTokenCosts replace unitCosts' SPL Token kinds where the cluster runs
// p-token (SIMD-0266), which also takes WithdrawExcessLamports.
var pTokenCosts = map[costKind]uint64{
	{solana.TokenProgramID, tagCloseAccount}:           1_000, // 120
	{solana.TokenProgramID, tagBurnChecked}:            1_000, // 126
	{solana.TokenProgramID, tagWithdrawExcessLamports}: 1_000, // 276
}

// InstructionUnits is the table's cost of an instruction of program whose
// data starts with tag, on a cluster that runs p-token or not; false when
// the table does not know it.
func InstructionUnits(program solana.PublicKey, tag byte, pToken bool) (uint64, bool) {
	k := costKind{program, tag}
	if pToken {
		if u, ok := pTokenCosts[k]; ok {
			return u, true
		}
	}
	u, ok := unitCosts[k]
	return u, ok
}

// TableUnits is the compute units the table gives the compiled instructions
// of tx, on a cluster that runs p-token or not, before any margin; false
// when one of them is not in the table.
func TableUnits(tx *solana.Transaction, pToken bool) (uint64, bool) {
	ixs := tx.Message.Instructions
	return tableUnits(tx.Message.AccountKeys, len(ixs), func(i int) (int, []byte) {
		return int(ixs[i].ProgramIDIndex), ixs[i].Data
	}, pToken)
}

// tableUnits is TableUnits of n instructions over keys, instruction i's
// program index and data given by ix.
func tableUnits(keys []solana.PublicKey, n int, ix func(i int) (int, []byte), pToken bool) (uint64, bool) {
	var sum uint64
	for i := range n {
		program, data := ix(i)
		if program >= len(keys) || len(data) == 0 {
			return 0, false
		}
		u, ok := InstructionUnits(keys[program], data[0], pToken)
		if !ok {
			return 0, false
		}
		sum += u
	}
	return sum, true
}
