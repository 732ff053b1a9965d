package signedcheck

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// Test fixtures: a transaction shaped as txbuild builds them (compute unit
// limit and price, an item's instructions, the donation and service fee
// transfers), and the instructions wallets add, encoded as the Lighthouse
// client encodes them (lighthouse-sdk 2.1.0; see /work/notes/lighthouse.md).

func key(label string) solana.PublicKey {
	h := sha256.Sum256([]byte(label))
	return solana.PublicKeyFromBytes(h[:])
}

var (
	wallet    = key("wallet")
	tokenAcct = key("token account")
	donation  = key("donation wallet")
	treasury  = key("treasury")
	stranger  = key("stranger")
	blockhash = solana.Hash(key("blockhash"))
)

func computeLimit(units uint32) solana.Instruction {
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, binary.LittleEndian.AppendUint32([]byte{2}, units))
}

func computePrice(micro uint64) solana.Instruction {
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, binary.LittleEndian.AppendUint64([]byte{3}, micro))
}

func transfer(from, to solana.PublicKey, lamports uint64) solana.Instruction {
	data := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32(nil, 2), lamports)
	return solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{solana.Meta(from).WRITE().SIGNER(), solana.Meta(to).WRITE()}, data)
}

func closeAccount(account solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(), solana.Meta(wallet).WRITE(), solana.Meta(wallet).SIGNER(),
	}, []byte{9})
}

func memo(text string) solana.Instruction {
	return solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{}, []byte(text))
}

// lighthouse is a Lighthouse instruction with data on read-only targets.
func lighthouse(data []byte, targets ...solana.PublicKey) solana.Instruction {
	metas := solana.AccountMetaSlice{}
	for _, t := range targets {
		metas = append(metas, solana.Meta(t))
	}
	return solana.NewInstruction(LighthouseProgramID, metas, data)
}

// assertLamports is AssertAccountInfo: lamports >= atLeast, logs silent.
func assertLamports(target solana.PublicKey, atLeast uint64) solana.Instruction {
	return lighthouse(append(binary.LittleEndian.AppendUint64([]byte{5, 0, 0}, atLeast), 4), target)
}

// assertSystemOwned is the AssertAccountInfoMulti Solflare signed in
// Jac0xb/lighthouse#55: KnownOwner == System, logged on failure.
func assertSystemOwned(target solana.PublicKey) solana.Instruction {
	return lighthouse([]byte{6, 4, 1, 3, 0, 0}, target)
}

// assertTokenAmount is AssertTokenAccount: amount == 0.
func assertTokenAmount(target solana.PublicKey) solana.Instruction {
	return lighthouse(append(binary.LittleEndian.AppendUint64([]byte{9, 0, 2}, 0), 0), target)
}

// memoryWrite is Lighthouse's MemoryWrite of the payer's lamports into a
// memory account it funds: it moves lamports.
func memoryWrite() solana.Instruction {
	return solana.NewInstruction(LighthouseProgramID, solana.AccountMetaSlice{
		solana.Meta(LighthouseProgramID), solana.Meta(solana.SystemProgramID),
		solana.Meta(wallet).WRITE().SIGNER(), solana.Meta(key("memory")).WRITE(), solana.Meta(wallet),
	}, []byte{0, 0, 253, 0, 1, 1})
}

// built is the instructions as txbuild builds them.
func built() []solana.Instruction {
	return []solana.Instruction{
		computeLimit(20_000), computePrice(5_000), closeAccount(tokenAcct),
		transfer(wallet, donation, 203_928), transfer(wallet, treasury, 101_964),
	}
}

// compile makes a version 0 message paid by payer.
func compile(t testing.TB, ixs []solana.Instruction, payer solana.PublicKey, hash solana.Hash) []byte {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, hash, solana.TransactionPayer(payer))
	if err != nil {
		t.Fatal(err)
	}
	tx.Message.SetVersion(solana.MessageVersionV0)
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func signedBy(t testing.TB, ixs ...solana.Instruction) []byte {
	t.Helper()
	return compile(t, ixs, wallet, blockhash)
}

func digest(t testing.TB, msg []byte) Digest {
	t.Helper()
	d, err := DigestOf(msg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// allowance is the service's default: RECLAIM_GUARD_HEADROOM_UNITS and
// RECLAIM_MAX_COMPUTE_UNIT_PRICE.
var allowance = Allowance{HeadroomUnits: 6_000, MaxPrice: DefaultMaxPrice}

// fixtureNet is the net rebate of built(): a token account's 2,039,280
// lamports less the network fee (5,000 and 100 of priority), the donation
// and the service fee.
const fixtureNet = 2_039_280 - 5_100 - 203_928 - 101_964

// allowed digests msg with the bounds txbuild gives a transaction whose net
// rebate is net.
func allowed(t testing.TB, msg []byte, net int64) Digest {
	t.Helper()
	d := digest(t, msg)
	d.Allow(allowance, net)
	return d
}

// insert returns ixs with extra inserted at index i.
func insert(ixs []solana.Instruction, i int, extra ...solana.Instruction) []solana.Instruction {
	out := append([]solana.Instruction{}, ixs[:i]...)
	out = append(out, extra...)
	return append(out, ixs[i:]...)
}
