package lookuptable

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// The tags of the instructions that make a table (tests and fixtures).
const (
	tagCreate = 0
	tagExtend = 2
)

// Address is the table authority creates at recentSlot (a slot still in
// the SlotHashes sysvar), and its bump seed: the program address of
// [authority, recentSlot as u64 LE].
func Address(authority solana.PublicKey, recentSlot uint64) (solana.PublicKey, uint8, error) {
	return solana.FindProgramAddress([][]byte{authority[:], binary.LittleEndian.AppendUint64(nil, recentSlot)}, ProgramID)
}

// Create is CreateLookupTable at the table's Address. Data: u32 0,
// recent_slot u64, bump_seed u8. Accounts: table (w), authority (s),
// payer (s, w), the System program. The authority signs as in
// @solana/web3.js 1.x; the program has not required it since
// relax_authority_signer_check_for_lookup_table_creation, and takes it.
func Create(table, authority, payer solana.PublicKey, recentSlot uint64, bump uint8) solana.Instruction {
	data := binary.LittleEndian.AppendUint32(nil, tagCreate)
	data = append(binary.LittleEndian.AppendUint64(data, recentSlot), bump)
	return solana.NewInstruction(ProgramID, funded(table, authority, payer), data)
}

// funded are the accounts of an instruction that payer funds: table (w),
// authority (s), payer (s, w), the System program.
func funded(table, authority, payer solana.PublicKey) solana.AccountMetaSlice {
	return solana.AccountMetaSlice{
		solana.Meta(table).WRITE(),
		solana.Meta(authority).SIGNER(),
		solana.Meta(payer).WRITE().SIGNER(),
		solana.Meta(solana.SystemProgramID),
	}
}

// Extend is ExtendLookupTable, payer funding the larger table. Data: u32
// 2, then the addresses as a bincode Vec (u64 count, keys). Accounts:
// table (w), authority (s), payer (s, w), the System program.
func Extend(table, authority, payer solana.PublicKey, addresses []solana.PublicKey) solana.Instruction {
	data := binary.LittleEndian.AppendUint32(nil, tagExtend)
	data = binary.LittleEndian.AppendUint64(data, uint64(len(addresses)))
	for _, a := range addresses {
		data = append(data, a[:]...)
	}
	return solana.NewInstruction(ProgramID, funded(table, authority, payer), data)
}
