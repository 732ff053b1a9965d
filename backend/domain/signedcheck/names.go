package signedcheck

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Names of the programs a refusal may mention, so that it reads "System
// transfer" rather than a base58 id.
var programNames = map[solana.PublicKey]string{
	solana.SystemProgramID:                    "System",
	solana.TokenProgramID:                     "Token",
	solana.Token2022ProgramID:                 "Token-2022",
	solana.SPLAssociatedTokenAccountProgramID: "Associated Token Account",
	solana.ComputeBudget:                      "Compute Budget",
	solana.MemoProgramID:                      "Memo",
	solana.MustPublicKeyFromBase58("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo"): "Memo v1",
	solana.TokenMetadataProgramID: "Token Metadata",
	solana.MustPublicKeyFromBase58("CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d"): "MPL Core",
	solana.MustPublicKeyFromBase58("BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY"): "Bubblegum",
	solana.MustPublicKeyFromBase58("noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV"):  "SPL Noop",
	solana.MustPublicKeyFromBase58("L1TEVtgA75k273wWz1s6XMmDhQY5i3MwcvKb4VbZzfK"):  "Lighthouse (old id)",
	LighthouseProgramID:                  "Lighthouse",
	solana.BPFLoaderUpgradeableProgramID: "BPF Upgradeable Loader",
	solana.StakeProgramID:                "Stake",
}

// Instruction names by program and discriminator, where one byte (or the
// System program's u32) tells them apart.
var (
	systemNames = map[uint32]string{0: "create account", 1: "assign", 2: "transfer", 3: "create account with seed", 5: "withdraw nonce account", 8: "allocate"}
	tokenNames  = map[byte]string{3: "Transfer", 4: "Approve", 6: "SetAuthority", 7: "MintTo", 8: "Burn", 9: "CloseAccount", 10: "FreezeAccount", 12: "TransferChecked", 15: "BurnChecked", 17: "SyncNative", 38: "WithdrawExcessLamports"}
	// The upgradeable loader's and the stake program's instructions Reclaim
	// builds (u32 tags).
	loaderNames = map[uint32]string{5: "Close"}
	stakeNames  = map[uint32]string{4: "Withdraw"}
	budgetNames = map[byte]string{0: "Unused", 1: "RequestHeapFrame", 2: "SetComputeUnitLimit", 3: "SetComputeUnitPrice", 4: "SetLoadedAccountsDataSizeLimit"}
	lightNames  = map[byte]string{0: "MemoryWrite", 1: "MemoryClose", 2: "AssertAccountData", 3: "AssertAccountDataMulti",
		4: "AssertAccountDelta", 5: "AssertAccountInfo", 6: "AssertAccountInfoMulti", 7: "AssertMintAccount", 8: "AssertMintAccountMulti",
		9: "AssertTokenAccount", 10: "AssertTokenAccountMulti", 11: "AssertStakeAccount", 12: "AssertStakeAccountMulti",
		13: "AssertUpgradeableLoaderAccount", 14: "AssertUpgradeableLoaderAccountMulti", 15: "AssertSysvarClock",
		16: "AssertMerkleTreeAccount", 17: "AssertBubblegumTreeConfigAccount"}
)

// programName is a known program's name, or its id.
func programName(p solana.PublicKey) string {
	if n, ok := programNames[p]; ok {
		return n
	}
	return "program " + p.String()
}

// describe names an instruction: "System transfer", "Token CloseAccount",
// "Lighthouse MemoryWrite", "Memo instruction".
func describe(p solana.PublicKey, data []byte) string {
	var name string
	var ok bool
	switch {
	case p.Equals(solana.SystemProgramID) && len(data) >= 4:
		name, ok = systemNames[binary.LittleEndian.Uint32(data)]
	case (p.Equals(solana.TokenProgramID) || p.Equals(solana.Token2022ProgramID)) && len(data) > 0:
		name, ok = tokenNames[data[0]]
	case p.Equals(solana.BPFLoaderUpgradeableProgramID) && len(data) >= 4:
		name, ok = loaderNames[binary.LittleEndian.Uint32(data)]
	case p.Equals(solana.StakeProgramID) && len(data) >= 4:
		name, ok = stakeNames[binary.LittleEndian.Uint32(data)]
	case p.Equals(solana.ComputeBudget) && len(data) > 0:
		name, ok = budgetNames[data[0]]
	case p.Equals(LighthouseProgramID) && len(data) > 0:
		name, ok = lightNames[data[0]]
		if !ok {
			name, ok = fmt.Sprintf("instruction with discriminator %d", data[0]), true
		}
	}
	if !ok {
		name = "instruction"
	}
	return programName(p) + " " + name
}

// builtInstruction names a built instruction from its fingerprint: "a
// System instruction" when its program is a known one.
func builtInstruction(f fingerprint) string {
	for p, n := range programNames {
		h := sha256.Sum256(p[:])
		if [4]byte(h[:4]) == [4]byte(f[:4]) {
			return "a " + n + " instruction"
		}
	}
	return "an instruction of another program"
}
