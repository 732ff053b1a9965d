package txbuild

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// Instructions of the Compute Budget and System programs that frame every
// transaction: its compute limit and price first, the donation and service
// fee transfers last.

// Compute Budget instruction tags.
const (
	tagSetComputeUnitLimit = 2
	tagSetComputeUnitPrice = 3
	// tagSetLoadedAccountsDataSizeLimit carries the reference key.
	tagSetLoadedAccountsDataSizeLimit = 4
)

// maxLoadedAccountsDataSize is the runtime's limit of the account data a
// transaction loads, and its default (Agave's
// MAX_LOADED_ACCOUNTS_DATA_SIZE_BYTES).
const maxLoadedAccountsDataSize = 64 * 1024 * 1024

// systemTransfer is the System program's Transfer instruction index (u32 LE).
const systemTransfer = 2

// setComputeUnitLimit caps the transaction's compute units; the priority fee
// is charged on this limit, not on what the transaction consumes. Data: 2,
// units (u32 LE). No accounts.
func setComputeUnitLimit(units uint32) *solana.GenericInstruction {
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{},
		binary.LittleEndian.AppendUint32([]byte{tagSetComputeUnitLimit}, units))
}

// referenceInstruction is SetLoadedAccountsDataSizeLimit at the runtime's
// maximum, 64 MiB, which is also its default, carrying the build's
// reference key (reference.go) as its one account, read-only and unsigned:
// the Compute Budget program reads only the data, so neither the account
// nor the limit changes anything the transaction does. Wallets leave this
// instruction alone (they may set their own compute limit and price), and
// signedcheck counts it among the built instructions, so its key is part
// of the digest. Data: 4, bytes (u32 LE).
func referenceInstruction(ref solana.PublicKey) *solana.GenericInstruction {
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{solana.Meta(ref)},
		binary.LittleEndian.AppendUint32([]byte{tagSetLoadedAccountsDataSizeLimit}, maxLoadedAccountsDataSize))
}

// setComputeUnitPrice sets the priority fee in micro-lamports per compute
// unit. Data: 3, price (u64 LE). No accounts.
func setComputeUnitPrice(microLamports uint64) *solana.GenericInstruction {
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{},
		binary.LittleEndian.AppendUint64([]byte{tagSetComputeUnitPrice}, microLamports))
}

// transfer moves lamports from a system account (the signing wallet) to any
// account. Data: 2 as u32 LE, lamports (u64 LE). Accounts: from (w, s), to
// (w), then refs read-only (the System program reads the first two only).
func transfer(from, to solana.PublicKey, lamports uint64, refs ...solana.PublicKey) solana.Instruction {
	data := binary.LittleEndian.AppendUint32(nil, systemTransfer)
	data = binary.LittleEndian.AppendUint64(data, lamports)
	metas := solana.AccountMetaSlice{
		solana.Meta(from).WRITE().SIGNER(),
		solana.Meta(to).WRITE(),
	}
	for _, r := range refs {
		metas = append(metas, solana.Meta(r))
	}
	return solana.NewInstruction(solana.SystemProgramID, metas, data)
}
