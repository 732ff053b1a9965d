package txbuild

import (
	"github.com/gagliardetto/solana-go"
)

// sizer counts the serialized size of the v0 transaction that assemble would
// compile from the instructions added to it, without compiling it: compiling
// (solana.NewTransaction) encodes every key in base58, and packing measures a
// transaction once per item it tries to add, which made packing most of a
// build's processor time. The size is that of MarshalBinary with one zeroed
// signature per signer:
//
//	signatures   compact-u16 count, 64 bytes each (one per distinct signer)
//	message      version byte, 3-byte header, compact-u16 key count and 32
//	             bytes per distinct key (fee payer, accounts, programs),
//	             32-byte blockhash, compact-u16 instruction count and per
//	             instruction: program index, compact-u16 account count and
//	             one index byte each, compact-u16 data length and the data;
//	             then one byte of address table lookups (none).
//
// TestSizerMatchesCompiled checks it against the compiled transaction.
type sizer struct {
	// keys holds every distinct key; true marks a signer.
	keys    map[solana.PublicKey]bool
	signers int
	ixs     int
	// ixBytes is the instructions' bytes after the count.
	ixBytes int
}

// newSizer starts a transaction paid by payer (a signer).
func newSizer(payer solana.PublicKey) *sizer {
	return &sizer{keys: map[solana.PublicKey]bool{payer: true}, signers: 1}
}

// clone copies z.
func (z *sizer) clone() *sizer {
	c := *z
	c.keys = make(map[solana.PublicKey]bool, len(z.keys)+8)
	for k, v := range z.keys {
		c.keys[k] = v
	}
	return &c
}

// add counts ixs into z.
func (z *sizer) add(ixs []solana.Instruction) {
	for _, ix := range ixs {
		z.key(ix.ProgramID(), false)
		accounts := ix.Accounts()
		for _, m := range accounts {
			z.key(m.PublicKey, m.IsSigner)
		}
		data, _ := ix.Data() // the instructions here encode from bytes already built
		z.ixs++
		z.ixBytes += 1 + compactLen(len(accounts)) + len(accounts) + compactLen(len(data)) + len(data)
	}
}

func (z *sizer) key(k solana.PublicKey, signer bool) {
	was, ok := z.keys[k]
	if !ok || signer && !was {
		z.keys[k] = was || signer
		if signer {
			z.signers++
		}
	}
}

// size is the serialized size of the transaction counted so far.
func (z *sizer) size() int {
	return compactLen(z.signers) + 64*z.signers +
		1 + 3 + compactLen(len(z.keys)) + 32*len(z.keys) + 32 +
		compactLen(z.ixs) + z.ixBytes + 1
}

// sizeWith is the size with ixs added, z unchanged.
func (z *sizer) sizeWith(ixs []solana.Instruction) int {
	c := z.clone()
	c.add(ixs)
	return c.size()
}

// compactLen is the length of n as a compact-u16.
func compactLen(n int) int {
	switch {
	case n < 1<<7:
		return 1
	case n < 1<<14:
		return 2
	}
	return 3
}
